"""Fine-tuning verdicts (Def. 35) and transfer values (Def. 37), keyed by the fine-tuning
setting's sha256 and the games' sha256 (tables `finetune_verdicts`, `transfer_values`).

A setting (player, fine-tuner, budget, maps, seed, judge, ...) fixes every number, so a
stored row is reused instead of fine-tuning or playing again; each row keeps its per-map
scores, so intervals can be recomputed from the database alone. Writing a key again
replaces its row (a newer measurement of the same thing).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, Row, and_, delete, func, insert, select
from sqlmodel import col

from arena.storage import tables as t
from arena.storage.engine import write_engine
from arena.storage.tables import FineTuneVerdict, TransferValue


@dataclass(frozen=True)
class VerdictRecord:
    """One game's S_G before and after fine-tuning on it, and Def. 35's verdict."""

    setting_sha256: str
    setting_json: str
    game: str
    game_sha256: str
    score_before: float
    score_after: float
    gain_low: float
    gain_high: float
    playable: bool
    tokens: int = 0
    model_path: str | None = None
    scores_before: tuple[float, ...] = ()
    scores_after: tuple[float, ...] = ()
    created_at: datetime | None = field(default=None, compare=False)


@dataclass(frozen=True)
class TransferRecord:
    """V_source(target) with its interval, or undefined (value None) with the reason."""

    setting_sha256: str
    source: str
    source_sha256: str
    target: str
    target_sha256: str
    value: float | None
    low: float | None
    high: float | None
    target_before: float
    target_after: float
    reason: str = ""
    scores_before: tuple[float, ...] = ()
    scores_after: tuple[float, ...] = ()
    created_at: datetime | None = field(default=None, compare=False)


@dataclass(frozen=True)
class SettingSummary:
    """A fine-tuning setting with stored results (the latest first in `settings`)."""

    setting_sha256: str
    setting_json: str
    games: int
    transfers: int
    updated_at: datetime


def _scores_json(before: tuple[float, ...], after: tuple[float, ...]) -> str:
    return json.dumps({"before": list(before), "after": list(after)})


def _scores(text: str | None) -> tuple[tuple[float, ...], tuple[float, ...]]:
    doc: dict[str, Any] = json.loads(text or "{}")
    return tuple(doc.get("before", ())), tuple(doc.get("after", ()))


def save_verdict(engine: Engine, record: VerdictRecord) -> None:
    """Store (or replace) the verdict of `record.game_sha256` under its setting."""
    values = {
        "setting_sha256": record.setting_sha256, "setting_json": record.setting_json,
        "game": record.game, "game_sha256": record.game_sha256,
        "score_before": record.score_before, "score_after": record.score_after,
        "gain_low": record.gain_low, "gain_high": record.gain_high,
        "playable": record.playable, "tokens": record.tokens, "model_path": record.model_path,
        "scores_json": _scores_json(record.scores_before, record.scores_after),
        "created_at": t.utcnow(),
    }
    key = and_(
        col(FineTuneVerdict.setting_sha256) == record.setting_sha256,
        col(FineTuneVerdict.game_sha256) == record.game_sha256,
    )
    with write_engine(engine).begin() as conn:
        conn.execute(delete(FineTuneVerdict).where(key))
        conn.execute(insert(FineTuneVerdict), values)


def save_transfer(engine: Engine, record: TransferRecord) -> None:
    """Store (or replace) V_source(target) under its setting."""
    values = {
        "setting_sha256": record.setting_sha256, "source": record.source,
        "source_sha256": record.source_sha256, "target": record.target,
        "target_sha256": record.target_sha256, "value": record.value, "low": record.low,
        "high": record.high, "reason": record.reason, "target_before": record.target_before,
        "target_after": record.target_after,
        "scores_json": _scores_json(record.scores_before, record.scores_after),
        "created_at": t.utcnow(),
    }
    key = and_(
        col(TransferValue.setting_sha256) == record.setting_sha256,
        col(TransferValue.source_sha256) == record.source_sha256,
        col(TransferValue.target_sha256) == record.target_sha256,
    )
    with write_engine(engine).begin() as conn:
        conn.execute(delete(TransferValue).where(key))
        conn.execute(insert(TransferValue), values)


def _verdict(row: Row[Any]) -> VerdictRecord:
    before, after = _scores(row.scores_json)
    return VerdictRecord(
        row.setting_sha256, row.setting_json, row.game, row.game_sha256,
        row.score_before, row.score_after, row.gain_low, row.gain_high, bool(row.playable),
        row.tokens, row.model_path, before, after, row.created_at,
    )


def _transfer(row: Row[Any]) -> TransferRecord:
    before, after = _scores(row.scores_json)
    return TransferRecord(
        row.setting_sha256, row.source, row.source_sha256, row.target, row.target_sha256,
        row.value, row.low, row.high, row.target_before, row.target_after, row.reason or "",
        before, after, row.created_at,
    )


def verdict(engine: Engine, setting_sha256: str, game_sha256: str) -> VerdictRecord | None:
    """The stored verdict of one game under one setting, if any."""
    query = select(FineTuneVerdict).where(
        col(FineTuneVerdict.setting_sha256) == setting_sha256,
        col(FineTuneVerdict.game_sha256) == game_sha256,
    )
    with engine.connect() as conn:
        row = conn.execute(query).first()
    return None if row is None else _verdict(row)


def transfer(
    engine: Engine, setting_sha256: str, source_sha256: str, target_sha256: str
) -> TransferRecord | None:
    """The stored V_source(target) under one setting, if any."""
    query = select(TransferValue).where(
        col(TransferValue.setting_sha256) == setting_sha256,
        col(TransferValue.source_sha256) == source_sha256,
        col(TransferValue.target_sha256) == target_sha256,
    )
    with engine.connect() as conn:
        row = conn.execute(query).first()
    return None if row is None else _transfer(row)


def verdicts(engine: Engine, setting_sha256: str) -> list[VerdictRecord]:
    """Every stored verdict of a setting, in the order they were stored."""
    query = select(FineTuneVerdict).where(col(FineTuneVerdict.setting_sha256) == setting_sha256)
    with engine.connect() as conn:
        return [_verdict(r) for r in conn.execute(query.order_by(col(FineTuneVerdict.id)))]


def transfers(engine: Engine, setting_sha256: str) -> list[TransferRecord]:
    """Every stored transfer value of a setting, in the order they were stored."""
    query = select(TransferValue).where(col(TransferValue.setting_sha256) == setting_sha256)
    with engine.connect() as conn:
        return [_transfer(r) for r in conn.execute(query.order_by(col(TransferValue.id)))]


def settings(engine: Engine) -> list[SettingSummary]:
    """Every setting with stored verdicts, the most recently updated first."""
    counts = (
        select(col(TransferValue.setting_sha256), func.count().label("n"))
        .group_by(col(TransferValue.setting_sha256))
        .subquery()
    )
    query = (
        select(
            col(FineTuneVerdict.setting_sha256),
            func.max(col(FineTuneVerdict.setting_json)).label("setting_json"),
            func.count().label("games"), func.max(col(FineTuneVerdict.created_at)).label("updated"),
            func.max(counts.c.n).label("transfers"),
        )
        .outerjoin(counts, counts.c.setting_sha256 == col(FineTuneVerdict.setting_sha256))
        .group_by(col(FineTuneVerdict.setting_sha256))
        .order_by(func.max(col(FineTuneVerdict.created_at)).desc())
    )
    with engine.connect() as conn:
        return [
            SettingSummary(r.setting_sha256, r.setting_json, r.games, r.transfers or 0, r.updated)
            for r in conn.execute(query)
        ]


__all__ = [
    "SettingSummary", "TransferRecord", "VerdictRecord", "save_transfer", "save_verdict",
    "settings", "transfer", "transfers", "verdict", "verdicts",
]
