"""Tournaments and schedules: tournaments with status and config, a win–draw–loss
crosstable for head-to-head games, recurring schedules with next fire time and history."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pandas as pd
import streamlit as st

from arena.dashboard import tables
from arena.dashboard.cache import fresh, query
from arena.dashboard.context import current
from arena.dashboard.derived import overdue_schedules
from arena.dashboard.ui import plain
from arena.storage.read_model import ReadModel

ctx = current()
f = ctx.filters
st.title("Tournaments and schedules")
tours = query(ReadModel.tournaments)
tables.show(tours.drop(columns=["config_json"]))

st.subheader("Configuration")
config = tours.set_index("name")["config_json"].get(f.tournament, "{}")
st.json(json.loads(config or "{}"), expanded=False)
st.subheader("Runs")
# "pending" is what the run had left to play when it started, not what is left now (a
# finished run read "pending 120, done 120").
tables.show(query(ReadModel.runs, f.tournament).drop(columns=["run_id"]),
            labels={"pending": "to play at start"})

st.subheader("Crosstable (win–draw–loss, row against column)")
pairs = query(ReadModel.head_to_head, f)
if len(pairs):
    pairs = pairs.assign(wdl=[f"{w}–{d}–{ls}" for w, d, ls in
                              zip(pairs["wins"], pairs["draws"], pairs["losses"], strict=True)])
    st.dataframe(pairs.pivot(index="a", columns="b", values="wdl"), width="stretch",
                 placeholder="")
else:
    st.info("No head-to-head matches in this selection (eval-mode tournaments compare "
            "participants across matches; see the Leaderboard).")

st.subheader("Recurring schedules")
schedules = fresh(ReadModel.schedule_table)  # next fire times move without new matches: read now
if len(schedules):
    for late in overdue_schedules(schedules, datetime.now(UTC)).itertuples():
        due = pd.Timestamp(late.next_run_at)
        st.warning(
            f"Overdue: schedule {plain(late.name)} was due at {due:%Y-%m-%d %H:%M:%S} UTC "
            f"({late.late_s / 60:.0f} min ago) and has not started. Is the scheduler "
            "running? Start it with `arena scheduler --db URL`, or run this schedule once "
            "now with `arena schedule run-now NAME --db URL`.")
    tables.show(schedules, labels={"cron": "cron", "name": "schedule"})
    st.caption("Runs of the schedules (newest first)")
    tables.show(query(ReadModel.schedule_run_table), labels={"id": "run"})
else:
    st.info("No recurring schedule. Add one with `arena schedule add FILE --cron '0 3 * * *'`.")
