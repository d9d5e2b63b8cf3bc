"""Sizes in a tournament file are bounded at load (issue 24 item 10): `maps = 10^12` once
planned a trillion matches (1 043 MemoryError tracebacks, then a hang); now every size has
a maximum, nan/inf are refused, and a tournament too big to plan is one problem, exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.tournaments.planning.config import MAX_MAPS, MAX_MATCHES, parse_tournament
from arena.tournaments.planning.config_errors import TournamentConfigError

REPO = Path(__file__).resolve().parents[2]
HUGE = """
name = "huge"
maps = 1000000000000

[[participants]]
name = "a"
player = "random"

[[games]]
game = "condense"
"""


def base(**top: object) -> dict[str, object]:
    return {
        "name": "t",
        "participants": [{"name": "a", "player": "random"}, {"name": "b", "player": "random"}],
        "games": [{"game": "condense"}],
        **top,
    }


def problems(data: dict[str, object]) -> dict[str, str]:
    with pytest.raises(TournamentConfigError) as error:
        parse_tournament(data)
    return {p.path: p.render() for p in error.value.problems}


def test_arena_run_refuses_a_trillion_maps_in_one_line_and_exits_2(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text(HUGE)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("XENT_ARENA_DB", None)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", "from arena.cli import main; main()", "run", "t.toml",
         "--db", "arena.db"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert time.monotonic() - started < 60
    assert "Traceback" not in done.stderr + done.stdout
    assert "maps = 1000000000000: must be at most 10000" in done.stderr
    assert not (tmp_path / "arena.db").exists()


def test_every_size_has_a_maximum_and_floats_must_be_finite() -> None:
    found = problems(base(
        maps=10**12, rounds=10**9, move_timeout=float("nan"), move_retries=10**6,
        instruction_budget=2**62, concurrency={"global": 10**9, "providers": {"x": 10**9}},
        normalisation={"method": "narms", "theta": float("inf")},
        games=[{"game": "condense", "maps": 10**12, "max_matches": 10**15}],
    ))
    assert found["maps"] == (
        "maps = 1000000000000: must be at most 10000; larger sizes do not fit in memory or "
        "time, so write a value up to 10000."
    )
    assert "must be a finite number, not nan or inf" in found["move_timeout"]
    assert "must be a finite number" in found["normalisation.theta"]
    for path in ("rounds", "move_retries", "instruction_budget", "concurrency.global",
                 "games[0](condense).maps", "games[0](condense).max_matches"):
        assert "must be at most" in found[path], path
    assert "from 1 to 10000" in found["concurrency.providers"]


def test_a_tournament_too_big_to_plan_is_refused_before_planning() -> None:
    people = [{"name": f"p{i}", "player": "random"} for i in range(200)]
    games = [{"game": "condense", "name": f"g{i}"} for i in range(10)]
    found = problems(base(maps=MAX_MAPS, participants=people, games=games))
    assert found["(size)"] == (
        f"(size): plans at least 20,000,000 matches, over the maximum of {MAX_MATCHES:,}; "
        "lower maps, or the number of games or participants, or split the tournament"
    )
    head = problems(base(mode="head_to_head", maps=100, participants=people))
    assert "plans at least 3,980,000 matches" in head["(size)"]
    capped = base(mode="head_to_head", maps=100, participants=people,
                  games=[{"game": "condense", "max_matches": 1000}])
    assert parse_tournament(capped).games[0].max_matches == 1000  # a budget keeps it small


def test_seat_orders_too_many_to_list_are_refused_with_the_fix() -> None:
    from arena.errors import ConfigError
    from arena.tournaments.planning.pairings import seat_assignments

    people = [f"p{i}" for i in range(1000)]
    with pytest.raises(ConfigError, match=r"997,002,000 orders per map.*Set max_matches"):
        seat_assignments(people, 3, None, 0)
    assert len(seat_assignments(people, 3, 5_000, 0)) == 5_000


def test_a_seed_and_limits_beyond_64_bits_are_refused() -> None:
    # Found by tests/cli/test_fuzz_hostile_values.py: seed = 10^30 and a [limits] value of
    # 10^30 were accepted (TOML integers are unbounded in Python) and reached the database.
    found = problems(base(seed=10**30, limits={"max_value_chars": 10**30}))
    assert "must be at most 9223372036854775807" in found["seed"]
    assert "max_value_chars must be at most 4611686018427387904" in found["limits"]
    assert parse_tournament(base(limits={"max_value_chars": 2**62})).limits.max_value_chars == 2**62
