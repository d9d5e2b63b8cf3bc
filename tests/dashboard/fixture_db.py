"""A real small arena database for the dashboard tests: two runs of a tournament (n-gram
judge, eval mode, three games including one with a hidden register), a rating snapshot
after each run, a participant whose moves look like HTML and markdown, and one stored
transfer setting (`tests.storage.transfer_rows`)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from arena.storage import Store, sqlite_url
from arena.tournaments.services.run_config import run_file
from tests.storage.transfer_rows import store_example
from tests.tournaments import arena_fixtures as fx

XSS_MOVE = "<img src=x onerror=alert(1)>"
MD_MOVE = "[click](http://evil.example)"
KEY_ENV = "DASHBOARD_TEST_API_KEY"
SECRET = "sk-dashboard-test-secret-4242"  # set in KEY_ENV while the tournament runs

HIDDEN_GAME = (
    "# version: 1\n"
    "# measures: describing a story the partner never sees\n"
    "assign(s=story(12))\n"
    "elicit(alice, t, 30)\n"
    "reveal(bob, t)\n"
    "elicit(bob, x, 6)\n"
    "reward(alice, xed(s | t))\n"
    "reward(bob, xed(s | x))\n"
)

TOURNAMENT = """
name = "nightly"
judge = "ngram"
npc = "npc"
base = "alpha"
maps = {maps}
rounds = 2
seed = 3

[[participants]]
name = "npc"
player = "sleepy?words=2"
npc_only = true

[[participants]]
name = "alpha"
player = "sleepy?words=3&api_key_env={key_env}"

[[participants]]
name = "beta"
player = "random?words=4"

[[participants]]
name = "mallory"
player = "scripted:{xss}|{md}"

[[games]]
game = "condense.xgl"

[[games]]
game = "zerosum.xgl"

[[games]]
game = "hidden.xgl"
"""

DUEL = """
name = "duel-cup"
mode = "head_to_head"
judge = "ngram"
maps = 2
rounds = 1
seed = 5

[[participants]]
name = "alpha"
player = "sleepy?words=3"

[[participants]]
name = "beta"
player = "random?words=4"

[[games]]
game = "zerosum.xgl"
"""


def build(directory: Path) -> str:
    """Write the database under `directory`; returns its URL."""
    fx.write_games(directory, ["condense.xgl", "zerosum.xgl"])
    (directory / "hidden.xgl").write_text(HIDDEN_GAME, encoding="utf-8")
    url = sqlite_url(directory / "arena.db")
    for maps in (1, 2):
        path = directory / "tournament.toml"
        path.write_text(TOURNAMENT.format(maps=maps, xss=XSS_MOVE, md=MD_MOVE, key_env=KEY_ENV),
                        encoding="utf-8")
        os.environ[KEY_ENV] = SECRET
        try:
            asyncio.run(run_file(path, db=url, registry=fx.registry(), snapshot=True))
        finally:
            del os.environ[KEY_ENV]
    duel = directory / "duel.toml"
    duel.write_text(DUEL, encoding="utf-8")
    asyncio.run(run_file(duel, db=url, registry=fx.registry(), snapshot=True))
    store = Store.open(url)
    try:
        store_example(store.engine)  # the Transfer page's matrix
    finally:
        store.close()
    return url
