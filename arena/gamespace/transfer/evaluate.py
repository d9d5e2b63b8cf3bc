"""S_G(M), the expected score of a model at a game (Def. 35 and 37), measured on seeded maps.

Every player is measured on the same evaluation maps with the same play seeds (both derived
from `seed` alone), so the scores of M and of F_G^T[M] are paired map by map. Evaluation
maps come from their own seeded stream, apart from the fine-tuner's training maps
(`train_map_seed`), so a tuned model is never scored on a map it learned from.

One round per map; the player sits in the game's main role (its first active role) and the
other roles are played by `opponent` (memoryless NPCs). A forfeited round has no score;
`game_scores` counts it as SCORING.md section 1 does: the worst score of the evaluation
minus one bit (`fill_forfeits` applies the same rule across several players, map by map).

Name independence: every measurement of the game space plays `anonymous(game)`, the game
under the fixed name `EVAL_NAME`. A game's name reaches the players through the game view
(the prompt says "Game 'NAME'") and, through the information set, every move seed; so the
same text under two names used to give different numbers while every stored row is keyed by
the text's sha256. Dropping the name (rather than adding it to the key) makes the key
complete and lets a renamed copy be recognised as the same game (Def. 37 gives it V = 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from arena.errors import ConfigError, GameRuntimeError
from arena.match_setup import (
    ANALYSIS_POLICY,
    DEFAULT_MAX_REPLAY,
    LoadedGame,
    build_match,
    resolve_game_map,
)
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.runtime.seeds import derive_seed

EVAL_NAME = "game"  # the name every game-space measurement shows the players


def anonymous(game: LoadedGame) -> LoadedGame:
    """`game` under `EVAL_NAME`: what players see then depends on the text alone."""
    return game if game.name == EVAL_NAME else replace(game, name=EVAL_NAME)


def eval_map_seed(seed: int, index: int) -> int:
    """The seed (map and play) of evaluation map `index`."""
    return derive_seed("gamespace-eval", seed, index)


def train_map_seed(seed: int, index: int) -> int:
    """The seed (map and play) of the fine-tuner's training episode `index`."""
    return derive_seed("gamespace-train", seed, index)


async def map_scores(
    player: str,
    game: LoadedGame,
    *,
    judge: Judge,
    registry: Registry,
    maps: int,
    seed: int,
    opponent: str | None = None,
    max_replay: int | None = DEFAULT_MAX_REPLAY,
) -> list[float | None]:
    """`player`'s score in the main role on each evaluation map (None: forfeited)."""
    if maps < 1:
        raise ConfigError(f"Evaluating a player needs maps >= 1, got {maps}. Pass maps=1 or more.")
    main = game.main_role(None)
    shown = anonymous(game)
    scores: list[float | None] = []
    for index in range(maps):
        map_seed = eval_map_seed(seed, index)
        seats = {role: player if role == main else (opponent or player) for role in game.roles}
        game_map = await resolve_game_map(shown, judge, map_seed)
        async with await build_match(
            shown, seats, judge=judge, registry=registry, seed=map_seed, rounds=1,
            main_roles=(main,), max_replay=max_replay, policy=ANALYSIS_POLICY,
            match_id=f"gamespace:eval:{index}",
        ) as match:
            result = await match.play(game_map)
        if result.error is not None:
            raise GameRuntimeError(
                f"Game '{game.name}' failed on evaluation map {index} (seed {map_seed}): "
                f"{result.error}. Check it with `arena games check`"
            )
        rounds = result.scores[main].rounds
        scores.append(rounds[0] if rounds else None)
    return scores


def fill_forfeits(*players: Sequence[float | None]) -> list[list[float]]:
    """Per player, its map scores with each forfeit replaced by the worst non-forfeited
    score any of `players` got on that map minus one bit (the worst over all maps when
    nobody scored on that map; 0 - 1 when nobody scored at all)."""
    from arena.scoring import FORFEIT_PENALTY_BITS, forfeit_floor  # NumPy: not at start-up

    # SCORING.md's rule (`forfeit_floor`) map by map; a map nobody scored on is not dropped
    # (the maps are paired across players) but valued by the rule over the whole evaluation.
    fallback = forfeit_floor(s for scores in players for s in scores)
    filled: list[list[float]] = [[] for _ in players]
    for index in range(max((len(p) for p in players), default=0)):
        worst = forfeit_floor(p[index] for p in players if index < len(p))
        if worst is None:
            worst = -FORFEIT_PENALTY_BITS if fallback is None else fallback
        for out, scores in zip(filled, players, strict=True):
            if index < len(scores):
                value = scores[index]
                out.append(worst if value is None else value)
    return filled


async def game_scores(
    player: str,
    game: LoadedGame,
    *,
    judge: Judge,
    registry: Registry,
    maps: int,
    seed: int,
    opponent: str | None = None,
) -> list[float]:
    """S_G per evaluation map: `player`'s score in the main role, one value per map, on
    maps and play seeds that depend on `seed` only (paired across players). Other roles
    are played by `opponent` (default: `player` itself). Forfeits: see `fill_forfeits`."""
    scores = await map_scores(
        player, game, judge=judge, registry=registry, maps=maps, seed=seed, opponent=opponent
    )
    return fill_forfeits(scores)[0]
