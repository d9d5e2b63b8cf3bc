"""Real components for tournament tests: small games, a test plugin with a slow (and
concurrency-counting) player and a judge that fails on a marked move, and tournament files.

The plugin is registered next to the built-in plugins, exactly as an installed plugin is.
"""

from __future__ import annotations

import asyncio
import random
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from sqlalchemy import text

from arena.errors import JudgeError
from arena.judges.ngram import NgramJudge
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_manager import create_plugin_manager
from arena.plugins.plugin_types import JudgeEntry, PlayerContext, PlayerEntry
from arena.plugins.registry import Registry
from arena.protocols.judge import GenerateRequest, JudgeInfo, ScoreRequest, TokenScores
from arena.protocols.player import MoveRequest
from arena.specs import Spec
from arena.storage import Store

GAMES = {
    "condense.xgl": (
        "# version: 1\n"
        "# measures: compressing a story into a short prefix\n"
        "assign(s=story(20))\n"
        "elicit(black, t, 6)\n"
        "reward(black, xed(s | t))\n"
    ),
    "duel.xgl": (
        "# version: 2\n"
        "assign(s=story(20))\n"
        "elicit(alice, t, 6)\n"
        "elicit(bob, x, 6)\n"
        "reward(alice, xed(s | t))\n"
        "reward(bob, xed(s | x))\n"
    ),
    "zerosum.xgl": (
        "assign(s=story(15))\n"
        "elicit(black, t, 5)\n"
        "elicit(white, x, 5)\n"
        "reward(black, xed(s | t) - xed(s | x))\n"
    ),
    "boomstory.xgl": 'assign(s=story("BOOM"))\nelicit(black, t, 5)\nreward(black, xed(s | t))\n',
    "broken.xgl": 'assign(l=["a"])\nelicit(black, t, 5)\nassign(s=l[3])\n',
}

BOOM = "BOOM"  # a move the flaky judge refuses to score

ACTIVE: dict[str, int] = {"now": 0, "peak": 0}  # matches of the counting player in flight


def write_games(directory: Path, names: Sequence[str] | None = None) -> None:
    for name, source in GAMES.items():
        if names is None or name in names:
            (directory / name).write_text(source, encoding="utf-8")


class SleepyPlayer:
    """Seeded words after `delay` seconds; counts how many of its moves are in flight."""

    def __init__(self, delay: float, seed: int, words: int) -> None:
        self._delay, self._seed, self._words = delay, seed, words

    @property
    def name(self) -> str:
        return "sleepy"

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        ACTIVE["now"] += 1
        ACTIVE["peak"] = max(ACTIVE["peak"], ACTIVE["now"])
        try:
            if self._delay:
                await asyncio.sleep(self._delay)
        finally:
            ACTIVE["now"] -= 1
        rng = random.Random(f"{self._seed}/{request.seed}/{request.round}/{request.attempt}")
        words = ["story", "the", "a", "cat", "sat", "on", "mat", "of", "time", "once"]
        return {r: " ".join(rng.choice(words) for _ in range(self._words)) for r in request.registers}


def create_sleepy(spec: Spec, ctx: PlayerContext) -> SleepyPlayer:
    spec.expect_params({"delay", "words", "api_key_env"}, "player")
    return SleepyPlayer(spec.float_param("delay", 0.0), ctx.seed, spec.int_param("words", 3))


class FlakyJudge:
    """The n-gram judge, except that scoring any text containing BOOM, or generating from
    a prompt containing it, fails."""

    def __init__(self) -> None:
        self._inner = NgramJudge()

    @property
    def info(self) -> JudgeInfo:
        return self._inner.info

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        if any(BOOM in r.target or BOOM in r.context for r in requests):
            raise JudgeError("the flaky judge refuses to score BOOM")
        return await self._inner.score(requests)

    async def tokenize(self, texts: Sequence[str], dialect: str = "xgl") -> list[list[str]]:
        return await self._inner.tokenize(texts, dialect)

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        if any(BOOM in r.prompt for r in requests):
            raise JudgeError("the flaky judge refuses to write about BOOM")
        return await self._inner.generate(requests)

    async def aclose(self) -> None:
        await self._inner.aclose()


@hookimpl
def arena_players() -> list[PlayerEntry]:
    return [PlayerEntry("sleepy", create_sleepy, "test player: seeded words after a delay")]


@hookimpl
def arena_judges() -> list[JudgeEntry]:
    return [JudgeEntry("flaky", lambda spec: FlakyJudge(), "test judge: fails on BOOM")]


def registry() -> Registry:
    """The installed plugins plus this test plugin."""
    pm = create_plugin_manager()
    pm.register_plugin(sys.modules[__name__], "tournament_test_fixtures")
    return Registry.from_plugin_manager(pm)


def tournament_file(directory: Path, body: str, games: Sequence[str] | None = None) -> Path:
    """Write the games and a tournament file with `body` into `directory`."""
    write_games(directory, games)
    path = directory / "tournament.toml"
    path.write_text(body, encoding="utf-8")
    return path


SMALL = """
name = "small"
judge = "ngram"
npc = "npc"
maps = 2
rounds = 2
seed = 7

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

[[games]]
game = "condense.xgl"

[[games]]
game = "duel.xgl"
rounds = 1
"""


# An eval tournament of three built-in entrants of clearly different strength (random, a
# scripted story, search) on two bundled games, for runs of the real engine; `{maps}` and
# `{rules}` (extra top-level keys) to fill.
THREE_ENTRANTS = """
name = "small"
mode = "eval"
judge = "ngram"
maps = {maps}
seed = 3
npc = "npc"
{rules}

[concurrency]
global = 16

[[participants]]
name = "npc"
player = "random?words=6"
npc_only = true

[[participants]]
name = "rand"
player = "random"

[[participants]]
name = "scr"
player = "scripted:once upon a time there was a cat|the end of it"

[[participants]]
name = "srch"
player = "search?budget=8&beam=2"

[[games]]
game = "single_text"

[[games]]
game = "condense"
"""


KEY = "5eed" * 16  # a tournament seed key, as stored (hex)


def fix_seed_key(db: str, key: str) -> None:
    """Give the tournament a known seed key (it decides the maps and the players' seeds), so
    the run's outcomes are the same on every machine."""
    store = Store.open(db)
    try:
        store.ensure_tournament("small", "eval", "{}")
        with store.engine.begin() as conn:
            conn.execute(text("UPDATE tournaments SET seed_key = :k WHERE name = 'small'"),
                         {"k": key})
    finally:
        store.close()
