"""Playability (paper Definition 33, SCORING.md section 3).

A participant plays `rounds` rounds on each of `maps` maps, keeping its earlier rounds in
context (the main character; other roles are memoryless NPCs). arms_k is the mean over maps
of the best score among the first k rounds. The game is (N, m)-playable for the participant
when arms_k increases strictly for the first m steps (arms_1 < arms_2 < ... < arms_{m+1}).
A curve that never increases is *flat*: SCORING.md flags such a game as not playable for a
base participant and does not normalise on it.

Forfeited rounds count as the worst non-forfeited score of that map minus one bit
(SCORING.md section 1); a map with no numeric score at all is dropped and counted. The math
is `arena.scoring`, the same the ratings use.

Next to that single-sample check, the paper's own verdicts: (N, eps, m)- and
(N, eps, theta, m)-playability, with the probability over N-map samples estimated by
resampling the maps played (`arena.scoring.playability_levels`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from arena.errors import ConfigError
from arena.match_setup import ANALYSIS_POLICY, DEFAULT_MAX_REPLAY, LoadedGame, build_match
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.scoring import PlayabilityLevels, arms_curve, assess_curve, playability_levels


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
    levels: PlayabilityLevels | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if self.levels is not None:
            data["levels"]["playable"] = self.levels.playable
            data["levels"]["playable_levels"] = self.levels.playable_levels
        return data


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
    theta: float = 1.0,
    levels: int = 2,
    epsilon: float = 0.1,
) -> PlayabilityReport:
    """Play `participant` in `role` for `rounds` rounds on maps seed..seed+maps-1.

    `steps` is m (default: half the rounds, at least 1); `theta`, `levels` and `epsilon`
    are the paper's theta, m and eps of the (N, eps, theta, m) verdict (N = `maps`).
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
    leading, total = assess_curve(curve)
    verdicts = playability_levels(
        per_map, steps=required, theta=theta, levels=levels, epsilon=epsilon, seed=seed
    )
    return PlayabilityReport(
        game=game.name, role=main, participant=participant, maps=maps, rounds=rounds,
        required_steps=required, curve=tuple(curve), per_map=tuple(per_map),
        dropped_maps=dropped, leading_increases=leading, increases=total,
        playable=leading >= required, flat=total == 0, levels=verdicts,
    )
