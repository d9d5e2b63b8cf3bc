"""Playing one planned match and turning the result into a storage record.

Isolation: anything that goes wrong in one match (a player that cannot be built or
crashes, a judge call that fails, a game that errors) is caught here and becomes that
match's `error`; forfeits are scores. Only cancellation propagates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from arena.match_setup import LoadedGame, SeatSpec, build_match
from arena.plugins.registry import Registry
from arena.protocols.executor import EventHook
from arena.protocols.judge import Judge
from arena.redaction import redact
from arena.runtime.maps import GameMap
from arena.runtime.match import MatchConfig, MatchResult, SeatScore
from arena.storage.records import (
    MATCH_DONE,
    MATCH_ERROR,
    MATCH_NO_RESULT,
    FinishedMatch,
    SeatResult,
)
from arena.storage.tables import utcnow
from arena.tournaments.planning.pairings import MatchPlan
from arena.tournaments.ratings.spend import Spend, spend_by_role


@dataclass(frozen=True)
class MatchContext:
    """What every match of a run shares."""

    registry: Registry
    judge: Judge
    config: MatchConfig  # seed key, limits, policy; rounds and play seed come from each plan
    tournament_id: int
    run_id: int
    judge_id: int
    participant_ids: Mapping[str, int]
    game_ids: Mapping[str, int]
    on_event: EventHook | None = None  # besides the plugins' hook, which always hears
    executor: str = "local"  # provenance recorded with each match
    judge_backend: str = "in-process"


async def play_plan(
    plan: MatchPlan,
    game: LoadedGame,
    game_map: GameMap,
    map_id: int,
    ctx: MatchContext,
    *,
    reraise: tuple[type[Exception], ...] = (),
) -> FinishedMatch:
    """Play `plan` on its map; never raises except on cancellation and the `reraise` kinds
    of error (which a caller that retries matches wants to see)."""
    started = utcnow()
    result = MatchResult(events=[], scores={}, error=None)
    hook = ctx.on_event
    seats = [
        SeatSpec(s.role, s.spec, main=s.main, participant=s.participant) for s in plan.seats
    ]
    try:
        async with await build_match(
            game,
            seats,
            judge=ctx.judge,
            registry=ctx.registry,
            seed=plan.play_seed,
            rounds=plan.rounds,
            limits=ctx.config.limits,
            policy=ctx.config.policy,
            match_id=plan.key,
            seed_key=ctx.config.seed_key,  # the tournament's secret: seeds players get
            on_event=None if hook is None else (lambda event: hook(event, plan.key)),
        ) as match:
            result = await match.play(game_map)
    except reraise:
        raise
    except Exception as error:  # isolation: this match fails, the tournament goes on
        result = MatchResult(
            events=result.events, scores={}, error=f"{type(error).__name__}: {error}"
        )
    return result_record(plan, result, map_id, ctx, started)


def judge_backend(judge: object) -> str:
    """Where a judge runs, for provenance: a Ray actor, a remote server, or in process."""
    named = getattr(judge, "backend_kind", None)
    if isinstance(named, str):
        return named
    inner = getattr(judge, "backend", judge)
    return "remote" if type(inner).__name__ == "RemoteJudge" else "in-process"


def error_record(
    plan: MatchPlan, error: str, map_id: int, ctx: MatchContext, started: datetime
) -> FinishedMatch:
    """The record of a match that could not be played at all (e.g. after its retries)."""
    return result_record(plan, MatchResult(events=[], scores={}, error=error), map_id, ctx, started)


def _status(result: MatchResult) -> str:
    if result.error is not None:
        return MATCH_ERROR
    return MATCH_DONE if result.no_result is None else MATCH_NO_RESULT


def result_record(
    plan: MatchPlan, result: MatchResult, map_id: int, ctx: MatchContext, started: datetime
) -> FinishedMatch:
    """The storage record of `plan` played to `result` (also `arena rescore`'s)."""
    empty = SeatScore(rounds=(), best=None, forfeit=False)
    spent = spend_by_role(result.events)
    seats = []
    for s in plan.seats:
        score = result.scores.get(s.role, empty)
        used = spent.get(s.role, Spend())
        seats.append(
            SeatResult(
                role=s.role,
                participant_id=ctx.participant_ids[s.participant],
                main=s.main,
                best=score.best,
                forfeit=score.forfeit,
                round_scores=score.rounds,
                prompt_tokens=used.prompt_tokens,
                completion_tokens=used.completion_tokens,
                cost_usd=used.cost_usd,
                calls=used.calls,
                move_s=result.move_s.get(s.role, 0.0),
            )
        )
    return FinishedMatch(
        key=plan.key,
        tournament_id=ctx.tournament_id,
        run_id=ctx.run_id,
        game_id=ctx.game_ids[plan.game],
        map_id=map_id,
        judge_id=ctx.judge_id,
        map_index=plan.map_index,
        play_seed=plan.play_seed,
        mode=plan.mode,
        main_role=plan.main_role,
        rounds=plan.rounds,
        dialect=plan.dialect,
        status=_status(result),
        error=None if (why := result.error or result.no_result) is None else redact(why),
        started_at=started,
        finished_at=utcnow(),
        seats=tuple(seats),
        events=tuple(result.events),
        executor=ctx.executor,
        judge_backend=ctx.judge_backend,
    )
