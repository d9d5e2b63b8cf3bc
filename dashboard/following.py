"""Pages that move with the stored data, and runs announced, never switched to.

A small fragment in the sidebar looks at the database every `REFRESH_S` seconds: when a
match, a snapshot or a run was stored since the page ran, it reruns the page (so a page
left open through a run ends on the final board without a reload; the Live and Replay pages
follow on their own); and it names every run in progress, with a link to the one of another
tournament than the selected one. It never changes a selector itself. A page that takes
long to draw (rating many matches) is rerun at most once per `IDLE_FACTOR` times its last
run: it stays readable, and still the page of the latest data within a few of its runs.
"""

from __future__ import annotations

import time
from typing import Any

import pandas as pd
import streamlit as st

from arena.dashboard.cache import fresh
from arena.dashboard.context import current
from arena.dashboard.ui import plain
from arena.storage.read_model import ReadModel

REFRESH_S = 3.0
IDLE_FACTOR = 1.0  # at least this many times its last run between two reruns of a page
_RAN = "_page_ran"  # (monotonic end, seconds) of the page's last full run
OWN_REFRESH = ("live", "replay", "home")  # pages that follow (or hand over) on their own


def _running(runs: pd.DataFrame) -> pd.DataFrame:
    return runs[(runs["status"] == "running") & ~runs["stale"].astype(bool)]


def watch(page: Any, slug: str) -> None:
    """The sidebar's watcher for the page `page` (path `slug`)."""
    moves = slug not in OWN_REFRESH
    ctx = current()
    # What the page was drawn with: new data, or a run that ended (or died) without any,
    # reruns it.
    drawn = (tuple(ctx.watermark), tuple(_running(fresh(ReadModel.live_progress))["run_id"]))

    @st.fragment(run_every=REFRESH_S)
    def _watch() -> None:
        running = _running(fresh(ReadModel.live_progress))
        for row in running.itertuples():
            said = (f"Run {row.run} of {plain(row.tournament)} is in progress "
                    f"({row.finished}/{row.total} matches).")
            if row.tournament == ctx.filters.tournament:
                st.caption(said + " This page follows it.")
                continue
            st.info(said)
            st.page_link(page, label=f"Show {plain(row.tournament)}",
                         query_params={"tournament": str(row.tournament)},
                         icon=":material/arrow_forward:")
        ended, took = st.session_state.get(_RAN, (0.0, 0.0))
        rested = time.monotonic() - ended >= max(REFRESH_S, IDLE_FACTOR * took)
        if moves and rested and (tuple(fresh(ReadModel.watermark)),
                                 tuple(running["run_id"])) != drawn:
            st.rerun()

    with st.sidebar:
        _watch()


def page_ran(began: float) -> None:
    """Note that the page's full run, begun at `began` (`time.monotonic()`), is over."""
    now = time.monotonic()
    st.session_state[_RAN] = (now, now - began)
