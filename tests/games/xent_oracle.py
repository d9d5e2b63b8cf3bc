"""Replaying the reference's recorded matches (tests/data/xent_reference) through the arena
and comparing every turn: the harness of `test_xent_reference_oracle.py`.

Each recorded match is played again here on the same map texts, the same judge weights (the
bundled judge) and the same replies, the replies served by a scriptable OpenAI-compatible
server on loopback to the real litellm player with `prompt=xent-benchmark`, in the dialect
the config's version names (`xent@2025-09`). What the reference did is the test data; the
arena's side is what this module records.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.events import Event
from arena.match_setup import build_match, load_game_text
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.runtime.maps import GameMap, story_requests
from arena.runtime.round import RoundLimits
from arena.runtime.seat import MovePolicy
from arena.tournaments.services.exchange.xent_config import map_stories
from tests.support.openai_compat_server import ServerState, start_server

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "xent_reference"
CONFIG = ROOT / "tests" / "data" / "xent_configs" / "benchmark0.2.json"
RECORDED = DATA / "matches_80ab799.json"
DIALECT = "xent@2025-09"  # the rules of the config's version (xega 0.1.0)
API_ERROR = "!api-error"  # the recorder's stand-in for a provider error


def recorded() -> dict[str, list[dict[str, Any]]]:
    return json.loads(RECORDED.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def config() -> dict[str, Any]:
    return json.loads(CONFIG.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@dataclass
class Played:
    """The arena's side of one recorded match."""

    prompts: list[str]
    events: list[Event]
    no_result: str | None
    error: str | None
    rounds: tuple[float | None, ...]
    best: float | None
    replies_asked: int = 0
    notes: list[str] = field(default_factory=list)


def _behaviour(reply: str) -> dict[str, Any]:
    return {"status": 500} if reply == API_ERROR else {"reply": reply}


async def play_recorded(match: dict[str, Any], judge: Judge, registry: Registry) -> Played:
    """Play `match` (one entry of the recording) in the arena."""
    conf = config()
    (game,) = [g for g in conf["games"] if g["name"] == match["game"]]
    (game_map,) = [m for m in conf["maps"] if m["map_seed"] == match["map_seed"]]
    loaded = load_game_text(game["code"], f"{game['name']}.xent", dialect=DIALECT,
                            name=game["name"])
    sites = [r.site for r in story_requests(loaded.program, 0)]
    stories = map_stories(game["code"], game_map["code"])
    arena_map = GameMap(seed=0, stories=dict(zip(sites, stories, strict=True)))
    replies: Sequence[str] = match["replies"]
    state = ServerState(default=_behaviour(replies[-1]))
    state.script(_behaviour(r) for r in replies[:-1])
    async with start_server(state=state) as url:
        spec = (f"litellm:openai/scripted?api_base={url}&prompt=xent-benchmark&retries=0"
                "&backoff=0&timeout=30")
        async with await build_match(
            loaded, {"black": spec}, judge=judge, registry=registry, rounds=match["rounds"],
            limits=RoundLimits(), policy=MovePolicy(timeout_s=60.0, retries=0),
        ) as built:
            result = await built.play(arena_map)
    prompts = [r.body["messages"][0]["content"] for r in state.requests]
    score = result.scores["black"]
    return Played(prompts, result.events, result.no_result, result.error, score.rounds,
                  score.best, len(state.requests))


def reference_rounds(match: dict[str, Any]) -> list[list[dict[str, Any]]]:
    result = match["result"]
    return [r["events"] for r in result["rounds"]] if result else []


def arena_rounds(events: Sequence[Event]) -> list[list[Event]]:
    rounds: list[list[Event]] = []
    for event in events:
        if event.type == "round_started":
            rounds.append([])
        elif rounds:
            rounds[-1].append(event)
    return rounds


__all__ = ["Played", "arena_rounds", "play_recorded", "recorded", "reference_rounds"]
