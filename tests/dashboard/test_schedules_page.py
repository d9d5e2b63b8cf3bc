"""Tournaments and schedules page: a schedule whose fire time passed with no scheduler
running says so (it used to show the past time without a word)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from arena.storage import Store, sqlite_url
from arena.tournaments.services.recurring.schedules import add_schedule
from tests.dashboard.conftest import OpenApp, no_exception
from tests.tournaments import arena_fixtures as fx


def test_an_overdue_schedule_warns_that_the_scheduler_is_not_running(
    open_app: OpenApp, arena_db: str, tmp_path: Path
) -> None:
    source = Path(arena_db.removeprefix("sqlite:///"))
    for name in ("arena.db", "duel.toml", "zerosum.xgl"):
        shutil.copy(source.parent / name, tmp_path / name)
    url = sqlite_url(tmp_path / "arena.db")
    store = Store.open(url)
    try:
        add_schedule(store, tmp_path / "duel.toml", every=600, name="hourly-duel",
                     registry=fx.registry())
    finally:
        store.close()
    at = open_app("views/tournaments.py", {"tournament": "duel-cup"}, url=url)
    no_exception(at)
    assert not [w for w in at.warning if "Overdue" in w.value]  # due in the future
    with sqlite3.connect(tmp_path / "arena.db") as conn:  # the scheduler stopped an hour ago
        past = (datetime.now(UTC) - timedelta(hours=1)).replace(tzinfo=None)
        conn.execute("UPDATE schedules SET next_run_at = ?", (past.isoformat(sep=" "),))
    at = open_app("views/tournaments.py", {"tournament": "duel-cup"}, url=url)
    no_exception(at)
    overdue = [w.value for w in at.warning if "Overdue" in w.value]
    assert len(overdue) == 1 and "hourly" in overdue[0] and "60 min ago" in overdue[0]
    assert "arena scheduler" in overdue[0] and "arena schedule run-now" in overdue[0]
    schedules = next(t for t in at.dataframe if "next_run_at" in t.value.columns)
    labels = {k: v.get("label") for k, v in json.loads(schedules.proto.columns).items() if v}
    assert labels["next_run_at"] == "next run (UTC)" and labels["lease_owner"] == "running on"
    assert schedules.proto.placeholder == ""
