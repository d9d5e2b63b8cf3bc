"""A small real database for the replay's seat-view, reading and match-key tests: the
bundled describe_to_partner (bob never sees the story) and a game that scores a player's
own hostile move token by token, played with the n-gram judge."""

from __future__ import annotations

import asyncio
from pathlib import Path

from arena.events import Event
from arena.storage import Store, sqlite_url
from arena.storage.queries import match_events, stored_matches
from arena.tournaments.services.run_config import run_file
from tests.tournaments import arena_fixtures as fx

HOSTILE_MOVE = "<script>alert('x')</script> &amp; <b>bold</b>"
ECHO_GAME = "assign(s=story(12))\nelicit(black, t, 40)\nreward(black, xed(t | s))\n"

TOURNAMENT = f"""
name = "partners"
judge = "ngram"
npc = "npc"
maps = 2
rounds = 1
seed = 5

[[participants]]
name = "npc"
player = "sleepy?words=3"
npc_only = true

[[participants]]
name = "alpha"
player = "random?words=5"

[[participants]]
name = "mallory"
player = "scripted:{HOSTILE_MOVE}"

[[games]]
game = "describe_to_partner"

[[games]]
game = "echo.xgl"
"""


def build(directory: Path) -> str:
    """Play the tournament into `directory/arena.db`; returns its URL."""
    (directory / "echo.xgl").write_text(ECHO_GAME, encoding="utf-8")
    path = directory / "partners.toml"
    path.write_text(TOURNAMENT, encoding="utf-8")
    url = sqlite_url(directory / "arena.db")
    asyncio.run(run_file(path, db=url, registry=fx.registry(), snapshot=False))
    return url


def first_match(url: str, game: str, main_role: str | None = None,
                participant: str | None = None, skip: int = 0) -> tuple[str, list[Event]]:
    """(full plan key, transcript) of the first stored match of `game` (after `skip`)."""
    store = Store.open(url, create=False)
    try:
        for m in stored_matches(store.engine, "partners"):
            main = [s for s in m.seats if s.main]
            if m.game != game or (main_role and main[0].role != main_role):
                continue
            if participant and main[0].participant != participant:
                continue
            if skip:
                skip -= 1
                continue
            return m.key, match_events(store.engine, m.key)
    finally:
        store.close()
    raise AssertionError(f"no stored match of {game}")
