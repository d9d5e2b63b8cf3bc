"""How fast do the resource limits stop hostile games, and how close do the bundled games
come to them?

First, each hostile program of the limits tests (`tests/runtime/hostile_games.py`) is
played at the default limits with the `ngram` judge, each in its own process under a
timeout, and the seconds until its limit fires are printed (target: at most 10 s).

Then every bundled game is played one full round (loops not capped) with the `ngram` judge and,
in every active seat, a greedy player whose every move is as long as the elicit allows and
whose first answers fail the ensures that a long move can fail; so each game's text volume
is near its legitimate maximum. Per game it prints the source figures (characters, longest
line and literal, longest story) and the round's peaks (largest value and list, register
total, text produced, text sent to the judge), then the smallest ratio limit / usage.

    PYTHONPATH=. python benchmarks/limits_headroom.py [--seed 0] [--no-games] [GAME ...]

A game that uses more than a default limit (math_debate's judge traffic) is listed with the
limit it needs and left out of `min_headroom`. The last two lines are
`min_headroom=<smallest default limit / usage over the games within the defaults>` and
`max_hostile_seconds=<the slowest hostile program's seconds until its limit fired>`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass

from arena.lang.ast import Expr, Int, Program, iter_children
from arena.lang.limits import DEFAULT_LIMITS, LIMIT_NAMES, ResourceLimits
from arena.lang.meter import RoundMeter
from arena.match_setup import load_entry
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.protocols.player import GameView, MoveRequest
from arena.runtime.maps import DEFAULT_STORY_TOKENS, JudgeStorySource, resolve_map, story_requests
from arena.runtime.round import RoundLimits, RoundRunner
from arena.runtime.seat import MovePolicy, Seat
from arena.runtime.seeds import public_seed_key
from tests.runtime.helpers import ListPlayer, run_game
from tests.runtime.hostile_games import HOSTILE

_FIRED = re.compile(r"over the limit (max_\w+) = ")

_UNLIMITED = ResourceLimits(**dict.fromkeys(LIMIT_NAMES, 10**12))
_WORDS = ["the", "lantern", "keeper", "walked", "along", "the", "quiet", "river", "under", "seven", "copper", "stars"]
_LITERAL = re.compile(r""""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'""")


@dataclass
class GreedyPlayer:
    """Answers every register with a long text (cut by the arena to max_len tokens)."""

    name: str = "greedy"

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        words = max(1, request.max_len) * 2
        text = " ".join(_WORDS[i % len(_WORDS)] for i in range(words))
        return dict.fromkeys(request.registers, text)


def story_tokens(program: Program) -> int:
    longest = 0
    stack: list[Expr] = [ins.call for ins in program.instructions]
    while stack:
        expr = stack.pop()
        stack.extend(iter_children(expr))
        if getattr(expr, "func", None) == "story":
            args = getattr(expr, "args", ())
            if args and isinstance(args[0], Int):
                longest = max(longest, args[0].value)
            else:
                longest = max(longest, 60)  # the judge story source's default length
    return longest


async def play_round(
    program: Program, view: GameView, roles: tuple[str, ...], judge: Judge, seed: int
) -> RoundMeter:
    game_map = await resolve_map(program, seed, JudgeStorySource(judge))
    runner = RoundRunner(
        program=program,
        game=view,
        stories=game_map.stories,
        seats={role: Seat(role=role, player=GreedyPlayer()) for role in roles},
        judge=judge,
        round_number=1,
        rounds=1,
        play_seed=seed,
        seed_key=public_seed_key(seed),
        memories={},
        limits=RoundLimits(resources=_UNLIMITED),  # measure, do not stop
        policy=MovePolicy(timeout_s=None),
        emit=lambda event: None,
    )
    outcome = await runner.run()
    return outcome.meter


async def time_hostile(name: str) -> dict[str, object]:
    """Play one hostile program at the default limits; the seconds until it stopped."""
    (hostile,) = (h for h in HOSTILE if h.name == name)
    judge = Registry.load().create_judge("ngram")
    start = time.perf_counter()
    try:
        result = await run_game(hostile.source, {hostile.role: ListPlayer(["a move"])}, judge)
        error = result.error or ""
    except Exception as exc:  # a load-time limit: the game never starts
        error = str(exc)
    finally:
        seconds = time.perf_counter() - start
        await judge.aclose()
    fired = _FIRED.search(error)
    return {"seconds": seconds, "fired": fired.group(1) if fired else error.splitlines()[0][:60] if error else "none"}


def hostile_table(timeout: float) -> float:
    """Time every hostile program in its own process; the slowest time (the timeout when
    one was killed)."""
    print(f"{'hostile program':30} {'expected limit':22} {'fired':22} {'seconds':>8}")
    print("-" * 85)
    slowest = 0.0
    for hostile in HOSTILE:
        command = [sys.executable, __file__, "--hostile", hostile.name]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
            report = json.loads(done.stdout.strip().splitlines()[-1])
            seconds, fired = float(report["seconds"]), str(report["fired"])
        except subprocess.TimeoutExpired:
            seconds, fired = timeout, f"none after {timeout:.0f} s"
        slowest = max(slowest, seconds)
        print(f"{hostile.name:30} {hostile.limit:22} {fired:22} {seconds:>8.2f}")
    print()
    return slowest


async def main(seed: int, names: list[str]) -> None:
    registry = Registry.load()
    judge = registry.create_judge("ngram")
    limits = DEFAULT_LIMITS
    header = (
        f"{'game':24} {'source':>7} {'line':>5} {'literal':>7} {'story':>5} {'map':>5} {'value':>7} "
        f"{'list':>5} {'regs':>7} {'produced':>9} {'judged':>9} {'headroom':>8}"
    )
    print(header)
    print("-" * len(header))
    smallest = float("inf")
    over: list[str] = []
    try:
        for name in names or registry.game_names():
            game = load_entry(registry.game(name))
            source = game.view.code
            lines = source.splitlines() or [""]
            literal = max((len(m.group()) - 2 for m in _LITERAL.finditer(source)), default=0)
            meter = await play_round(game.program, game.view, game.roles, judge, seed)
            usage = {
                "max_source_chars": len(source),
                "max_line_chars": max(map(len, lines)),
                "max_literal_chars": literal,
                "max_story_tokens": story_tokens(game.program),
                "max_map_story_tokens": sum(
                    r.length or DEFAULT_STORY_TOKENS for r in story_requests(game.program, seed)
                ),
                "max_value_chars": meter.largest_value,
                "max_list_items": meter.largest_list,
                "max_register_chars": meter.register_peak,
                "max_round_chars": meter.produced,
                "max_judge_chars": meter.judged,
            }
            headroom = min(getattr(limits, k) / v for k, v in usage.items() if v)
            needs = [f"{k} >= {v:,}" for k, v in usage.items() if v > getattr(limits, k)]
            if needs:
                over.append(f"{name} needs {', '.join(needs)}")
            else:
                smallest = min(smallest, headroom)
            u = usage
            print(
                f"{name:24} {u['max_source_chars']:>7} {u['max_line_chars']:>5} "
                f"{u['max_literal_chars']:>7} {u['max_story_tokens']:>5} "
                f"{u['max_map_story_tokens']:>5} "
                f"{u['max_value_chars']:>7} {u['max_list_items']:>5} "
                f"{u['max_register_chars']:>7} {u['max_round_chars']:>9} "
                f"{u['max_judge_chars']:>9} {headroom:>8.1f}"
            )
    finally:
        await judge.aclose()
    for line in over:
        print(f"over the defaults: {line}")
    print(f"min_headroom={smallest:.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per hostile game")
    parser.add_argument("--no-games", action="store_true", help="time the hostile games only")
    parser.add_argument("--hostile", help=argparse.SUPPRESS)  # one hostile game, in a child
    parser.add_argument("games", nargs="*", help="bundled game names (default: all)")
    args = parser.parse_args()
    if args.hostile:
        print(json.dumps(asyncio.run(time_hostile(args.hostile))))
        sys.exit(0)
    slowest = hostile_table(args.timeout)
    if not args.no_games:
        asyncio.run(main(args.seed, args.games))
    print(f"max_hostile_seconds={slowest:.2f}")
