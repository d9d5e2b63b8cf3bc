"""Issue 19 item 5: semantic de-duplication. Canonical forms drop instructions that cannot
change any reward or any seat's information set, so the no-op mutants the issue found
(single_text plus a reveal that changes nothing) are copies of their parent, while a
reveal a later move can use still makes a different game."""

from __future__ import annotations

from arena.gamespace.sampling.canonical import canonical_key
from arena.gamespace.sampling.mutate import MutateSampler
from arena.gamespace.sampling.noops import without_noops
from arena.lang.loader import load_game
from arena.lang.printer import render_program
from arena.match_setup import load_entry
from arena.plugins.registry import Registry
from arena.protocols.sampler import ParentGame

HIDDEN = """# Hidden (test game)
# rounds: 1
assign(s=story(4))
elicit(t, 4)
reward(nex(t))
"""


def key(text: str) -> str:
    return canonical_key(load_game(text, filename="g.xgl"))


def single_text() -> str:
    return load_entry(Registry.load().game("single_text")).source


def test_a_reveal_after_the_last_move_of_a_one_round_game_is_a_copy() -> None:
    parent = single_text()
    assert key(parent + "reveal(s)\n") == key(parent)
    assert key(parent + "reveal(black, t)\n") == key(parent)


def test_a_repeated_reveal_and_a_self_assignment_are_copies() -> None:
    shown = HIDDEN.replace("elicit(t, 4)", "reveal(s)\nelicit(t, 4)")
    again = HIDDEN.replace("elicit(t, 4)", "reveal(s)\nreveal(black, s)\nelicit(t, 4)")
    assert key(again) == key(shown)
    assert key(HIDDEN.replace("reward", "assign(s=s)\nreward")) == key(HIDDEN)


def test_a_reveal_that_informs_a_move_is_a_different_game() -> None:
    shown = HIDDEN.replace("elicit(t, 4)", "reveal(s)\nelicit(t, 4)")
    assert key(shown) != key(HIDDEN)
    # written in between: the second reveal shows a new value
    rewritten = shown.replace("elicit(t, 4)", "assign(s=story(4))\nreveal(s)\nelicit(t, 4)")
    assert len(without_noops(load_game(rewritten, filename="g.xgl")).instructions) == 6
    # a game of several rounds: what is shown after the last move reaches the next round
    several = HIDDEN.replace("rounds: 1", "rounds: 3")
    assert key(several + "reveal(s)\n") != key(several)


def test_the_mutants_of_single_text_that_only_add_a_late_reveal_are_copies() -> None:
    """The issue's case: `arena games generate single_text`; every mutant that is the parent
    plus reveals after the last elicit now has the parent's key."""
    source = single_text()
    parent = ParentGame("single_text", "1", "single_text.xgl", source)
    sampler = MutateSampler(("reveal",))
    base = load_game(source, filename="single_text.xgl")
    base_lines = render_program(base, header=()).splitlines()
    late, kept = 0, 0
    for proposal in sampler.propose(parent, 30, seed=0):
        mutant = load_game(proposal.source, filename="m.xgl")
        lines = render_program(mutant, header=()).splitlines()
        tail = lines[len(base_lines):]
        if lines[: len(base_lines)] == base_lines and tail and all(
            line.startswith("reveal(") for line in tail
        ):
            late += 1
            assert canonical_key(mutant) == canonical_key(base), proposal.source
        elif canonical_key(mutant) != canonical_key(base):
            kept += 1
    assert late >= 1 and kept >= 1  # copies recognised, real changes kept


TWO_SEATS = """# Two seats (test game)
# rounds: 1
assign(s=story(4))
reveal(s)
reveal(alice, s)
elicit(alice, t, 4)
reward(alice, nex(t | s))
elicit(x, 4)
reward(nex(x))
"""


def test_a_reveal_to_another_seat_is_not_a_repeat() -> None:
    """A reveal without a player shows to black only (XGL.md section 5): the dedup used to
    read it as "to every seat" and dropped alice's reveal of the same value, so the
    canonical form (what game-space measurements play) lost what alice's move is about."""
    program = without_noops(load_game(TWO_SEATS, filename="g.xgl"))
    assert [i.name for i in program.instructions].count("reveal") == 2
    assert key(TWO_SEATS) != key(TWO_SEATS.replace("reveal(alice, s)\n", ""))


def test_a_reveal_to_a_seat_that_never_moves_after_it_is_a_copy() -> None:
    """The mutant last round's note left: `reveal(carol, t)` where carol never moves."""
    parent = single_text()
    mutant = parent.replace("elicit(", "reveal(carol, s)\nelicit(", 1)
    assert mutant != parent and key(mutant) == key(parent)
    # alice moves after the reveal: what she is shown can change her move
    assert key(TWO_SEATS.replace("reveal(alice, s)\n", "reveal(alice, s)\nreveal(carol, s)\n")) \
        == key(TWO_SEATS)
    moved = TWO_SEATS.replace("reveal(alice, s)\n", "")
    assert key(moved) != key(TWO_SEATS)
    # a later ensure can ask alice's move again after a reveal that follows it
    again = TWO_SEATS.replace("reveal(alice, s)\n", "").replace(
        "reward(alice", "reveal(alice, s)\nensure(num_words(t) < 3)\nreward(alice")
    assert key(again) != key(again.replace("reveal(alice, s)\nensure", "ensure"))


def test_the_default_player_is_spelled_one_way() -> None:
    assert key(HIDDEN.replace("reward(nex(t))", "reward(black, nex(t))")) == key(HIDDEN)
