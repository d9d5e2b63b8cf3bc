"""The browser tests' database: a real small tournament (n-gram judge) with a player whose
moves are hostile text (HTML with a script handler, a markdown link), and a snapshot."""

from __future__ import annotations

import asyncio
from pathlib import Path

from arena.storage import Store, sqlite_url
from arena.tournaments.records.rating_store import store_snapshot
from arena.tournaments.services.run_config import run_file
from tests.storage.scope_rows import grow_example
from tests.storage.transfer_rows import store_example
from tests.tournaments import arena_fixtures as fx

HTML_MOVE = "<img src=x onerror=alert(1)>"
LINK_MOVE = "see [click me](https://evil.example/)"
OPEN_GAME = "assign(s=story(20))\nelicit(black, t, 40)\nreward(black, xed(s | t))\n"

TOURNAMENT = f"""
name = "browser"
judge = "ngram"
npc = "npc"
base = "beta"
maps = 2
rounds = 2
seed = 11

[concurrency]
global = 4

[[participants]]
name = "npc"
player = "sleepy?words=2"
npc_only = true

[[participants]]
name = "alpha"
player = "sleepy?words=3"

[[participants]]
name = "beta"
player = "random?words=4"

[[participants]]
name = "mallory"
player = "scripted:{HTML_MOVE}|{LINK_MOVE}"

[[games]]
game = "condense.xgl"

[[games]]
game = "duel.xgl"
rounds = 1

[[games]]
game = "open.xgl"
"""

# A second tournament the Live test starts while the page is open: slow moves, two at a
# time, so it lasts several of the page's refreshes (about 10 s).
LIVE_TOURNAMENT = fx.SMALL.replace('name = "small"', 'name = "live"').replace(
    'player = "sleepy?words=3"', 'player = "sleepy?words=3&delay=1.2"'
).replace("global = 4", "global = 2")


def build(directory: Path) -> str:
    """Play the tournament into `directory/arena.db`, store a snapshot; returns the URL."""
    fx.write_games(directory, ["condense.xgl", "duel.xgl"])
    (directory / "open.xgl").write_text(OPEN_GAME, encoding="utf-8")
    path = directory / "browser.toml"
    path.write_text(TOURNAMENT, encoding="utf-8")
    db = sqlite_url(directory / "arena.db")
    asyncio.run(run_file(path, db=db, registry=fx.registry(), snapshot=False))
    store = Store.open(db)
    try:
        store_snapshot(store, "browser")
        store_example(store.engine)  # the Transfer page, a hostile game name included
        grow_example(store.engine)  # the Scopes page, likewise
    finally:
        store.close()
    return db
