"""Leaderboard: a headline (participants, matches, games, judge, last update, how to read
it), Bradley–Terry ratings with 95% intervals (forest plot and table), rank ranges,
provisional marks, role split, rank change, predicted and observed win rates.

It follows the stored matches: when matches were stored after the latest snapshot it shows
ratings computed from them now (`arena.dashboard.live_board`), and while a run of the tournament
is going it reloads itself within seconds of each stored match."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st

from arena.dashboard import charts, tables
from arena.dashboard.cache import compute, fresh, from_seats, query
from arena.dashboard.context import current, reader_for
from arena.dashboard.derived import predicted_wins, unit_of
from arena.dashboard.live_board import (
    LIVE_MAX_MATCHES,
    done_matches,
    rate_now,
)
from arena.dashboard.ui import need_rows, participant_link, plain

REFRESH_S = 3.0
_SEEN = "_lb_latest_seen"  # the latest snapshot id when the page last ran



@st.cache_data(show_spinner=False, max_entries=16)
def _done(url: str, watermark: tuple[int, ...], tournament: str | None) -> int:
    return done_matches(reader_for(url), tournament)


@st.cache_data(show_spinner=False, max_entries=8)
def _live_board(url: str, watermark: tuple[int, ...], tournament: str,
                previous: int | None) -> tuple[pd.DataFrame, dict[str, Any]]:
    return rate_now(reader_for(url), tournament, previous)


ctx = current()
f = ctx.filters
st.title("Leaderboard")

done = _done(ctx.url, ctx.watermark, f.tournament)
snaps = query("snapshots", f.tournament)
latest = int(snaps["id"].iloc[0]) if len(snaps) else None
runs = fresh("live_progress", f.tournament)
running = runs[(runs["status"] == "running") & ~runs["stale"].astype(bool)]
# The page follows the newest ratings unless an older snapshot was picked in the sidebar
# (one that was the newest when last shown counts as following: a run adds snapshots).
following = f.snapshot is None or f.snapshot in (latest, st.session_state.get(_SEEN))
st.session_state[_SEEN] = latest
snapshot_id = latest if following else f.snapshot
payload = query("snapshot_payload", snapshot_id) if snapshot_id is not None else None
payload = payload or {}
rated = int(payload.get("matches") or 0)
live = following and (snapshot_id is None or done > rated)
too_many = live and snapshot_id is not None and done > LIVE_MAX_MATCHES
live = live and not too_many

if done == 0 and snapshot_id is None:
    st.info(f"No match of tournament {plain(f.tournament)} is stored yet. Ratings appear "
            "here as soon as its first matches are stored (`arena run FILE`, or `arena demo`).")
    st.stop()
unit, per_natural = unit_of(payload)
if live:
    with st.spinner(f"Rating the {done} stored matches…"):
        board, config = _live_board(ctx.url, ctx.watermark, str(f.tournament), latest)
    source = (f"computed now from the {done} stored matches, as `arena ratings` does"
              + ("" if latest is None else
                              f"; the latest snapshot #{latest} rated "
                              f"{int(payload.get('matches') or 0)}"))
else:
    board = compute("snapshot_board", snapshot_id)
    config = payload.get("config", {})
    source = f"snapshot #{snapshot_id} of {rated} matches"
    if too_many:
        source += (f"; {done - rated} matches were stored since. Over {LIVE_MAX_MATCHES} "
                   "matches the page does not rate them on the fly: the run stores a new "
                   "snapshot as it goes")
min_comparisons = int(config.get("min_comparisons", 30))


def _when(moment: object, form: str) -> str:
    return "—" if moment is None or pd.isna(moment) else f"{pd.Timestamp(moment):{form}}"


judges = ", ".join(sorted(query("judge_specs", f.tournament))) or "—"
last = query("date_range", f.tournament)[1]
head = st.columns([1, 1, 1, 1.5, 1.8])
head[0].metric("Participants", len(board))
head[1].metric("Matches", done, help="Matches of this tournament stored as done.")
head[2].metric("Games", len(query("game_names", f.tournament)))
head[3].metric("Judge", judges, help=judges)
head[4].metric("Last update (UTC)", _when(last, "%b %d %H:%M"),
               help="When the latest match was stored: " + _when(last, "%Y-%m-%d %H:%M:%S UTC"))
if len(running):
    row = running.iloc[0]
    st.warning(f"Provisional: run {row['run']} of {plain(f.tournament)} is in progress "
               f"({row['finished']}/{row['total']} matches). These ratings follow the stored "
               "matches and will move; this page reloads itself as matches are stored.")
st.caption(f"Ratings: {source}.")
with st.expander("How to read this"):
    st.markdown(
        "- **Rating** (Bradley–Terry, Elo scale: mean 1000): a 400-point gap means the "
        "higher-rated participant is expected to beat the other about 10 times out of 11 on "
        "the same game, map and role. Comparisons come from scores on the same map: in eval "
        "mode each participant plays the main role against the same NPCs, and the higher "
        "score wins.\n"
        "- **95% interval** (low, high): the range the rating takes over bootstrap resamples "
        "of the matches (games weighted alike). Overlapping intervals mean the data cannot "
        "yet tell the two apart.\n"
        "- **Rank range**: the ranks a participant can take given the intervals that overlap "
        "its own; a single number means its place is settled.\n"
        f"- **Provisional** (✱, hollow point): fewer than {min_comparisons} comparisons; and "
        "while a run is in progress every rating is provisional, computed from the matches "
        "stored so far.")


@st.fragment(run_every=REFRESH_S if len(running) else None)
def _follow() -> None:
    """While a run is going: reload the page when a match or snapshot was stored."""
    if len(running) and tuple(fresh("watermark")) != tuple(ctx.watermark):
        st.rerun()


_follow()

left, right = st.columns([3, 1])
with right:
    roles = sorted(query("participant_summary", f)["role"].unique())
    role = st.selectbox("Role", ["(all roles)", *roles], key="lb_role")
    min_matches = st.number_input("Minimum comparisons", min_value=0, value=0, step=1,
                                  key="lb_min")
narrowed = bool(f.games or f.judge or f.since or f.until or role != "(all roles)")

if narrowed:
    st.warning("Filters narrower than the snapshot (games, judge, dates or role): the ratings "
               "below are point estimates refitted on the selected matches, without intervals "
               "(intervals come from the stored snapshot of all matches).")
    board = compute("point_ratings", f, None if role == "(all roles)" else role)
    board.insert(0, "rank", range(1, len(board) + 1))
if not need_rows(board, "rated participants"):
    st.stop()
board = board[board["n_comparisons"] >= min_matches]

summary = query("participant_summary", f)
matches = summary.groupby("participant")["matches"].sum()
board = board.assign(matches=[int(matches.get(p, 0)) for p in board["participant"]])
# The published Xent benchmark's score (issue 20), over the matches the filters select.
benchmark = from_seats("seat_benchmark_scores")
board = board.assign(xent_benchmark=[benchmark.get(p) for p in board["participant"]])

with left:
    if not narrowed:
        st.altair_chart(charts.forest_plot(board, unit), width="stretch")
        st.caption(
            f"Bradley–Terry, {config.get('n_resamples', '?')} bootstrap resamples over matches "
            f"(games weighted alike), 95% percentile intervals. Rank range: the ranks a "
            f"participant can take given the intervals that overlap its own. Provisional "
            f"(hollow point, ✱ in the table): fewer than {min_comparisons} comparisons."
        )
table = board.copy()
if "provisional" in table:
    table["provisional"] = table["provisional"].map(lambda p: "✱" if p else "")
table.insert(table.columns.get_loc("participant") + 1, "page",
             [participant_link(str(p)) for p in table["participant"]])
tables.show(table, column_config={
    "rank_change": st.column_config.NumberColumn("Δ rank", format="%+d",
                                                 help="since the previous snapshot"),
    "page": st.column_config.LinkColumn("page", display_text="open",
                                        help="the participant's own page"),
    "xent_benchmark": st.column_config.NumberColumn(
        "Xent benchmark", format="%.2f",
        help="the published Xent benchmark's score: 100 x the mean over games of the mean "
             "over matches of score / |best score on the map| (as `arena scores "
             "--normalisation benchmark`)"),
})

st.subheader("Role and seat split")
tables.show(summary)

st.subheader("Who beats whom")
pred_col, obs_col = st.columns(2)
with pred_col:
    st.altair_chart(charts.pair_matrix(predicted_wins(board, per_natural), "p_win",
                                       "predicted P(row beats column)"), width="stretch")
pairs = query("head_to_head", f)
with obs_col:
    if len(pairs):
        st.altair_chart(charts.pair_matrix(pairs, "win_rate", "observed win rate"),
                        width="stretch")
        st.altair_chart(charts.pair_matrix(pairs, "comparisons", "comparisons", fmt="d"),
                        width="stretch")
    else:
        st.info("No head-to-head comparisons: in eval mode participants are compared across "
                "matches on the same game, map and role, not within one match.")
st.caption("Observed rates count only true pairwise comparisons: two rated seats of the same "
           "match (for games of more than two seats, every pair of rated seats); a draw "
           "(within 1e-6 bits) counts half.")

provenance = {
    "snapshot": None if live else snapshot_id,
    "computed_live_from_matches": done if live else None,
    "tournament": f.tournament,
    "judge": f.judge or sorted(query("judge_specs", f.tournament)),
    "config_sha256": query("run_config_sha", payload.get("run_id")),
    "rating_config": config,
    "filters": {"games": list(f.games), "since": str(f.since or ""), "until": str(f.until or ""),
                "role": role, "min_comparisons": int(min_matches)},
}
header = "".join(f"# {k}: {json.dumps(v, sort_keys=True)}\n" for k, v in provenance.items())
c1, c2 = st.columns(2)
c1.download_button("Download CSV", header + board.to_csv(index=False),
                   file_name=f"leaderboard-{'live' if live else snapshot_id}.csv", mime="text/csv")
c2.download_button("Download JSON", json.dumps(
    {"provenance": provenance, "rows": json.loads(board.to_json(orient="records"))}, indent=2),
    file_name=f"leaderboard-{'live' if live else snapshot_id}.json", mime="application/json")
