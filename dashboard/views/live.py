"""Live: running tournaments (done/total, rate, ETA, errors, forfeits), matches in flight,
recent results, the next recurring run and the judge pool's health, from the heartbeats
the executor and scheduler write to the database. Refreshes itself every few seconds without
reloading the page (a toggle pauses it)."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import urlencode

import streamlit as st

from arena.dashboard import tables
from arena.dashboard.cache import fresh
from arena.dashboard.context import current
from arena.dashboard.derived import overdue_schedules
from arena.dashboard.ui import link_params, plain
from arena.storage.read_model import ReadModel

REFRESH_S = 2.0
ctx = current()
st.title("Live")
paused = st.toggle("Pause auto-refresh", key="live_paused")


def eta_text(seconds: float | None) -> str:
    if seconds is None or seconds != seconds:
        return "—"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


@st.fragment(run_every=None if paused else REFRESH_S)
def live_panel() -> None:
    f = ctx.filters
    runs = fresh(ReadModel.live_progress)
    st.caption(f"Updated {datetime.now(UTC):%H:%M:%S} UTC"
               + (" (paused)" if paused else f", every {REFRESH_S:g} s"))
    running = runs[runs["status"] == "running"]
    for row in running.itertuples():
        st.text(f"Run {row.run} of {row.tournament} on {row.host} (pid {row.pid})")
        preparing = row.phase == "preparing"
        cols = st.columns(6)
        cols[0].metric("Finished", f"{row.finished}/{row.total}")
        if preparing:
            cols[1].metric("Phase", f"preparing maps {row.maps_done}/{row.maps_total}",
                           help="Making the maps (stories) the matches are played on; "
                                "a map's matches start as soon as it is ready.")
            cols[2].metric("ETA", "after preparation",
                           help="Counted from the match rate once play begins.")
        else:
            cols[1].metric("Matches/min", f"{row.matches_per_min:.1f}",
                           help="Since play began (map preparation not counted).")
            cols[2].metric("ETA", eta_text(row.eta_s))
        cols[3].metric("Errors", int(row.errors))
        cols[4].metric("Forfeits", int(row.forfeits))
        cols[5].metric("In flight", int(row.in_flight))
        if preparing:
            st.progress(min(1.0, row.maps_done / max(row.maps_total, 1)),
                        text=f"Preparing maps {row.maps_done}/{row.maps_total}")
        else:
            # an adaptive run, or one a stopping rule ends, makes a map only when a match
            # it plays needs it, so the count need not reach the total
            making = (f", maps {row.maps_done}/{row.maps_total} made, the rest as play "
                      "needs them" if row.maps_done < row.maps_total else "")
            st.progress(min(1.0, row.finished / max(row.total, 1)),
                        text=f"Playing: {row.finished}/{row.total} matches stored{making}")
        if row.stale:
            st.warning(f"Run {row.run} of {plain(row.tournament)} says running but stopped "
                       "reporting: its process may "
                       "have been killed.")
    if not len(running):
        st.info("No tournament is running now. Start one with `arena run FILE --db URL`; "
                "this page follows it as it plays.")
    st.subheader("Matches in flight")
    flight = fresh(ReadModel.live_matches)
    if len(flight):
        flight.insert(0, "follow", ["replay?" + urlencode(link_params(key=str(k)))
                                    for k in flight["key"]])
        tables.show(flight.drop(columns=["key"]), column_config={
            "follow": st.column_config.LinkColumn("follow", display_text="replay")})
    else:
        st.caption("None.")
    st.subheader("Recent results")
    tables.show(fresh(ReadModel.matches, f, limit=10), labels={"match": "id"})
    left, right = st.columns(2)
    with left:
        st.subheader("Judge pool")
        health = fresh(ReadModel.live_judges, [int(r) for r in running["run_id"]])
        if len(health):
            tables.show(health)
        else:
            st.caption("No judge pool statistics from a running tournament.")
    with right:
        st.subheader("Next recurring run")
        schedules = fresh(ReadModel.schedule_table)
        for late in overdue_schedules(schedules, datetime.now(UTC)).itertuples():
            st.warning(f"Overdue: schedule {plain(late.name)} was due "
                       f"{late.late_s / 60:.0f} min ago and has not started. Is the scheduler "
                       "running? Start it with `arena scheduler --db URL`.")
        tables.show(fresh(ReadModel.next_recurring))
    st.subheader("Runs")
    tables.show(runs.drop(columns=["run_id"]))


live_panel()
