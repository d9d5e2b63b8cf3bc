"""Runs whose process died without saying so (`kill -9`, a lost machine): their row still
says `running`. The next process that opens the tournament marks them `interrupted`, so
the history never claims a run is going on when none is.

A run is gone when its process is: on this host, its pid no longer exists; elsewhere (or
when the pid was reused), its heartbeat (`live_runs.updated_at`, written at least every
few seconds by a live run) is older than `STALE_AFTER_S`, or it never wrote one and
started longer ago than that.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, delete, outerjoin, select, update
from sqlmodel import col

from arena.storage import tables as t
from arena.storage.engine import write_engine
from arena.storage.live import STALE_AFTER_S
from arena.storage.tables import LiveMatch, LiveRun, Run

RUNNING = "running"
INTERRUPTED = "interrupted"


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def process_exists(pid: int) -> bool:
    """Whether a process with this id exists on this machine."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    except OSError:
        return False
    return True


def _gone(host: str, pid: int, last_sign: datetime, cutoff: datetime) -> bool:
    here = host == socket.gethostname()
    if here and pid == os.getpid():
        return False  # a run of this very process
    if here and pid > 0 and not process_exists(pid):
        return True
    return _aware(last_sign) < cutoff


def interrupt_abandoned_runs(
    engine: Engine,
    tournament_id: int,
    *,
    now: datetime | None = None,
    stale_after_s: float = STALE_AFTER_S,
) -> Sequence[int]:
    """Mark the tournament's runs whose process is gone `interrupted`; their ids."""
    moment = now or t.utcnow()
    cutoff = moment - timedelta(seconds=stale_after_s)
    query = (
        select(
            col(Run.id), col(Run.host), col(Run.pid), col(Run.started_at),
            col(LiveRun.updated_at),
        )
        .select_from(outerjoin(Run, LiveRun, col(LiveRun.run_id) == col(Run.id)))
        .where(col(Run.tournament_id) == tournament_id, col(Run.status) == RUNNING)
    )
    with write_engine(engine).begin() as conn:
        gone = [
            int(row.id)
            for row in conn.execute(query)
            if _gone(row.host or "", int(row.pid or 0), row.updated_at or row.started_at, cutoff)
        ]
        if gone:
            conn.execute(
                update(Run)
                .where(col(Run.id).in_(gone), col(Run.status) == RUNNING)
                .values(status=INTERRUPTED, finished_at=moment)
            )
            conn.execute(
                update(LiveRun)
                .where(col(LiveRun.run_id).in_(gone))
                .values(status=INTERRUPTED, in_flight=0)
            )
            conn.execute(delete(LiveMatch).where(col(LiveMatch.run_id).in_(gone)))
    return gone
