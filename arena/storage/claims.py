"""Match claims: several drivers on one database, no match played twice.

Before playing a match a run claims it (`claim`): in one transaction, the claim rows of the
wanted keys that are free, expired or already its own are locked with `SELECT ... FOR
UPDATE SKIP LOCKED` (Postgres; SQLite serialises writers anyway), keys already stored as
done are dropped, and the rest are marked as the run's until `expires_at`. A row another
driver is claiming right now is skipped, not waited for. A live run renews its claims
(`renew`); a crashed one stops renewing, so after the TTL its matches are free again, and
at once when a later run finds it dead (`release_runs`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, and_, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col

from arena.storage import tables as t
from arena.storage.engine import write_engine
from arena.storage.records import MATCH_DONE
from arena.storage.tables import Match, MatchClaim

CLAIM_TTL_S = 120.0  # a run renews every third of it
FREE = datetime(1970, 1, 1, tzinfo=UTC)


def _insert_missing(engine: Engine, tournament_id: int, keys: Sequence[str]) -> None:
    rows = [{"key": k, "tournament_id": tournament_id, "expires_at": FREE} for k in keys]
    dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
    with write_engine(engine).begin() as conn:
        conn.execute(dialect.insert(MatchClaim).values(rows).on_conflict_do_nothing())


def claim(
    engine: Engine,
    tournament_id: int,
    run_id: int,
    keys: Sequence[str],
    *,
    ttl_s: float = CLAIM_TTL_S,
    now: datetime | None = None,
) -> list[str]:
    """The keys of `keys` this run may play now (claimed until now + `ttl_s`), in order."""
    if not keys:
        return []
    _insert_missing(engine, tournament_id, keys)
    moment = now or t.utcnow()
    with write_engine(engine).begin() as conn:
        free = conn.execute(
            select(col(MatchClaim.key))
            .where(
                col(MatchClaim.key).in_(keys),
                or_(
                    col(MatchClaim.run_id) == run_id,
                    col(MatchClaim.run_id).is_(None),
                    col(MatchClaim.expires_at) < moment,
                ),
            )
            .with_for_update(skip_locked=True)
        )
        found = {str(k) for k in free.scalars()}
        done = conn.execute(
            select(col(Match.key)).where(col(Match.key).in_(found), col(Match.status) == MATCH_DONE)
        )
        found -= {str(k) for k in done.scalars()}
        if found:
            conn.execute(
                update(MatchClaim)
                .where(col(MatchClaim.key).in_(found))
                .values(run_id=run_id, expires_at=moment + timedelta(seconds=ttl_s))
            )
    return [k for k in keys if k in found]


def renew(engine: Engine, run_id: int, *, ttl_s: float = CLAIM_TTL_S) -> int:
    """Extend every claim of the run; how many it holds."""
    with write_engine(engine).begin() as conn:
        done = conn.execute(
            update(MatchClaim)
            .where(col(MatchClaim.run_id) == run_id)
            .values(expires_at=t.utcnow() + timedelta(seconds=ttl_s))
        )
    return int(done.rowcount)


def release(engine: Engine, run_id: int, keys: Collection[str] | None = None) -> None:
    """Free the run's claims (all, or those of `keys`): its matches are stored or dropped."""
    condition = col(MatchClaim.run_id) == run_id
    if keys is not None:
        condition = and_(condition, col(MatchClaim.key).in_(list(keys)))
    with write_engine(engine).begin() as conn:
        conn.execute(update(MatchClaim).where(condition).values(run_id=None, expires_at=FREE))


def release_runs(engine: Engine, run_ids: Collection[int]) -> None:
    """Free the claims of runs found dead (their process was killed)."""
    if run_ids:
        with write_engine(engine).begin() as conn:
            conn.execute(
                update(MatchClaim)
                .where(col(MatchClaim.run_id).in_(list(run_ids)))
                .values(run_id=None, expires_at=FREE)
            )
