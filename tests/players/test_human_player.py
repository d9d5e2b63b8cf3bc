"""The terminal player: shows the request, reads one line per register from stdin."""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from rich.console import Console

from arena.errors import ConfigError
from arena.judges.ngram import NgramJudge
from arena.players.people.terminal import HumanPlayer, create_human_player, render_request
from arena.plugins.plugin_types import PlayerContext
from arena.protocols.player import GameView, HistoryItem, MoveRequest, RevealedValue
from arena.specs import parse_spec
from tests.runtime.helpers import events_of, run_game

ROOT = Path(__file__).resolve().parents[2]
GAME = (
    'assign(s="the old miller walked to the river at dawn")\n'
    "elicit(t1, t2, 6)\n"
    "ensure(t1 != t2)\n"
    "reward(xed(s | t1 + t2))\n"
)
DRIVER = """
import asyncio, json, sys
from arena.plugins.plugin_types import PlayerContext
from arena.specs import parse_spec
from arena.judges.ngram import NgramJudge
from arena.players.people.terminal import create_human_player
from tests.runtime.helpers import events_of, run_game

player = create_human_player(parse_spec("human"), PlayerContext(role="black"))
result = asyncio.run(run_game(sys.argv[1], {"black": player}, NgramJudge()))
print(json.dumps([e.values for e in events_of(result, "elicit_response")]))
"""


def request(**changes: object) -> MoveRequest:
    base: dict[str, object] = dict(
        game=GameView(name="clue", code='assign(s="x")\nelicit(t, 5)', dialect="xgl"),
        role="black", round=2, rounds=3, line=2, registers=("t",), max_len=5,
        visible={"s": "secret story text"}, reveals=(), history=(),
    )
    base.update(changes)
    return MoveRequest(**base)  # type: ignore[arg-type]


def test_a_real_terminal_session_through_stdin() -> None:
    # The same player in a child process, fed through a pipe: first attempt repeats
    # itself and fails the ensure, the retry is accepted.
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", DRIVER, GAME], input="same\nsame\nmiller\nriver dawn\n",
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, check=True,
    )
    moves = json.loads(out.stdout)  # stdout holds only the driver's JSON
    assert moves == [{"t1": "same", "t2": "same"}, {"t1": "miller", "t2": "river dawn"}]
    assert "Your move for register t1" in out.stderr
    assert "the old miller walked to the river at dawn" in out.stderr  # black is omniscient
    assert "failed `t1 != t2`" in out.stderr  # told why it is asked again


def test_arena_play_with_a_human_seat(tmp_path: Path) -> None:
    from arena.plugins.registry import Registry

    assert "human" in Registry.load().player_names()  # registered as a built-in
    game = tmp_path / "clue.xgl"
    game.write_text(GAME, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-m", "arena.cli", "play", str(game), "--judge", "ngram",
         "--player", "black=human", "--json"],
        input="miller\nriver\n", capture_output=True, text=True, env=env, cwd=ROOT,
        timeout=120, check=True,
    )
    report = json.loads(out.stdout)
    (response,) = [e for e in report["events"] if e["type"] == "elicit_response"]
    assert response["values"] == {"t1": "miller", "t2": "river"}
    assert report["scores"]["black"]["best"] is not None


async def test_end_of_input_forfeits_the_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("only one line\n"))
    player = HumanPlayer(console=Console(file=io.StringIO()))
    result = await run_game(GAME, {"black": player}, NgramJudge())
    (forfeit,) = events_of(result, "forfeit")
    assert forfeit.player == "black" and "end of standard input" in forfeit.reason
    assert result.scores["black"].forfeit


async def test_a_line_typed_after_a_timeout_answers_the_next_request() -> None:
    typed = threading.Event()
    calls: list[int] = []

    def read_line() -> str:
        calls.append(1)
        typed.wait(timeout=30)
        return "late answer"

    player = HumanPlayer(console=Console(file=io.StringIO()), read_line=read_line)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(player.move(request()), timeout=0.05)
    typed.set()
    assert await player.move(request()) == {"t": "late answer"}
    assert len(calls) == 1  # the pending read was reused, not doubled


def test_the_request_is_rendered_readably() -> None:
    shown = request(
        reveals=(RevealedValue(label="s2 + t2", value="a revealed value", line=1),),
        history=(
            HistoryItem(kind="move", line=2, moves={"t": "first try"}),
            HistoryItem(kind="failed_ensure", line=3, condition="t != s"),
        ),
        attempt=2,
        failed_condition="t != s",
    )
    console = Console(record=True, width=120, file=io.StringIO())
    console.print(render_request(shown))
    text = console.export_text()
    for expected in ("you are black", "round 2/3", "secret story text", "s2 + t2",
                     "a revealed value", "you played t = 'first try'",
                     "failed `t != s`", ">  2 elicit(t, 5)"):
        assert expected in text, expected


def test_human_spec_checks() -> None:
    assert create_human_player(parse_spec("human?code=0"), PlayerContext()).name == "human?code=0"
    with pytest.raises(ConfigError, match="no ':' argument"):
        create_human_player(parse_spec("human:bob"), PlayerContext())
    with pytest.raises(ConfigError, match="Unknown parameter"):
        create_human_player(parse_spec("human?colour=1"), PlayerContext())


def test_reward_terms_show_their_total_once() -> None:
    """A term's `total` already includes its coefficient: the history line must not apply it
    again (a negative coefficient would flip the sign shown to the human)."""
    from arena.players.people.terminal import _history_line
    from arena.protocols.player import RewardTermView

    term = RewardTermView(
        source="xent(s)", coefficient=-1, bits=(1.5, 1.5), tokens=("a", "b"), total=-3.0
    )
    line = _history_line(HistoryItem(kind="reward", line=4, reward=-3.0, terms=(term,)))
    assert "xent(s): -3.00" in line
