"""The `mutate` meta-sampler: seeded mutations of every bundled game, each operator in
turn, are all accepted by the static checker, change the game, carry their lineage, are
reproducible, and never run game code as Python.

MUTATIONS_PER_GAME defaults to the issue's 1 000 per game (28 000 mutations, about 45 s of
CPU); XENT_ARENA_MUTATIONS=N sets another count (e.g. 100 for a quick local run).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from arena.gamespace.sampling.lineage import read_lineage
from arena.gamespace.sampling.mutate import MutateSampler, make_mutate
from arena.gamespace.sampling.mutations import OPERATORS
from arena.lang.loader import load_game
from arena.lang.printer import render_program
from arena.protocols.sampler import ParentGame, Proposal
from arena.specs import parse_spec
from tests.lang.test_parser_properties import tripwire

GAMES = sorted((Path(__file__).resolve().parents[2] / "arena" / "games").glob("*.x*"))
MUTATIONS_PER_GAME = int(os.environ.get("XENT_ARENA_MUTATIONS", "1000"))


def parent_of(path: Path) -> ParentGame:
    return ParentGame(path.stem, "1", path.name, path.read_text(encoding="utf-8"))


def mutate_game(path: Path, count: int) -> tuple[list[Proposal], Counter[str]]:
    """`count` mutations, candidate i drawn with operator i mod 7 alone."""
    parent = parent_of(path)
    program = load_game(parent.source, filename=parent.filename)
    samplers = [MutateSampler((name,), spec=f"mutate?ops={name}") for name in OPERATORS]
    made: list[Proposal] = []
    missing: Counter[str] = Counter()
    with tripwire() as calls:
        for index in range(count):
            sampler = samplers[index % len(samplers)]
            proposal = sampler.one(parent, program, seed=7, index=index)
            if proposal is None:
                missing[sampler.operators[0]] += 1
            else:
                made.append(proposal)
    assert calls == []  # no eval, exec or compile while mutating and checking
    return made, missing


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.name)
def test_seeded_mutations_of_every_game_are_accepted_by_the_checker(path: Path) -> None:
    made, missing = mutate_game(path, MUTATIONS_PER_GAME)
    parent_text = render_program(load_game(path.read_text(), filename=path.name), header=())
    # Every operator with a site in this game produced candidates (condition needs an
    # ensure; every game has lengths, registers, rewards, players and stories or reveals).
    assert {p.operator for p in made} >= set(OPERATORS) - {"condition", "story"}
    assert len(made) >= MUTATIONS_PER_GAME * 5 // 7
    for proposal in made:
        program = load_game(proposal.source, filename=proposal.filename)  # raises if not
        assert render_program(program, header=()) != parent_text
        lineage = read_lineage(proposal.source)
        assert lineage["parent"] == f"{path.stem} v1"
        assert lineage["operator"] == proposal.operator
        assert (lineage["seed"], lineage["index"]) == ("7", str(proposal.index))
        assert proposal.filename.endswith(path.suffix)
    # A game without ensures has no condition to change; one with ensures always does.
    if "ensure(" in path.read_text():
        assert missing["condition"] == 0


def test_mixed_mutations_are_reproducible_from_seed_and_index() -> None:
    parent = parent_of(next(p for p in GAMES if p.stem == "math_debate"))
    sampler = make_mutate(parse_spec("mutate?depth=3"))
    first = list(sampler.propose(parent, 30, seed=3))
    again = list(sampler.propose(parent, 30, seed=3))
    other = list(sampler.propose(parent, 30, seed=4))
    assert [p.source for p in first] == [p.source for p in again]
    assert [p.source for p in first] != [p.source for p in other]
    assert len(first) == 30 and any("+" in p.operator for p in first)
    assert len({p.source for p in first}) > 20


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mutate?ops=length,colour", "Unknown mutation operator 'colour'"),
        ("mutate?depth=0", "depth must be an integer from 1 to 8"),
        ("mutate?speed=3", "no parameter 'speed'"),
    ],
)
def test_bad_sampler_specs_name_the_problem_and_the_options(spec: str, message: str) -> None:
    from arena.errors import ConfigError

    with pytest.raises(ConfigError) as error:
        make_mutate(parse_spec(spec))
    assert message in str(error.value)
