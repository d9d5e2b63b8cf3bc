"""Leaderboard: a headline (participants, matches, games, judge, last update, how to read
it), Bradley–Terry ratings with 95% intervals (forest plot and table), rank ranges,
provisional marks, role split, rank change, predicted and observed win rates.

It shows the board `arena.dashboard.board` chooses: with no snapshot chosen, the latest
(ratings computed now from the stored matches when the latest snapshot is behind them,
`arena ratings`' own numbers), following a run as it goes (the sidebar's watcher reruns the
page when matches are stored); a chosen older snapshot is said to be one."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from arena.dashboard import charts, derived, live_board, tables
from arena.dashboard.board import (
    RESAMPLED,
    board_of,
    progress_note,
    say_which,
    shown,
    unit_of_config,
)
from arena.dashboard.cache import compute, fresh, from_seats, query
from arena.dashboard.context import current
from arena.dashboard.derived import predicted_wins
from arena.dashboard.ui import need_rows, participant_link, plain
from arena.storage.read_model import ReadModel
from arena.tournaments.ratings.spend import participant_costs, settled_cost

# the Leaderboard's cost columns: column -> `ParticipantCost.as_dict` key
COST_COLUMNS = {"tokens": "tokens", "usd": "usd", "move_s": "move_s"}

ctx = current()
f = ctx.filters
st.title("Leaderboard")

view = shown()
done = view.done
runs = fresh(ReadModel.live_progress, f.tournament)
running = runs[(runs["status"] == "running") & ~runs["stale"].astype(bool)]
say_which(view)
if done == 0 and view.snapshot_id is None:
    st.info(f"No match of tournament {plain(f.tournament)} is stored yet. Ratings appear "
            "here as soon as its first matches are stored (`arena run FILE`, or `arena demo`)."
            + (" A run of it is in progress: this page follows it." if len(running) else ""))
    st.stop()
if view.live:
    with st.spinner(f"Rating the {done} stored matches…"):
        board, config = board_of(view)
    source = (f"computed now from the {done} stored matches, as `arena ratings` does"
              + ("" if view.number is None else
                 f"; the latest snapshot #{view.number} rated {view.rated}"))
else:
    board, config = board_of(view)
    source = f"snapshot #{view.number} of {view.rated} matches"
    if view.too_many:
        source += (f"; {done - view.rated} matches were stored since. Over "
                   f"{live_board.LIVE_MAX_MATCHES} matches the page does not rate them on "
                   "the fly: the run stores a new snapshot as it goes")
unit, per_natural = unit_of_config(config)
min_comparisons = int(config.get("min_comparisons", 30))


def _when(moment: object, form: str) -> str:
    return "—" if moment is None or pd.isna(moment) else f"{pd.Timestamp(moment):{form}}"


judges = ", ".join(sorted(query(ReadModel.judge_specs, f.tournament))) or "—"
last = query(ReadModel.date_range, f.tournament)[1]
head = st.columns([1, 1, 1, 1.5, 1.8])
head[0].metric("Participants", len(board))
head[1].metric("Matches", done, help="Matches of this tournament stored as done.")
head[2].metric("Games", len(query(ReadModel.game_names, f.tournament)))
head[3].metric("Judge", judges, help=judges)
head[4].metric("Last update (UTC)", _when(last, "%b %d %H:%M"),
               help="When the latest match was stored: " + _when(last, "%Y-%m-%d %H:%M:%S UTC"))
if len(running) and view.following:
    row = running.iloc[0]
    stored = query(ReadModel.tournament_config, f.tournament) if f.tournament else None
    pairing = (stored or {}).get("pairing")
    st.warning(progress_note(plain(f.tournament), int(row["run"]), int(row["finished"]),
                             int(row["total"]), adaptive=pairing == "adaptive"))
st.caption(f"Ratings: {source}.")
with st.expander("How to read this"):
    st.markdown(
        "- **Rating** (Bradley–Terry, Elo scale: mean 1000): a 400-point gap means the "
        "higher-rated participant is expected to beat the other about 10 times out of 11 on "
        "the same game, map and role. Comparisons come from scores on the same map: in eval "
        "mode each participant plays the main role against the same NPCs, and the higher "
        "score wins.\n"
        "- **95% interval** (low, high): the range the rating takes over bootstrap resamples "
        "of the matches, or of whole maps for an eval board with at least 4 maps of every "
        "game (its scores on a map move together; games weighted alike). Overlapping "
        "intervals mean the data cannot yet tell the two apart.\n"
        "- **Rank range**: the ranks a participant can take given the intervals that overlap "
        "its own, each read against the best-measured zero (the mean weighted by how precisely "
        "each is known: a rank compares participants with each other, so the uncertainty of "
        "the scale's zero does not count); a provisional row may rank anywhere. A single "
        "number on a row not provisional means its place is settled.\n"
        f"- **Provisional** (✱, hollow point): fewer than {min_comparisons} comparisons; and "
        "while a run is in progress every rating is provisional, computed from the matches "
        "stored so far.")


left, right = st.columns([3, 1])
with right:
    roles = sorted(query(ReadModel.participant_summary, f)["role"].unique())
    role = st.selectbox("Role", ["(all roles)", *roles], key="lb_role")
    min_matches = st.number_input("Minimum comparisons", min_value=0, value=0, step=1,
                                  key="lb_min")
narrowed = bool(f.games or f.judge or f.since or f.until or role != "(all roles)")

if narrowed:
    st.warning("Filters narrower than the snapshot (games, judge, dates or role): the ratings "
               "below are point estimates refitted on the selected matches, without intervals "
               "(intervals come from the stored snapshot of all matches).")
    board = compute(derived.point_ratings, f, None if role == "(all roles)" else role)
    board.insert(0, "rank", range(1, len(board) + 1))
if not need_rows(board, "rated participants"):
    st.stop()
board = board[board["n_comparisons"] >= min_matches]

summary = query(ReadModel.participant_summary, f)
matches = summary.groupby("participant")["matches"].sum()
board = board.assign(matches=[int(matches.get(p, 0)) for p in board["participant"]])
# The published Xent benchmark's score (issue 20), over the matches the filters select.
benchmark = from_seats(derived.seat_benchmark_scores)
board = board.assign(xent_benchmark=[benchmark.get(p) for p in board["participant"]])
# What each participant's rated seats cost (issue 33): the tournament's done matches
costs = participant_costs(query(ReadModel.seat_spend, f.tournament) if f.tournament else [])
spent = {p: costs[p].as_dict() if p in costs else {} for p in board["participant"]}
# tokens and dollars only when some player reported them (programs report none), so the
# table keeps to the page's width
paid = any(c.spend.tokens or c.spend.cost_usd for c in costs.values())
board = board.assign(**{column: [spent[p].get(key) for p in board["participant"]]
                        for column, key in COST_COLUMNS.items()
                        if paid or column == "move_s"})

with left:
    if not narrowed:
        st.altair_chart(charts.forest_plot(board, unit), width="stretch")
        st.caption(
            f"Bradley–Terry, {config.get('n_resamples', '?')} bootstrap resamples over "
            f"{RESAMPLED.get(str(config.get('resample', 'match')), 'matches')} "
            f"(games weighted alike), 95% percentile intervals. Rank range: the ranks a "
            f"participant can take given the intervals that overlap its own (read against the "
            f"best-measured zero; a provisional row may rank anywhere). Provisional "
            f"(hollow point, ✱ in the table): fewer than {min_comparisons} comparisons."
        )
table = board.copy()
people = set(query(ReadModel.people, f.tournament))  # players on the play page (human:web)
if people:  # the "person" mark: people rated beside the programs
    table.insert(table.columns.get_loc("participant") + 1, "kind",
                 ["person" if p in people else "program" for p in table["participant"]])
    rated = [f"{plain(str(r.participant))} {r.rating:.0f} [{r.ci_low:.0f}, {r.ci_high:.0f}]"
             if "ci_low" in table else f"{plain(str(r.participant))} {r.rating:.0f}"
             for r in table.itertuples() if r.participant in people]
    st.caption("👤 person: " + ("; ".join(rated) or "none in this view")
               + " (people play on the play page; kind tells them from the programs).")
if "provisional" in table:
    table["provisional"] = table["provisional"].map(lambda p: "✱" if p else "")
table.insert(table.columns.get_loc("participant") + 1, "page",
             [participant_link(str(p)) for p in table["participant"]])
if "rank_low" in board and any(c.measured for c in costs.values()):
    st.caption(plain(settled_cost(list(board.itertuples()), costs).sentence()))
tables.show(table, column_config={
    "rank_change": st.column_config.NumberColumn("Δ rank", format="%+d",
                                                 help="since the previous snapshot"),
    "page": st.column_config.LinkColumn("page", display_text="open",
                                        help="the participant's own page"),
    "tokens": st.column_config.NumberColumn(
        "tokens", format="%.0f", help="tokens its player reported over its rated seats "
        "(prompt and completion; empty: not measured, e.g. imported results)"),
    "usd": st.column_config.NumberColumn(
        "$", format="%.4f", help="dollars its player reported (litellm's cost map)"),
    "move_s": st.column_config.NumberColumn(
        "time (s)", format="%.1f", help="seconds its player took on its moves"),
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
pairs = query(ReadModel.head_to_head, f)
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
    "snapshot": None if view.live else view.number,
    "computed_live_from_matches": done if view.live else None,
    "tournament": f.tournament,
    "judge": f.judge or sorted(query(ReadModel.judge_specs, f.tournament)),
    "config_sha256": query(
        ReadModel.run_config_sha,
        (query(ReadModel.snapshot_payload, view.snapshot_id) or {}).get("run_id")
        if view.snapshot_id is not None and not view.live else None),
    "rating_config": config,
    "filters": {"games": list(f.games), "since": str(f.since or ""), "until": str(f.until or ""),
                "role": role, "min_comparisons": int(min_matches)},
}
header = "".join(f"# {k}: {json.dumps(v, sort_keys=True)}\n" for k, v in provenance.items())
c1, c2 = st.columns(2)
c1.download_button("Download CSV", header + board.to_csv(index=False),
                   file_name=f"leaderboard-{'live' if view.live else view.number}.csv",
                   mime="text/csv")
c2.download_button("Download JSON", json.dumps(
    {"provenance": provenance, "rows": json.loads(board.to_json(orient="records"))}, indent=2),
    file_name=f"leaderboard-{'live' if view.live else view.number}.json", mime="application/json")
