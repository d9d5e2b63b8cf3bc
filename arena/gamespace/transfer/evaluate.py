"""S_G(M), the expected score of a model at a game (Def. 35 and 37), measured on seeded maps.

Every player is measured on the same evaluation maps with the same play seeds (both derived
from `seed` alone), so the scores of M and of F_G^T[M] are paired map by map. Evaluation
maps come from their own seeded stream, apart from the fine-tuner's training maps
(`train_map_seed`), so a tuned model is never scored on a map it learned from.

One round per map; the player sits in the game's main role (its first active role) and the
other roles are played by `opponent` (memoryless NPCs). A forfeited round has no score;
`game_scores` counts it as SCORING.md section 1 does: the worst score of the evaluation
minus one bit (`fill_forfeits` applies the same rule across several players, map by map).

Representation independence: every measurement of the game space plays
`evaluation_form(game)`, the game's canonical form (`arena.gamespace.sampling.canonical`:
registers and flags renamed in order of first use, instructions that cannot change any
reward or any seat's information set dropped, comments and header left out) under the fixed
name `EVAL_NAME`. Why: Def. 35 and Def. 37 are about games, and S_G is "the expected score
of a model when playing G"; the paper says that "swapping the name of two registers leaves a
game unchanged" (section 2.5), and an instruction that changes no reward and no information
set leaves every play and every score of the game as it was. But a player reads the game's
code (XGL.md section 4), so the same game spelled two ways (another name, renamed registers,
a no-op line, other comments) used to be measured as two games: the untuned model moves
differently on each text, so a renamed copy's transfer value was 0.93 [0.88, 0.97] and a
no-op copy's 0.79 [0.73, 0.84] (issue 19, seed 0), not 1. Showing every spelling as one
representative makes S_G a function of the game: the copies are then literally the same game
to every player, their stored rows and tuned models are shared (keys are the sha256 of the
evaluation form) and Def. 37 gives them V = 1 exactly. What is lost: a header's description
("measures: ...") is not shown during game-space measurements (it is documentation, not
rules); tournaments and play still show the game as written.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

from arena.errors import ConfigError, GameRuntimeError
from arena.match_setup import (
    ANALYSIS_POLICY,
    DEFAULT_MAX_REPLAY,
    LoadedGame,
    build_match,
    load_game_text,
    resolve_game_map,
)
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.runtime.seeds import derive_seed

EVAL_NAME = "game"  # the name every game-space measurement shows the players


def evaluation_form(game: LoadedGame) -> LoadedGame:
    """`game` as every game-space measurement plays it: its canonical form under
    `EVAL_NAME` (see the module docstring); what players see then depends on the game alone,
    not on how it is spelled. Idempotent."""
    from arena.gamespace.sampling.canonical import canonical_form

    text = canonical_form(game.program)
    if game.name == EVAL_NAME and game.source == text:
        return game
    suffix = PurePosixPath(game.filename).suffix or ".xgl"
    return load_game_text(text, f"{EVAL_NAME}{suffix}", name=EVAL_NAME)


def eval_map_seed(seed: int, index: int) -> int:
    """The seed (map and play) of evaluation map `index`."""
    return derive_seed("gamespace-eval", seed, index)


def train_map_seed(seed: int, index: int) -> int:
    """The seed (map and play) of the fine-tuner's training episode `index`."""
    return derive_seed("gamespace-train", seed, index)


def check_map_seed(seed: int, index: int) -> int:
    """The seed (map and play) of the fine-tuner's check map `index`: the maps on which it
    compares its own weights (never an evaluation or a training map)."""
    return derive_seed("gamespace-check", seed, index)


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
    show_code: bool = True,
) -> list[float | None]:
    """`player`'s score in the main role on each evaluation map (None: forfeited).
    `show_code` False: the players get their information set without the program's text
    (`arena.runtime.code_hidden`)."""
    if maps < 1:
        raise ConfigError(f"Evaluating a player needs maps >= 1, got {maps}. Pass maps=1 or more.")
    main = game.main_role(None)
    shown = evaluation_form(game)
    scores: list[float | None] = []
    for index in range(maps):
        map_seed = eval_map_seed(seed, index)
        seats = {role: player if role == main else (opponent or player) for role in game.roles}
        game_map = await resolve_game_map(shown, judge, map_seed)
        async with await build_match(
            shown, seats, judge=judge, registry=registry, seed=map_seed, rounds=1,
            main_roles=(main,), max_replay=max_replay, policy=ANALYSIS_POLICY,
            match_id=f"gamespace:eval:{index}", show_code=show_code,
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
    show_code: bool = True,
) -> list[float]:
    """S_G per evaluation map: `player`'s score in the main role, one value per map, on
    maps and play seeds that depend on `seed` only (paired across players). Other roles
    are played by `opponent` (default: `player` itself). Forfeits: see `fill_forfeits`.
    `show_code`: as for `map_scores`."""
    scores = await map_scores(
        player, game, judge=judge, registry=registry, maps=maps, seed=seed, opponent=opponent,
        show_code=show_code,
    )
    return fill_forfeits(scores)[0]
