"""Resource limits in the tournament file: `[limits]` is validated with the rest of the
file, reaches the game checker (source limits) and every match (runtime limits)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.lang.limits import DEFAULT_LIMITS
from arena.storage import MATCH_ERROR, Store, sqlite_url
from arena.storage.queries import stored_matches
from arena.tournaments.planning.config import load_tournament
from arena.tournaments.planning.config_errors import TournamentConfigError
from arena.tournaments.running.prepare import prepare_tournament
from arena.tournaments.services.run_config import run_file
from tests.tournaments import arena_fixtures as fx

BODY = """
name = "lim"
judge = "ngram"
{limits}
[[participants]]
name = "alpha"
player = "random?words=3"

[[games]]
game = "{game}"
"""

DOUBLING = 'assign(s="ab")\nbeacon(flag_1)\nassign(s=s+s)\nreplay(flag_1, 60)\nelicit(t, 5)\n'


def write(tmp_path: Path, limits: str, game: str = "condense.xgl") -> Path:
    return fx.tournament_file(tmp_path, BODY.format(limits=limits, game=game))


def test_limits_default_and_can_be_set(tmp_path: Path) -> None:
    assert load_tournament(write(tmp_path, "")).limits == DEFAULT_LIMITS
    config = load_tournament(write(tmp_path, "[limits]\nmax_value_chars = 5000\n"))
    assert config.limits.max_value_chars == 5000
    assert config.limits.max_line_chars == DEFAULT_LIMITS.max_line_chars


def test_unknown_and_bad_limits_are_listed_with_the_other_mistakes(tmp_path: Path) -> None:
    limits = '[limits]\nmax_vaule_chars = 5\nmax_line_chars = 0\nmax_round_chars = "big"\n'
    path = write(tmp_path, limits).parent / "tournament.toml"
    path.write_text(path.read_text().replace('judge = "ngram"', 'judge = "ngram"\nrounds = 0'))
    with pytest.raises(TournamentConfigError) as info:
        load_tournament(path)
    found = {p.path: p.render() for p in info.value.problems}
    assert set(found) == {
        "rounds", "limits.max_vaule_chars", "limits.max_line_chars", "limits.max_round_chars"
    }
    assert "Did you mean 'max_value_chars'?" in found["limits.max_vaule_chars"]
    assert "greater than or equal to 1" in found["limits.max_line_chars"]
    assert "integer" in found["limits.max_round_chars"]


def test_source_limits_apply_when_the_games_are_checked(tmp_path: Path) -> None:
    (tmp_path / "long.xgl").write_text('assign(s="' + "q" * 300 + '")\nelicit(t, 5)\n')
    registry = fx.registry()
    strict = load_tournament(write(tmp_path, "[limits]\nmax_literal_chars = 100\n", "long.xgl"))
    with pytest.raises(TournamentConfigError) as info:
        prepare_tournament(strict, registry)
    (problem,) = info.value.problems
    assert problem.path == "games[0](long.xgl).game"
    assert "max_literal_chars = 100" in problem.message
    relaxed = load_tournament(write(tmp_path, "[limits]\nmax_literal_chars = 300\n", "long.xgl"))
    assert prepare_tournament(relaxed, registry).games["long"].program.instructions


async def test_runtime_limits_reach_every_match(tmp_path: Path) -> None:
    (tmp_path / "doubling.xgl").write_text(DOUBLING)
    path = write(tmp_path, "[limits]\nmax_value_chars = 1000\n", "doubling.xgl")
    db = sqlite_url(tmp_path / "lim.db")
    summary = await run_file(path, db=db, registry=fx.registry())
    assert (summary.planned, summary.errors) == (1, 1)
    store = Store.open(db)
    try:
        (match,) = stored_matches(store.engine, "lim")
    finally:
        store.close()
    assert match.status == MATCH_ERROR
    assert "over the limit max_value_chars = 1,000" in (match.error or "")
    assert "(line 3: assign(s=s+s))" in (match.error or "")
