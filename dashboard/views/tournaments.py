"""Tournaments and schedules: tournaments with status and config, a win–draw–loss
crosstable for head-to-head games, recurring schedules with next fire time and history."""

from __future__ import annotations

import json

import streamlit as st

from dashboard.cache import query
from dashboard.context import current

ctx = current()
f = ctx.filters
st.title("Tournaments and schedules")
tours = query("tournaments")
st.dataframe(tours.drop(columns=["config_json"]), hide_index=True, width="stretch")

st.subheader("Configuration")
config = tours.set_index("name")["config_json"].get(f.tournament, "{}")
st.json(json.loads(config or "{}"), expanded=False)
st.subheader("Runs")
st.dataframe(query("runs", f.tournament), hide_index=True, width="stretch")

st.subheader("Crosstable (win–draw–loss, row against column)")
pairs = query("head_to_head", f)
if len(pairs):
    pairs = pairs.assign(wdl=[f"{w}–{d}–{ls}" for w, d, ls in
                              zip(pairs["wins"], pairs["draws"], pairs["losses"], strict=True)])
    st.dataframe(pairs.pivot(index="a", columns="b", values="wdl"), width="stretch")
else:
    st.info("No head-to-head matches in this selection (eval-mode tournaments compare "
            "participants across matches; see the Leaderboard).")

st.subheader("Recurring schedules")
schedules = query("schedules")
if len(schedules):
    st.dataframe(schedules, hide_index=True, width="stretch")
    st.dataframe(query("schedule_runs"), hide_index=True, width="stretch")
else:
    st.info("No recurring schedule. Add one with `arena schedule add FILE --cron '0 3 * * *'`.")
