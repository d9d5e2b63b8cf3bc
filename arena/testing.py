"""A conformance kit for plugin authors: check a player, a judge or a game pack in your own
tests, through the arena's real runtime (no mocks). Each check raises `AssertionError` with
a sentence saying what is wrong, and returns what it measured::

    from arena.testing import check_games, check_judge, check_player

    def test_my_player() -> None:
        check_player(create_my_player, "mine?words=3")

    def test_my_games() -> None:
        check_games(arena_games())

The default judge is the arena's built-in n-gram judge (`ngram`, no download); pass another
judge spec to check against it. Players are seated in a small built-in game unless you name
one of yours.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from arena.match_setup import LoadedGame, SeatSpec, build_match, load_entry, load_game_text
from arena.plugins.plugin_types import GameEntry, PlayerContext, PlayerFactory
from arena.plugins.registry import Registry
from arena.protocols.judge import GenerateRequest, Judge, JudgeInfo, ScoreRequest
from arena.protocols.player import Player
from arena.runtime.match import MatchResult
from arena.runtime.round import RoundLimits
from arena.runtime.seat import MovePolicy
from arena.specs import parse_spec

__all__ = ["CHECK_GAME", "check_games", "check_judge", "check_player"]

# One elicit that sees a story, a reveal, a reward: what every player must handle.
CHECK_GAME = (
    "# Conformance check\n"
    "# measures: a player answers a request for one register within its length\n"
    'assign(s="the lighthouse keeper counted ships until the fog lifted at dawn")\n'
    "reveal(black, s)\n"
    "elicit(black, t, 8)\n"
    "reward(black, xed(s | t))\n"
)
DEFAULT_JUDGE = "ngram"
T = TypeVar("T")


def _installed(registry: Registry | None) -> Registry:
    """The registry a check plays with: the caller's, else the installed plugins."""
    return registry if registry is not None else Registry.load()


def _run(work: Callable[[Judge], Awaitable[T]], judge_spec: str, registry: Registry) -> T:
    async def main() -> T:
        judge = registry.create_judge(judge_spec)
        try:
            return await work(judge)
        finally:
            await judge.aclose()

    return asyncio.run(main())


def _game(game: str | GameEntry | None) -> LoadedGame:
    if game is None:
        return load_game_text(CHECK_GAME, "conformance.xgl")
    if isinstance(game, GameEntry):
        return load_entry(game)
    return load_game_text(game, "game.xgl")


def check_player(
    factory: PlayerFactory,
    spec: str,
    *,
    game: str | GameEntry | None = None,
    role: str | None = None,
    rounds: int = 2,
    judge: str = DEFAULT_JUDGE,
    seed: int = 0,
    registry: Registry | None = None,
) -> MatchResult:
    """Build a player with `factory` from `spec`, check it is a `Player`, and play `rounds`
    rounds of `game` (default: `CHECK_GAME`) in `role` (default: the first), NPCs `random`;
    the judge and the NPCs come from `registry` (default: the installed plugins).

    Fails when the factory does not return a Player, the match errors, the player forfeits
    (it raised, timed out or answered the wrong registers) or its moves are not strings."""
    loaded = _game(game)
    seat = loaded.main_role(role)
    plugins = _installed(registry)

    async def work(judge_: Judge) -> MatchResult:
        player = factory(parse_spec(spec), PlayerContext(judge=judge_, seed=seed, role=seat))
        assert isinstance(player, Player), (
            f"the factory returned {type(player).__name__}, not a Player: it needs a `name` "
            "property and `async def move(request)`"
        )
        assert isinstance(player.name, str) and player.name, "a player's name must be a string"
        seats = [SeatSpec(seat, player, main=True)] + [
            SeatSpec(other, "random", main=False) for other in loaded.roles if other != seat
        ]
        match = await build_match(
            loaded, seats, judge=judge_, registry=plugins, seed=seed, rounds=rounds,
            limits=RoundLimits(), policy=MovePolicy(timeout_s=60.0, retries=0),
            match_id=f"arena.testing:{spec}",
        )
        async with match:
            result = await match.play()
        close = getattr(player, "aclose", None)
        if callable(close):
            await close()
        return result

    result = _run(work, judge, plugins)
    assert result.error is None, f"the match failed: {result.error}"
    score = result.scores[seat]
    assert not score.forfeit, (
        f"the player forfeited in role {seat}: see the failed moves in the events "
        f"{[e.model_dump() for e in result.events if e.type in ('forfeit', 'failed_ensure')]}"
    )
    moves = [e for e in result.events if e.type == "elicit_response" and e.player == seat]
    assert len(moves) == rounds, f"expected {rounds} moves from {seat}, got {len(moves)}"
    return result


def check_judge(
    judge: Judge, *, texts: Sequence[str] = ("The fog lifted.", "ships at dawn")
) -> JudgeInfo:
    """Check the Judge protocol on `judge`: provenance, batched scoring in order with one
    finite non-negative bit count per token, tokens that concatenate to the text, and
    seeded generation that repeats for the same seed."""

    async def work() -> JudgeInfo:
        assert isinstance(judge, Judge), f"{type(judge).__name__} does not implement Judge"
        info = judge.info
        assert isinstance(info, JudgeInfo) and info.name, "judge.info must be a named JudgeInfo"
        requests = [ScoreRequest(target=t, context=c) for t in texts for c in ("", "Once:")]
        scores = await judge.score(requests)
        assert len(scores) == len(requests), "score() must answer every request, in order"
        for request, scored in zip(requests, scores, strict=True):
            assert len(scored.tokens) == len(scored.bits), "one bit count per scored token"
            assert all(math.isfinite(b) and b >= 0 for b in scored.bits), (
                f"bits must be finite and >= 0; got {scored.bits} for {request.target!r}"
            )
        empty = await judge.score([ScoreRequest(target="")])
        assert empty[0].total == 0.0, "an empty target scores 0 bits"
        for dialect in ("xgl", "xent"):
            pieces = await judge.tokenize(list(texts), dialect)
            for text, parts in zip(texts, pieces, strict=True):
                assert "".join(parts) == text, f"tokens {parts} do not concatenate to {text!r}"
        sample = GenerateRequest(prompt=texts[0], max_tokens=5, seed=7)
        first, again = await judge.generate([sample]), await judge.generate([sample])
        assert first == again, "generate() must repeat for the same seed"
        return info

    return asyncio.run(work())


def check_games(
    entries: Sequence[GameEntry], *, judge: str = DEFAULT_JUDGE, player: str = "random",
    seed: int = 0, registry: Registry | None = None,
) -> dict[str, MatchResult]:
    """Load every game entry (a syntax error fails with its caret diagnostic) and play one
    seeded round with `player` in every role (built by `registry`, default: the installed
    plugins); fails on a runtime error."""
    assert entries, "no games to check"
    loaded = [load_entry(entry) for entry in entries]

    plugins = _installed(registry)

    async def work(judge_: Judge) -> dict[str, MatchResult]:
        results = {}
        for game in loaded:
            match = await build_match(
                game, dict.fromkeys(game.roles, player), judge=judge_, registry=plugins,
                seed=seed, max_replay=2, match_id=f"arena.testing:{game.name}",
            )
            async with match:
                results[game.name] = await match.play()
        return results

    results = _run(work, judge, plugins)
    failed = {name: r.error for name, r in results.items() if r.error is not None}
    assert not failed, f"these games fail at run time: {failed}"
    return results
