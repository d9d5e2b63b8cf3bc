"""Ratings over time: each participant's rating and interval per snapshot, marks where a
participant's spec or the judge changed, and P(rank = k) from stored bootstrap draws (of the
latest snapshot, or the chosen one). `arena run` and `arena demo` store snapshots during a
run, so the chart grows inside a run (the sidebar's watcher reruns the page as they come)."""

from __future__ import annotations

import streamlit as st

from arena.dashboard import charts, derived, tables
from arena.dashboard.board import say_which, shown
from arena.dashboard.cache import compute, fresh, query
from arena.dashboard.context import current
from arena.dashboard.ui import plain
from arena.storage.read_model import ReadModel

ctx = current()
f = ctx.filters
st.title("Ratings over time")
runs = fresh(ReadModel.live_progress, f.tournament)
running = bool(((runs["status"] == "running") & ~runs["stale"].astype(bool)).any())
view = shown()
say_which(view)
history = query(ReadModel.snapshot_history, f.tournament)
if not len(history):
    st.info(f"No rating snapshot of tournament {plain(f.tournament)} is stored yet. `arena "
            "run` and `arena demo` store one every 30 s or so while they play and one at the end; "
            + ("this page shows it as soon as it is stored." if running else
               "`arena ratings --tournament NAME` rates the stored matches now."))
    st.stop()
history = history.assign(snapshot=history["number"]).drop(columns=["number"])  # #k of its own
people = sorted(history["participant"].unique())
picked = st.multiselect("Participants", people, default=people, key="h_people")
history = history[history["participant"].isin(picked)]
changes = query(ReadModel.first_seen, f.tournament)
first_snapshot = history["created_at"].min()
changes = changes[changes["first_match_at"] > first_snapshot] if len(changes) else changes
st.altair_chart(charts.rating_history(history, changes, "Elo"), width="stretch")
st.caption("Band: the snapshot's 95% interval. Dashed vertical marks: the first match of a "
           "new participant spec or judge after the first snapshot (hover for which).")
if len(changes):
    tables.show(changes, labels={"first_match_at": "first match (UTC)"})

st.subheader("P(rank = k)")
if view.snapshot_id is None:
    st.info("No snapshot selected.")
else:
    probs = compute(derived.rank_probabilities, view.snapshot_id)
    which = ("the latest snapshot, " if view.following else "snapshot ") + f"#{view.number}"
    if len(probs):
        st.altair_chart(charts.rank_probabilities(probs), width="stretch")
        st.caption(f"Share of the bootstrap draws stored with {which} in which each "
                   "participant has rank k.")
    else:
        st.info(f"{which[0].upper()}{which[1:]} stored no bootstrap draws (snapshots written "
                "by older arenas did not); the next run's snapshot will.")
# Read like the Leaderboard: who, rating, interval, rank range (the query's order was not).
ORDER = ["snapshot", "created_at", "participant", "rating", "ci_low", "ci_high", "rank_low",
         "rank_high", "n_comparisons", "provisional"]
tables.show(history[[c for c in ORDER if c in history.columns]
                    + [c for c in history.columns if c not in ORDER]])
