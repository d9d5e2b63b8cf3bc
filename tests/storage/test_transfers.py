"""Verdicts and transfer values round-trip through a real SQLite file (undefined values and
per-map scores included), a key written again replaces its row, and a read-only opening
reads them."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from arena.storage import Store
from arena.storage import transfers as t
from arena.storage.read_only import open_read_only

SETTING = "a" * 64


def verdict(game: str, playable: bool = True, tokens: int = 100) -> t.VerdictRecord:
    return t.VerdictRecord(
        SETTING, '{"player":"hf:bundled"}', game, game * 8, -3.0, -1.5, 0.5, 2.5, playable,
        tokens, f"/models/{game}", (-3.5, -2.5), (-2.0, -1.0),
    )


def value(source: str, target: str, v: float | None) -> t.TransferRecord:
    return t.TransferRecord(
        SETTING, source, source * 8, target, target * 8, v,
        None if v is None else v - 0.1, None if v is None else v + 0.1, -2.0, -1.0,
        "" if v is not None else "undefined: the fine-tuning gain ... contains 0",
        (-2.5, -1.5), (-1.0, -1.0),
    )


def test_records_round_trip_and_a_key_is_replaced(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "arena.db"))
    try:
        engine = store.engine
        assert t.verdict(engine, SETTING, "g1" * 8) is None and t.settings(engine) == []
        t.save_verdict(engine, verdict("g1"))
        t.save_verdict(engine, verdict("g2", playable=False))
        t.save_verdict(engine, verdict("g1", tokens=200))  # the same key: replaced
        rows = [value("g1", "g2", 0.75), value("g2", "g1", None), value("g1", "g1", 1.0)]
        for row in rows:
            t.save_transfer(engine, row)
        assert t.verdicts(engine, SETTING) == [verdict("g2", playable=False),
                                               verdict("g1", tokens=200)]
        assert t.verdict(engine, SETTING, "g1" * 8) == verdict("g1", tokens=200)
        assert t.transfers(engine, SETTING) == rows
        undefined = t.transfer(engine, SETTING, "g2" * 8, "g1" * 8)
        assert undefined is not None and undefined.value is None and undefined.high is None
        assert undefined.reason.startswith("undefined")
        assert t.verdicts(engine, "b" * 64) == [] and t.transfers(engine, "b" * 64) == []
        [summary] = t.settings(engine)
        assert (summary.setting_sha256, summary.games, summary.transfers) == (SETTING, 2, 3)
    finally:
        store.close()
    path = tmp_path / "arena.db"
    for f in tmp_path.iterdir():
        os.chmod(f, stat.S_IRUSR)
    os.chmod(tmp_path, stat.S_IRUSR | stat.S_IXUSR)
    try:
        engine = open_read_only(str(path))
        assert t.transfers(engine, SETTING) == rows
        assert [s.games for s in t.settings(engine)] == [2]
        engine.dispose()
    finally:
        os.chmod(tmp_path, stat.S_IRWXU)
