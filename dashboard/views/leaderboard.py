"""Leaderboard: Bradley–Terry ratings with 95% intervals (forest plot and table), rank
ranges, provisional marks, role split, rank change, predicted and observed win rates."""

from __future__ import annotations

import json

import streamlit as st

from dashboard import charts
from dashboard.cache import compute, query
from dashboard.context import current
from dashboard.derived import predicted_wins, unit_of
from dashboard.ui import need_rows

ctx = current()
f = ctx.filters
st.title("Leaderboard")

snapshot_id = f.snapshot
if snapshot_id is None:
    st.info("No rating snapshot stored for this tournament yet: `arena run` stores one after "
            "each run (or run `arena ratings --tournament NAME --snapshot`).")
    st.stop()
payload = query("snapshot_payload", snapshot_id) or {}
unit, per_natural = unit_of(payload)
board = compute("snapshot_board", snapshot_id)
config = payload.get("config", {})
min_comparisons = int(config.get("min_comparisons", 30))

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
st.dataframe(table, hide_index=True, width="stretch", column_config={
    "rating": st.column_config.NumberColumn(format="%.1f"),
    "ci_low": st.column_config.NumberColumn("95% low", format="%.1f"),
    "ci_high": st.column_config.NumberColumn("95% high", format="%.1f"),
    "rank_change": st.column_config.NumberColumn("Δ rank", format="%+d",
                                                 help="since the previous snapshot"),
})

st.subheader("Role and seat split")
st.dataframe(summary, hide_index=True, width="stretch", column_config={
    "mean_score": st.column_config.NumberColumn(format="%.3f"),
    "best_score": st.column_config.NumberColumn(format="%.3f")})

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
    "snapshot": snapshot_id,
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
                   file_name=f"leaderboard-{snapshot_id}.csv", mime="text/csv")
c2.download_button("Download JSON", json.dumps(
    {"provenance": provenance, "rows": json.loads(board.to_json(orient="records"))}, indent=2),
    file_name=f"leaderboard-{snapshot_id}.json", mime="application/json")
