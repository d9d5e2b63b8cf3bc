"""Re-judging a stored tournament (`arena rescore`): its matches played again under another
judge with the moves stored in their transcripts, into a new tournament; no player is
called (`arena.tournaments.running.stored_moves`).

The copy has the same matches: the same games and game versions, the same stored maps (the
texts every seat saw then, whatever the new judge would sample), the same seats and
participants, play seeds and rounds, and the source tournament's secret seed key, so every
draw of the game (`sample`, `shuffle`) comes out as it did. Only the judge differs, and with
it every score, and every `ensure` whose condition asks the judge: a move the new judge
rejects is retried with the stored retry if there is one, else the seat forfeits (the
rules' answer to a seat without a move). A forfeit stays a forfeit: nothing was stored for
the request the seat failed. Matches stored as errors in the source had no result and are
left out.

Keys: each copy's plan key is made as `arena run` makes one (`pairings.plan_key`) with the
new tournament's name and judge, so running the same rescore again resumes it: matches
already stored are skipped.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from arena import __version__
from arena.errors import ConfigError, UnknownNameError
from arena.lang.limits import ResourceLimits
from arena.match_setup import LoadedGame, load_game_text
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.redaction import redact
from arena.runtime.maps import GameMap
from arena.runtime.match import MatchConfig, play_match
from arena.runtime.round import RoundLimits
from arena.runtime.seat import MovePolicy, Seat
from arena.specs import NAME_RE
from arena.storage import (
    MATCH_DONE,
    MATCH_ERROR,
    FinishedMatch,
    JudgeProvenance,
    MatchWriter,
    Store,
    StoredMatch,
)
from arena.storage.match_sources import MatchSources
from arena.storage.rows import IMPORTED_MODE
from arena.storage.tables import utcnow
from arena.tournaments.planning.config import check_spec
from arena.tournaments.planning.pairings import GameSlot, MatchPlan, SeatPlan, plan_key
from arena.tournaments.running.match_task import MatchContext, judge_backend, result_record
from arena.tournaments.running.stored_moves import RoundClock, StoredMovesPlayer, stored_moves

RESCORED_FROM = "rescored_from"  # the key of the copy's stored config naming its source
REPLAY_POLICY = MovePolicy(timeout_s=None, retries=0)  # a stored move is there or not


@dataclass
class RescoreSummary:
    source: str
    target: str
    judge: str
    planned: int  # the source's finished matches
    already_done: int = 0
    written: int = 0
    errors: int = 0
    left_out: int = 0  # the source's matches stored as errors (no result to rescore)
    keys: dict[str, str] = dataclasses.field(default_factory=dict)  # source key -> copy key


def check_request(store: Store, source: str, target: str, judge: str) -> None:
    """Refuse, in one sentence each, what cannot be rescored: an unknown source, an
    imported one (no moves stored), a copy named like its source, a name taken by
    another tournament, a malformed judge spec."""
    names = store.tournament_names()
    if source not in names:
        raise UnknownNameError(
            "tournament", source, names, "Rescore a tournament that `arena run` stored."
        )
    info = store.tournament_info(source)
    if info is not None and info.mode == IMPORTED_MODE:
        raise ConfigError(
            f"Tournament '{source}' holds imported results: their moves were never stored, "
            "so there is nothing to judge again. Rescore a tournament played with `arena run`."
        )
    if not NAME_RE.match(target):
        raise ConfigError(
            f"--as {redact(target)!r} is not a tournament name: a name holds only letters, "
            f"digits, '_', '.' and '-'; write e.g. --as {source}-rejudged."
        )
    if target == source:
        raise ConfigError(
            f"--as '{target}' names the tournament being rescored; the rescored copy needs a "
            f"name of its own, e.g. --as {source}-rejudged."
        )
    if target in names:
        stored = store.tournament_config(target) or {}
        if stored.get(RESCORED_FROM) != source or stored.get("judge") != redact(judge):
            raise ConfigError(
                f"--as '{target}' is already a tournament in this database, not a rescore of "
                f"'{source}' with judge '{redact(judge)}'; choose another name."
            )
    try:
        check_spec(judge)
    except ValueError as error:
        raise ConfigError(f"--judge '{redact(judge)}' {error}.") from None


def copy_config(store: Store, source: str, target: str, judge: str) -> dict[str, Any]:
    """The source's stored config as the copy's: its name and judge, and where it came from."""
    config = dict(store.tournament_config(source) or {})
    config.update({"name": target, "judge": redact(judge), RESCORED_FROM: source})
    return config


def copy_plan(match: StoredMatch, target: str, judge: str) -> MatchPlan:
    """The copy's plan of a stored match: its key as `arena run` would make it for the
    copy's name and judge."""
    game = GameSlot(match.game, match.game_version, match.code_sha256, match.dialect, (),
                    rounds=match.rounds)
    seats = tuple(SeatPlan(s.role, s.participant, s.spec, s.main) for s in match.seats)
    mode = match.mode
    key = plan_key(target, game, match.map_index, match.map_seed, mode, seats,
                   match.play_seed, judge)
    return MatchPlan(key, target, match.game, match.game_version, match.code_sha256,
                     match.dialect, match.map_index, match.map_seed, mode, seats,
                     match.main_role, match.rounds, match.play_seed)


def _limits(config: Mapping[str, Any]) -> RoundLimits:
    """The source run's limits, as its engine set them (None: the dialect's own budget)."""
    ensure = config.get("ensure_budget")
    return RoundLimits(
        None if ensure is None else int(ensure),
        int(config.get("instruction_budget") or RoundLimits().instruction_budget),
        ResourceLimits.model_validate(config.get("limits") or {}),
    )


async def rescore(
    store: Store,
    registry: Registry,
    source: str,
    judge_spec: str,
    target: str,
    *,
    concurrency: int = 4,
    on_stored: Callable[[int, int], None] = lambda done, total: None,
) -> RescoreSummary:
    """Judge the finished matches of `source` again with `judge_spec` into the tournament
    `target` (module docstring); `on_stored(done, total)` follows the progress."""
    await asyncio.to_thread(check_request, store, source, target, judge_spec)
    judge = registry.create_judge(judge_spec)
    try:
        return await _rescore(store, registry, judge, source, judge_spec, target,
                              concurrency, on_stored)
    finally:
        await judge.aclose()


async def _rescore(
    store: Store,
    registry: Registry,
    judge: Judge,
    source: str,
    judge_spec: str,
    target: str,
    concurrency: int,
    on_stored: Callable[[int, int], None],
) -> RescoreSummary:
    stored = await store.stored_matches.in_thread(source)
    finished = [m for m in stored if m.status == MATCH_DONE]
    summary = RescoreSummary(source, target, redact(judge_spec), len(finished))
    summary.left_out = sum(m.status == MATCH_ERROR for m in stored)
    if not finished:
        raise ConfigError(
            f"Tournament '{source}' has no finished match to rescore; run it first "
            "(`arena run FILE`)."
        )
    config = copy_config(store, source, target, judge_spec)
    sources: MatchSources = await store.match_sources.in_thread(source)
    source_id = store.tournament_id(source)
    assert source_id is not None  # checked by check_request
    seed_key = store.tournament_seed_key(source_id)
    text = json.dumps(config, sort_keys=True)
    target_id = store.ensure_tournament(target, finished[0].mode, text)
    info = judge.info
    judge_id = store.ensure_judge(JudgeProvenance(
        redact(judge_spec), info.name, info.model, info.revision, info.dtype, info.vocab_size
    ))
    plans = {m.key: copy_plan(m, target, judge_spec) for m in finished}
    summary.keys = {k: p.key for k, p in plans.items()}
    done = store.done_keys(target_id)
    pending = [m for m in finished if plans[m.key].key not in done]
    summary.already_done = len(finished) - len(pending)
    run_id = store.start_run(
        target_id, planned=len(finished), pending=len(pending),
        config_sha256=hashlib.sha256(text.encode()).hexdigest(), version=__version__,
    )
    context = MatchContext(
        registry=registry,
        judge=judge,
        config=MatchConfig(seed_key=seed_key, limits=_limits(config), policy=REPLAY_POLICY),
        tournament_id=target_id,
        run_id=run_id,
        judge_id=judge_id,
        participant_ids={},
        game_ids={},
        judge_backend=judge_backend(judge),
    )
    games: dict[int, LoadedGame] = {}
    limits = context.config.limits.resources
    for game_id, game in sources.games.items():
        games[game_id] = load_game_text(
            game.source, game.filename or f"{game.name}.{game.dialect}",
            dialect=game.dialect, name=game.name, limits=limits,
        )
    gate = asyncio.Semaphore(concurrency)
    status = "failed"

    def written(match: FinishedMatch, fresh: bool) -> None:
        summary.written += fresh
        summary.errors += fresh and match.status == MATCH_ERROR
        on_stored(summary.already_done + summary.written, summary.planned)

    try:
        async with MatchWriter(store, on_written=written) as writer, asyncio.TaskGroup() as tg:
            for match in pending:
                ids = {s.participant: sources.participants[(s.participant, s.spec)]
                       for s in match.seats}
                game_id = sources.game_of[match.key]
                ctx = dataclasses.replace(
                    context, participant_ids=ids, game_ids={match.game: game_id}
                )
                tg.create_task(_one(match, plans[match.key], games[game_id], ctx, store,
                                    writer, gate))
        status = "done"
    except (asyncio.CancelledError, KeyboardInterrupt):
        status = "interrupted"
        raise
    finally:
        await asyncio.shield(asyncio.to_thread(store.finish_run, run_id, status))
    return summary


async def _one(
    match: StoredMatch,
    plan: MatchPlan,
    game: LoadedGame,
    ctx: MatchContext,
    store: Store,
    writer: MatchWriter,
    gate: asyncio.Semaphore,
) -> None:
    async with gate:
        started = utcnow()
        events = await store.match_events.in_thread(match.key)
        stories = await store.map_texts.in_thread(match.map_id)
        moves = stored_moves(events)
        clock = RoundClock()
        seats = {
            s.role: Seat(s.role, StoredMovesPlayer(s.role, moves.get(s.role, []), clock),
                         main=s.main, participant=s.participant)
            for s in match.seats
        }
        config = dataclasses.replace(ctx.config, rounds=match.rounds, play_seed=match.play_seed)
        result = await play_match(
            game.program, game.view, GameMap(seed=match.map_seed, stories=stories), seats,
            ctx.judge, config, on_event=clock,
        )
        writer.submit(result_record(plan, result, match.map_id, ctx, started))
