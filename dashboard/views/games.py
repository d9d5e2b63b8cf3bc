"""Games: the catalogue with header metadata, code, static-check status, score distribution
per role across all participants, and role advantage."""

from __future__ import annotations

import streamlit as st

from arena.dashboard import charts, derived, tables
from arena.dashboard.cache import compute, query
from arena.dashboard.context import current
from arena.dashboard.derived import role_advantage
from arena.dashboard.ui import need_rows
from arena.storage.read_model import ReadModel

ctx = current()
f = ctx.filters
st.title("Games")
catalogue = compute(derived.game_catalogue, f.tournament)
if not need_rows(catalogue, "games"):
    st.stop()
tables.show(catalogue.drop(columns=["source"]), labels={"check": "static check"})
keys = list(range(len(catalogue)))
index = st.selectbox("Game", keys, key="g_game", format_func=lambda i: (
    f"{catalogue.iloc[i]['name']} v{catalogue.iloc[i]['version']}"))
row = catalogue.iloc[index]
st.text(f"check: {row['check']}")
st.code(str(row["source"]), language=None, line_numbers=True)
scores = query(ReadModel.role_scores, f.with_games([str(row["name"])]))
if len(scores):
    st.altair_chart(charts.score_distribution(scores), width="stretch")
    tables.show(role_advantage(scores), labels={"mean": "mean (bits)", "std": "spread (bits)",
                                                "advantage": "advantage (bits)"},
                formats={"mean": "%.3f", "std": "%.3f", "advantage": "%+.3f"})
    st.caption("Advantage: the role's mean match score minus the mean over the game's roles "
               "(bits); all participants and NPCs included.")
else:
    st.info("No scored match of this game in the selection.")
