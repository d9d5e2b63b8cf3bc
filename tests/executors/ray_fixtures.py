"""Plugins and helpers the Ray tests share with their Ray workers: workers build their
registry with `registry()` (named as `REGISTRY_REF`), so they see the same test players."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from sqlalchemy import text

from arena.errors import PlayerError
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_manager import create_plugin_manager
from arena.plugins.plugin_types import PlayerContext, PlayerEntry
from arena.plugins.registry import Registry
from arena.protocols.player import MoveRequest
from arena.specs import Spec
from arena.storage import Store, sqlite_url
from tests.tournaments import arena_fixtures as fx

REGISTRY_REF = "tests.executors.ray_fixtures:registry"
# Shared with the workers through the environment they inherit from the test process.
MARKS = Path(os.environ.setdefault("XENT_TEST_RAY_MARKS", tempfile.mkdtemp(prefix="ray-marks-")))


class CountedPlayer:
    """Fixed words; every build is recorded as a file, so tests count plays across
    processes (`tag` names the entrant: seat seeds repeat across entrants of a map). With
    `fail_once`, the first build for each seat fails transiently."""

    def __init__(self, words: str) -> None:
        self._words = words

    @property
    def name(self) -> str:
        return "counted"

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        return {r: self._words for r in request.registers}


def create_counted(spec: Spec, ctx: PlayerContext) -> CountedPlayer:
    spec.expect_params({"fail_once", "tag"}, "player")
    tag = spec.params.get("tag", "plays")
    folder = MARKS / tag
    folder.mkdir(parents=True, exist_ok=True)
    marker = folder / f"{ctx.seed}-{ctx.role}"  # one seat of one match (per tag: entrant)
    attempts = len(list(folder.glob(f"{marker.name}.*")))
    (folder / f"{marker.name}.{attempts}.{os.getpid()}").touch()
    if spec.params.get("fail_once") == "1" and attempts == 0:
        raise PlayerError("the provider is down for a moment (test)")
    return CountedPlayer("the cat sat")


@hookimpl
def arena_players() -> list[PlayerEntry]:
    return [PlayerEntry("counted", create_counted, "test player counting its builds")]


def registry() -> Registry:
    """The installed plugins, the tournament tests' plugin and this one."""
    pm = create_plugin_manager()
    pm.register_plugin(fx, "tournament_test_fixtures")
    pm.register_plugin(sys.modules[__name__], "ray_test_fixtures")
    return Registry.from_plugin_manager(pm)


def plays(tag: str) -> dict[str, int]:
    """Builds recorded per (match, role) under `tag`."""
    found: dict[str, int] = {}
    for mark in (MARKS / tag).glob("*"):
        seat = mark.name.rsplit(".", 2)[0]
        found[seat] = found.get(seat, 0) + 1
    return found


def share_seed_key(reference_db: str, db: str, tournament: str) -> None:
    """Give `tournament` in `db` the reference's seed key (the key decides the seeds)."""
    reference = Store.open(reference_db)
    try:
        with reference.engine.connect() as conn:
            key = conn.execute(
                text("SELECT seed_key FROM tournaments WHERE name = :n"), {"n": tournament}
            ).scalar_one()
    finally:
        reference.close()
    store = Store.open(db)
    try:
        store.ensure_tournament(tournament, "eval", "{}")
        with store.engine.begin() as conn:
            conn.execute(
                text("UPDATE tournaments SET seed_key = :k WHERE name = :n"),
                {"k": key, "n": tournament},
            )
    finally:
        store.close()


def db_url(folder: Path, name: str) -> str:
    return sqlite_url(folder / name)
