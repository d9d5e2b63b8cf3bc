"""Playability (paper Definition 33, SCORING.md section 3).

A participant plays `rounds` rounds on each of `maps` maps, keeping its earlier rounds in
context (the main character; other roles are memoryless NPCs). arms_k is the mean over maps
of the best score among the first k rounds. The game is (N, m)-playable for the participant
when arms_k increases strictly for the first m steps (arms_1 < arms_2 < ... < arms_{m+1}).
A curve that never increases is *flat*: SCORING.md flags such a game as not playable for a
base participant and does not normalise on it.

Forfeited rounds count as the worst non-forfeited score of that map minus one bit
(SCORING.md section 1); a map with no numeric score at all is dropped and counted.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from arena.errors import ConfigError
from arena.match_setup import ANALYSIS_POLICY, DEFAULT_MAX_REPLAY, LoadedGame, build_match
from arena.protocols.judge import Judge
from arena.registry import Registry

FORFEIT_PENALTY = 1.0  # bits below the worst numeric score of the map


@dataclass(frozen=True)
class PlayabilityReport:
    """A participant's arms curve on a game and the verdicts drawn from it."""

    game: str
    role: str
    participant: str
    maps: int
    rounds: int
    required_steps: int
    curve: tuple[float, ...]
    per_map: tuple[tuple[float | None, ...], ...]
    dropped_maps: int
    leading_increases: int
    increases: int
    playable: bool
    flat: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _filled(scores: Sequence[float | None]) -> list[float] | None:
    numeric = [s for s in scores if s is not None]
    if not numeric:
        return None
    floor = min(numeric) - FORFEIT_PENALTY
    return [floor if s is None else s for s in scores]


def arms_curve(per_map: Sequence[Sequence[float | None]]) -> tuple[list[float], int]:
    """(arms_1..arms_k, number of maps dropped for having no numeric score)."""
    filled = [f for f in (_filled(scores) for scores in per_map) if f is not None]
    dropped = len(per_map) - len(filled)
    if not filled:
        return [], dropped
    rounds = min(len(f) for f in filled)
    curve = []
    for k in range(1, rounds + 1):
        curve.append(sum(max(f[:k]) for f in filled) / len(filled))
    return curve, dropped


def assess_curve(curve: Sequence[float], steps: int, tolerance: float = 1e-9) -> tuple[int, int]:
    """(length of the initial strictly increasing run, number of strict increases).

    A step counts as an increase when arms_{k+1} > arms_k + tolerance.
    """
    rises = [b > a + tolerance for a, b in itertools.pairwise(curve)]
    leading = 0
    while leading < len(rises) and rises[leading]:
        leading += 1
    return leading, sum(rises)


async def run_playability(
    game: LoadedGame,
    judge: Judge,
    registry: Registry,
    *,
    participant: str = "random",
    role: str | None = None,
    npc: str = "random",
    maps: int = 4,
    rounds: int = 8,
    steps: int | None = None,
    seed: int = 0,
    max_replay: int | None = DEFAULT_MAX_REPLAY,
) -> PlayabilityReport:
    """Play `participant` in `role` for `rounds` rounds on maps seed..seed+maps-1.

    `steps` is m (default: half the rounds, at least 1).
    """
    main = game.main_role(role)
    if maps < 1 or rounds < 2:
        raise ConfigError(f"Playability needs maps >= 1 and rounds >= 2, got {maps}, {rounds}.")
    required = steps if steps is not None else max(1, rounds // 2)
    per_map: list[tuple[float | None, ...]] = []
    for index in range(maps):
        map_seed = seed + index
        specs = {r: (participant if r == main else npc) for r in game.roles}
        async with await build_match(
            game, specs, judge=judge, registry=registry, seed=map_seed, rounds=rounds,
            main_roles=(main,), max_replay=max_replay, policy=ANALYSIS_POLICY,
            match_id=f"games:playability:{game.name}:{map_seed}",
        ) as match:
            result = await match.play()
        scores = list(result.scores[main].rounds)
        per_map.append(tuple(scores + [None] * (rounds - len(scores))))
    curve, dropped = arms_curve(per_map)
    leading, total = assess_curve(curve, required)
    return PlayabilityReport(
        game=game.name, role=main, participant=participant, maps=maps, rounds=rounds,
        required_steps=required, curve=tuple(curve), per_map=tuple(per_map),
        dropped_maps=dropped, leading_increases=leading, increases=total,
        playable=leading >= required, flat=total == 0,
    )
