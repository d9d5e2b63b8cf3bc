"""Participant: one participant's page. Its rating and rank in every snapshot, its results
and Xent-measure value per game (strongest and weakest first and last), its recent matches
with links to their replays, the specs it played under (secrets redacted), and the tokens,
cost and time its moves took. Opened as ``participant?name=NAME``."""

from __future__ import annotations

import streamlit as st

from arena.dashboard import derived, participant_charts, tables
from arena.dashboard.board import board_of, say_which, shown, unit_of_config
from arena.dashboard.cache import compute, from_seats, query
from arena.dashboard.context import current
from arena.dashboard.derived import with_reference_ranks
from arena.dashboard.ui import page_param, plain, replay_link, set_page_param
from arena.storage.read_model import ReadModel

RECENT = 20
SHOWN_GAMES = 3  # strongest and weakest games named above the table

ctx = current()
f = ctx.filters
st.title("Participant")

names = sorted(query(ReadModel.participant_summary, f)["participant"].unique())
if not names:
    st.info(f"No rated participant has a stored match in tournament {plain(f.tournament)} "
            "with these filters. Widen the filters in the sidebar.")
    st.stop()
linked = page_param("name")
if linked in names and "pp_name" not in st.session_state:
    st.session_state["pp_name"] = linked
elif st.session_state.get("pp_name") not in names:
    st.session_state.pop("pp_name", None)
if linked is not None and linked not in names:
    st.warning(f"No participant {plain(linked)} in this selection; showing another. "
               f"Participants: {plain(', '.join(names))}.")
name = st.selectbox("Participant", names, key="pp_name")
set_page_param("name", name)

history = compute(derived.participant_history, f.tournament, name)
view = shown()
say_which(view)
board, config = board_of(view)
unit, _ = unit_of_config(config)
summary = query(ReadModel.participant_summary, f)
mine = summary[summary["participant"] == name]
cols = st.columns(4)
rated = board[board["participant"] == name]
if len(rated):
    row = rated.iloc[0]
    where = ("rated now from the stored matches" if view.live
             else f"snapshot #{view.number}")
    cols[0].metric("Rating", f"{row['rating']:.1f}",
                   help=f"95% interval {row['ci_low']:.1f} to {row['ci_high']:.1f} ({unit}), "
                   f"{where}" + (", provisional" if bool(row["provisional"]) else ""))
    cols[1].metric("Rank", f"{int(row['rank'])} of {len(board)}")
cols[2].metric("Matches", int(mine["matches"].sum()))
cols[3].metric("Forfeits", int(mine["forfeits"].sum()))

st.subheader("Rating and rank over time")
if len(history):
    left, right = st.columns(2)
    left.altair_chart(participant_charts.rating_path(history, unit), width="stretch")
    right.altair_chart(participant_charts.rank_path(history), width="stretch")
else:
    st.info("No rating snapshot of this tournament rates this participant yet.")

st.subheader("Per game")
reference, _missing = from_seats(derived.seat_normalised_scores, None, "reference", 1.0,
                                 2)  # shared
games = with_reference_ranks(from_seats(derived.participant_games, name), reference, name)
if len(games):
    ranked = games.dropna(subset=["percent_of_best"])
    if len(ranked):
        named = max(1, min(SHOWN_GAMES, len(ranked) // 2))  # no game both strong and weak
        best = ranked.head(named)
        worst = ranked.tail(named).iloc[::-1]
        st.text("Strongest: " + ", ".join(
            f"{g} ({v:.0f}% of best)" for g, v in zip(best["game"], best["percent_of_best"],
                                                      strict=True)))
        st.text("Weakest: " + ", ".join(
            f"{g} ({v:.0f}% of best)" for g, v in zip(worst["game"], worst["percent_of_best"],
                                                      strict=True)))
    tables.show(games, labels={"percent_of_best": "Xent measure (% of best)",
                               "game_rank": "rank on game", "of": "of"},
                formats={"percent_of_best": "%.1f", "game_rank": "%d", "of": "%d"})
    st.caption("Xent measure: the match score as percent of the best score any participant "
               "reached on the same map (reference normalisation; the Xent measure page has "
               "catch-up and narms), averaged over the game's maps; rank on game by that value.")

st.subheader("Recent matches")
recent = query(ReadModel.matches, f, participant=name, limit=RECENT)
if len(recent):
    ref = recent["key"] if "key" in recent else recent["match"]
    recent.insert(0, "replay", [replay_link(str(r)) for r in ref])
    tables.show(recent, labels={"match": "id"}, column_config={
        "replay": st.column_config.LinkColumn("replay", display_text="open")})

st.subheader("Spec and metadata")
tables.show(query(ReadModel.participant_specs, name), labels={"params": "parameters"})
st.caption("Secret parameters and anything that looks like a key are shown as ***.")

st.subheader("Tokens, cost and time per move")
usage = query(ReadModel.participant_usage, f, name)
moves = int(usage["moves"].sum()) if len(usage) else 0
if moves:
    tokens = usage["prompt_tokens"].sum() + usage["completion_tokens"].sum()
    per_move = (usage["duration_s"] / usage["match_moves"].clip(lower=1)).mean()
    cols = st.columns(4)
    cols[0].metric("Moves", moves)
    cols[1].metric("Tokens per move", f"{tokens / moves:.0f}")
    cols[2].metric("Cost per move (USD)", f"{usage['cost_usd'].sum() / moves:.4f}")
    cols[3].metric("Seconds per move", f"{per_move:.2f}")
    st.caption(f"Over its {len(usage)} most recent matches. Tokens and cost as its player "
               "reported them (0: the player reports none, as local players do). Seconds per "
               "move: each match's duration over all its seats' moves (the time of a single "
               "move is not stored).")
else:
    st.caption("No stored move of this participant in the selection.")
