"""Which ratings a page shows: the latest board unless an older snapshot was chosen.

With no snapshot chosen (the sidebar's "latest", no ``?snapshot=`` in the link) every page
follows the latest board: the latest snapshot when it rated every stored match, else the
stored matches rated now (`arena.dashboard.live_board`, `arena ratings`' own computation),
so a page left open through a run moves with it and ends on the final board. A chosen
snapshot (numbered within its tournament, as the sidebar lists it) stays as it is, and the
page says how far behind the stored matches it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from arena.dashboard import derived, live_board
from arena.dashboard.cache import compute, query
from arena.dashboard.context import current, reader_for
from arena.dashboard.derived import unit_of
from arena.dashboard.live_board import BOARD_COLUMNS, done_matches, rate_now
from arena.storage.read_model import ReadModel


@dataclass(frozen=True)
class Shown:
    """The ratings of one tournament a page shows."""

    tournament: str | None
    snapshot_id: int | None  # the snapshot whose numbers are shown (None: rated now)
    number: int | None  # its number within the tournament (#1: the first)
    snapshots: int  # how many snapshots the tournament has
    rated: int  # matches the shown snapshot rated
    done: int  # matches of the tournament stored as done now
    following: bool  # no snapshot chosen: the latest board
    live: bool  # rated now from the stored matches
    too_many: bool  # following, but too many matches to rate on the fly

    @property
    def newer(self) -> int:
        """Matches stored after the shown snapshot."""
        return 0 if self.live else max(self.done - self.rated, 0)

    def note(self) -> str | None:
        """What a page says when it shows an older snapshot; None when it follows."""
        if self.following or self.number is None:
            return None
        newer = (f"{self.newer} newer matches" if self.newer else "no newer match")
        return (f"You are viewing snapshot #{self.number} of {self.rated} matches; {newer}. "
                "Choose “latest” under Rating snapshot in the sidebar to follow the latest "
                "ratings.")


@st.cache_data(show_spinner=False, max_entries=16)
def _done(url: str, watermark: tuple[int, ...], tournament: str | None) -> int:
    return done_matches(reader_for(url), tournament)


@st.cache_data(show_spinner=False, max_entries=8)
def _rated_now(url: str, watermark: tuple[int, ...], tournament: str,
               previous: int | None) -> tuple[pd.DataFrame, dict[str, Any]]:
    return rate_now(reader_for(url), tournament, previous)


def snapshot_id(tournament: str | None, number: int | None) -> int | None:
    """The id of snapshot `number` of `tournament` (None: no such snapshot)."""
    snaps = query(ReadModel.snapshots, tournament)
    found = snaps[snaps["number"] == number] if number is not None and len(snaps) else snaps[:0]
    return int(found["id"].iloc[0]) if len(found) else None


def shown() -> Shown:
    """The ratings the global filters select (`Filters.snapshot`: a number, or None)."""
    f = current().filters
    ctx = current()
    snaps = query(ReadModel.snapshots, f.tournament)
    done = _done(ctx.url, ctx.watermark, f.tournament)
    chosen = snapshot_id(f.tournament, f.snapshot)
    following = chosen is None
    ident = (int(snaps["id"].iloc[0]) if len(snaps) else None) if following else chosen
    row = snaps[snaps["id"] == ident] if ident is not None else snaps[:0]
    rated = int(row["matches"].iloc[0] or 0) if len(row) else 0
    live = following and done > 0 and (ident is None or done > rated)
    too_many = live and ident is not None and done > live_board.LIVE_MAX_MATCHES
    return Shown(
        tournament=f.tournament,
        snapshot_id=ident,
        number=int(row["number"].iloc[0]) if len(row) else None,
        snapshots=len(snaps),
        rated=rated,
        done=done,
        following=following,
        live=live and not too_many,
        too_many=too_many,
    )


def board_of(view: Shown) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The shown leaderboard (rank, participant, rating, ci_low, ci_high, rank_low,
    rank_high, n_comparisons, provisional, rank_change) and how it was computed (a
    snapshot's `config`)."""
    ctx = current()
    if view.live and view.tournament:
        latest = query(ReadModel.snapshots, view.tournament)
        previous = int(latest["id"].iloc[0]) if len(latest) else None
        return _rated_now(ctx.url, ctx.watermark, view.tournament, previous)
    if view.snapshot_id is None:
        return pd.DataFrame(columns=[*BOARD_COLUMNS, "rank_change"]), {}
    payload = query(ReadModel.snapshot_payload, view.snapshot_id) or {}
    return compute(derived.snapshot_board, view.snapshot_id), dict(payload.get("config", {}))


def unit_of_config(config: dict[str, Any]) -> tuple[str, float]:
    """The rating unit's name and points per natural-log unit of a board's `config`."""
    return unit_of({"scale": "log" if config.get("scale") == "natural" else "elo"})


# benchmarks/midrun_bench.py at its defaults (20 simulated seeds per shape, 5 real runs per
# mode): the share of boards read at 1/4, 1/3 and 1/2 of a run whose 95% interval held the
# participant's final rating (benchmarks/README.md has the table).
MIDRUN_COVERAGE = "96%"
RESAMPLED = {"match": "matches", "map": "maps (then their matches)",  # the bootstrap's unit
             "cluster": "whole maps"}


def progress_note(
    tournament: str, run: int, finished: int, total: int, adaptive: bool = False
) -> str:
    """What a board read mid-run is worth (issue 30): how far the run is, and how often
    such a board's intervals held the final rating in `benchmarks/midrun_bench.py`; a
    tournament that pairs adaptively (issue 33) is not played in balanced order, and says so."""
    share = finished / total if total else 0.0
    head = (f"Provisional: run {run} of {tournament} is in progress ({finished}/{total} "
            f"matches, {share:.0%}). ")
    if adaptive:
        return head + (
            "Its matches are chosen adaptively (the participants whose order is least "
            "certain play next), so the run may stop long before its planned matches and "
            "this board's mix is not a round robin's: read its intervals, not the share "
            "played. This page follows the matches as they are stored."
        )
    early = (
        "Under a quarter of the run, expect ratings to move beyond their intervals more "
        "often than that. " if share < 0.25 else ""
    )
    return head + (
        "Its matches are played in balanced order (games, roles, maps and "
        "participants interleaved), so this board rates the same mix as the final one: "
        f"from a quarter of a run on, its 95% intervals held the final rating in "
        f"{MIDRUN_COVERAGE} of the measured cases. {early}This page follows the matches as "
        "they are stored."
    )


def say_which(view: Shown) -> None:
    """The note of a page that shows an older snapshot (nothing when it follows)."""
    note = view.note()
    if note is not None:
        st.info(note)
