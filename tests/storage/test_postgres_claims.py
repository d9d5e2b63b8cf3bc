"""Two drivers on one real Postgres database run the same tournament at once: every match
is played exactly once (counted where players are built), not only stored once."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.storage import Store
from arena.storage.queries import stored_matches
from tests.executors import ray_fixtures as rf
from tests.storage.postgres_server import available, postgres_server
from tests.tournaments import arena_fixtures as fx

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not available(), reason="PostgreSQL server binaries not installed"),
]

TWO_DRIVERS = """
name = "claimed"
judge = "ngram"
npc = "npc"
maps = 6
rounds = 1
seed = 11

[concurrency]
global = 2

[[participants]]
name = "npc"
player = "random?words=2"
npc_only = true

[[participants]]
name = "alpha"
player = "counted?tag=claims-alpha"

[[participants]]
name = "beta"
player = "counted?tag=claims-beta"

[[games]]
game = "condense.xgl"
"""


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    with postgres_server() as url:
        yield url


def test_two_drivers_never_play_a_match_twice(tmp_path: Path, postgres_url: str) -> None:
    path = fx.tournament_file(tmp_path, TWO_DRIVERS, ["condense.xgl"])
    Store.open(postgres_url).close()  # the schema first: two creators of a new one would race
    script = (
        "import asyncio, sys\n"
        "from tests.executors import ray_fixtures as rf\n"
        "from arena.tournaments.services.run_config import run_file\n"
        "s = asyncio.run(run_file(sys.argv[1], db=sys.argv[2], registry=rf.registry()))\n"
        "print(s.written, s.claimed_elsewhere)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "XENT_TEST_RAY_MARKS": str(rf.MARKS)}
    drivers = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(path), postgres_url],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    written = 0
    for driver in drivers:
        out, err = driver.communicate(timeout=300)
        assert driver.returncode == 0, err
        written += int(out.split()[0])
    store = Store.open(postgres_url)
    try:
        keys = [m.key for m in stored_matches(store.engine, "claimed")]
    finally:
        store.close()
    assert len(keys) == len(set(keys)) == written == 12
    builds = {
        **rf.plays("claims-alpha"),
        **{f"b{k}": v for k, v in rf.plays("claims-beta").items()},
    }
    assert len(builds) == 12 and set(builds.values()) == {1}  # each match played once
