"""The one table format of the dashboard (`arena.dashboard.tables`): human labels, rounded
numbers, full UTC times, short hashes; and the overdue-schedule check it sits beside."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pandas as pd

from arena.dashboard import tables
from arena.dashboard.derived import overdue_schedules

DIGEST = "0123456789abcdef" * 4


def test_labels_are_words_with_units_not_snake_case() -> None:
    assert tables.label("rank_low") == "best rank"
    assert tables.label("eta_s") == "ETA (s)"
    assert tables.label("lease_owner") == "running on"
    assert tables.label("started_at") == "started (UTC)"
    assert tables.label("elapsed_s") == "elapsed (s)"
    assert tables.label("config_sha256") == "config hash"
    assert "_" not in tables.label("some_new_column")


def test_prepare_rounds_floats_parses_times_and_shortens_hashes() -> None:
    frame = pd.DataFrame({
        "rating": [1501.23456, None], "share": [0.123456, 0.5], "count": [3.0, 4.0],
        "finished_at": ["2026-11-25 10:00:00.123456", None],
        "config_sha256": [DIGEST, None], "key": [f"import:{DIGEST}", "short"],
        "name": ["x", None], "last_match": pd.to_datetime(["2026-11-25 10:00:01", None]),
        "move": [DIGEST, DIGEST],
    })
    shown, config = tables.prepare(frame)
    fmt = {k: v["type_config"].get("format") for k, v in config.items()}
    assert fmt["rating"] == "%.1f" and fmt["share"] == "%.2f" and fmt["count"] == "%d"
    assert config["finished_at"]["type_config"]["format"] == tables.TIME_FORMAT
    assert shown["finished_at"].iloc[0] == pd.Timestamp("2026-11-25 10:00:00.123456")
    assert config["finished_at"]["label"] == "finished (UTC)"
    assert config["last_match"]["label"] == "last match (UTC)"  # a time, named without _at
    assert list(shown["config_sha256"].iloc[:1]) == [DIGEST[:12]]
    assert list(shown["key"]) == [f"import:{DIGEST[:12]}", "short"]
    assert list(shown["move"]) == [DIGEST, DIGEST]  # player text is never cut
    assert all("_" not in c["label"] for c in config.values())
    assert frame["config_sha256"].iloc[0] == DIGEST  # the caller's frame is left alone


def test_labels_can_be_overridden_or_hidden() -> None:
    _, config = tables.prepare(pd.DataFrame({"match": [1], "secret": ["x"]}),
                               labels={"match": "id", "secret": None})
    assert config["match"]["label"] == "id" and config["secret"] is None


def schedules_at(next_run: datetime | None, lease_until: datetime | None = None,
                 enabled: bool = True) -> pd.DataFrame:
    return pd.DataFrame({
        "name": ["nightly"], "enabled": [enabled], "next_run_at": [next_run],
        "lease_owner": ["host:1:t" if lease_until else None], "lease_until": [lease_until],
    })


def test_a_schedule_past_its_fire_time_with_no_runner_is_overdue() -> None:
    now = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    late = overdue_schedules(schedules_at(datetime(2026, 11, 25, 11, 0)), now)
    assert list(late["name"]) == ["nightly"] and late["late_s"].iloc[0] == 3600
    assert not len(overdue_schedules(schedules_at(datetime(2026, 11, 25, 11, 59, 30)), now))
    assert not len(overdue_schedules(schedules_at(now.replace(hour=13)), now))
    assert not len(overdue_schedules(schedules_at(None), now))
    assert not len(overdue_schedules(schedules_at(datetime(2026, 11, 25, 11, 0),
                                                  enabled=False), now))
    running = schedules_at(datetime(2026, 11, 25, 11, 0), lease_until=now + timedelta(minutes=1))
    assert not len(overdue_schedules(running, now))  # a process is running it now
    expired = schedules_at(datetime(2026, 11, 25, 11, 0), lease_until=now - timedelta(hours=1))
    assert len(overdue_schedules(expired, now)) == 1
