"""Pairwise: who beats whom. P(row beats column) predicted by the Bradley–Terry ratings
beside the observed win fraction over the same comparisons the ratings are fitted on, with
how many comparisons stand behind each observed cell."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from arena.dashboard import derived, pair_charts, tables
from arena.dashboard.board import board_of, say_which, shown, unit_of_config
from arena.dashboard.cache import compute, from_seats
from arena.dashboard.context import current
from arena.dashboard.derived import predicted_wins
from arena.dashboard.ui import need_rows
from arena.tournaments.ratings.bradley_terry import ELO_PER_NATURAL

ctx = current()
f = ctx.filters
st.title("Pairwise")

narrowed = bool(f.games or f.judge or f.since or f.until)
view = shown()
say_which(view)
if not narrowed and (view.live or view.snapshot_id is not None):
    board, config = board_of(view)
    _, per_natural = unit_of_config(config)
    source = ("the latest ratings (`arena ratings` of the stored matches)" if view.live
              else f"the ratings of snapshot #{view.number}")
else:
    per_natural = ELO_PER_NATURAL
    board = compute(derived.point_ratings, f)
    source = "ratings refitted on the selected matches (point estimates)"
observed = from_seats(derived.observed_wins)
if not need_rows(board, "rated participants"):
    st.stop()
order = list(board.sort_values("rating", ascending=False)["participant"])
predicted = predicted_wins(board, per_natural)

left, right = st.columns(2)
left.altair_chart(pair_charts.crosstable(predicted, "p_win", "predicted P(row beats column)",
                                         order), width="stretch")
if len(observed):
    right.altair_chart(pair_charts.crosstable(
        observed, "win_rate", "observed win fraction (comparisons)", order,
        counts="comparisons", legend="won"), width="stretch")
else:
    right.info("No comparisons among the selected matches yet.")
st.caption(
    f"Predicted: 1 / (1 + e^−(rating_row − rating_column)/s) from {source}, with s the "
    "rating unit's points per natural-log unit (Elo: 400/ln 10), role effects left out. "
    "Observed: the share of comparisons the row won (a tie counts half), over the "
    "comparisons the ratings are fitted on: two rated seats of one head-to-head match, or "
    "two eval matches of the same game, map, role and NPCs; the number in brackets is how "
    "many (several replays of one pair in one group count as one).")

pairs = predicted.merge(observed, on=["a", "b"], how="outer") if len(observed) else \
    predicted.assign(wins=float("nan"), comparisons=float("nan"), win_rate=float("nan"))
pairs = pairs.assign(difference=pairs["win_rate"] - pairs["p_win"])
rank = {name: i for i, name in enumerate(order)}
pairs = pairs.sort_values(["a", "b"], key=lambda s: s.map(lambda n: rank.get(n, len(rank))))
st.subheader("Every pair")
tables.show(pd.DataFrame(pairs), labels={"a": "row", "b": "column", "p_win": "predicted P(win)",
                                         "win_rate": "observed win fraction",
                                         "wins": "wins (ties half)"},
            formats={"wins": "%.1f", "comparisons": "%d", "difference": "%+.2f"})
