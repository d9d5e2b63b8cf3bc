"""Real game texts (the paper's and the reference implementation's) load unchanged."""

from __future__ import annotations

import pytest

from arena.errors import GameSyntaxError
from arena.lang.ast import BinOp, Call, Name, UnaryOp
from arena.lang.loader import load_game

CONDENSE = """\
assign(s=story())
elicit(x, 10)
assign(x1=remove_common_words(x, s))
reveal(x1)
reward(xed(s | x1))
"""

PREFIXES = """\
assign(s=story())
assign(t1="After the rain", t2=" I eat food")

elicit(x1, 5)
ensure(xed(x1 | s) >= xed(t2 | t1))

elicit(x2, 5)
ensure(xed(x2 | s + x1) >= xed(t2 | t1))

reward(dex(x2 | s))
"""

LOOPS = """\
# Interception with loops
# alice builds, black derails, white judges
assign(s1=story(), s2=story(), s="")
beacon(flag_1)
elicit(alice, t1, t2, 10)
elicit(black, t, 10)
ensure("no common words between" + s + "&" + t)
reward(white, xent(s1+t1+t+t2+s2)-xent(s1+t1+t)-xent(t+t2+s2)+xent(t))
reward(alice, -xed(s|t))
reward(2*xed(s|t))
assign(s=s+t)
beacon(flag_2)
elicit(white, t, 6)
replay(flag_2, 2)
replay(flag_1, 3)
reward(white, xed(s // "#", "white="))
reward(black, xed(s // "#", "black="))
"""

CHESS = """\
assign(s="")
beacon(flag_1)
elicit(white, t, 6)
ensure("Is valid chess game, black to move or game over (specify winner):" + s+t)
assign(s=s+t)
elicit(black, t, 6)
ensure("Is valid chess game, white to move or game over (specify winner):" + s+t)
assign(s=s+t)
replay(flag_1, 5000)
reward(white, xed(s // "#", "white="))
reward(black, xed(s // "#", "black="))
"""


@pytest.mark.parametrize(
    ("name", "source", "count"),
    [("condense.xent", CONDENSE, 5), ("prefixes.xent", PREFIXES, 7), ("chess.xgl", CHESS, 11)],
)
def test_paper_games_load_unchanged(name: str, source: str, count: int) -> None:
    program = load_game(source, filename=name)
    assert program.dialect == name.rsplit(".", 1)[1]
    assert len(program.instructions) == count
    assert program.line_count == len(source.splitlines())


def test_chess_needs_dialect_xgl_for_its_statement_ensures() -> None:
    """The paper's chess game ensures bare statement strings (paper section 2.4), which
    dialect xgl reads as is_true(...) and dialect xent refuses, as the reference does."""
    with pytest.raises(GameSyntaxError) as caught:
        load_game(CHESS, filename="chess.xent")
    assert [d.line for d in caught.value.diagnostics] == [4, 7]


def test_prefixes_game_structure() -> None:
    program = load_game(PREFIXES, filename="prefixes.xent")
    assert [i.line for i in program.instructions] == [1, 2, 4, 5, 7, 8, 10]
    ensure = program.at_line(8)
    assert ensure is not None and ensure.name == "ensure"
    compare = ensure.call.args[0]
    xed = compare.left  # type: ignore[attr-defined]
    assert isinstance(xed, Call) and xed.func == "xed"
    cond = xed.args[0]
    # s2 | s + s1 binds as x2 | (s + x1)
    assert isinstance(cond, BinOp) and cond.op == "|"
    assert isinstance(cond.right, BinOp) and cond.right.op == "+"


def test_xgl_game_with_loops_players_and_scaled_rewards() -> None:
    program = load_game(LOOPS, filename="loops.xgl")
    assert program.dialect == "xgl"
    assert program.header == (
        "Interception with loops",
        "alice builds, black derails, white judges",
    )
    elicit = program.at_line(5)
    assert elicit is not None
    assert [a.id for a in elicit.call.args[:3] if isinstance(a, Name)] == ["alice", "t1", "t2"]
    neg = program.at_line(9)
    assert neg is not None and isinstance(neg.call.args[1], UnaryOp)
    chess_reward = program.at_line(16)
    assert chess_reward is not None
    xed = chess_reward.call.args[1]
    assert isinstance(xed, Call) and len(xed.args) == 2


def test_paper_one_player_game_with_statement_ensure() -> None:
    source = (
        "assign(s=story())\n"
        "elicit(t, 10)\n"
        'ensure("no common words between"+s+"&"+t)\n'
        '# asks for a nontrivial "summary" of s\n'
        "reward(xed(s|t))\n"
    )
    assert len(load_game(source).instructions) == 4
