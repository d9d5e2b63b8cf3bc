"""Playability: running-max (arms_k) curves per game and role, per participant, against the
base participant (SCORING.md section 3)."""

from __future__ import annotations

import json

import streamlit as st

from arena.dashboard import charts, derived
from arena.dashboard.cache import from_seats, query
from arena.dashboard.context import current
from arena.dashboard.ui import need_rows
from arena.storage.read_model import ReadModel

ctx = current()
f = ctx.filters
st.title("Playability")
curves = from_seats(derived.seat_arms)
if not need_rows(curves, "scored matches"):
    st.stop()
config = json.loads(query(ReadModel.tournaments).set_index("name")["config_json"].get(
    f.tournament, "{}") or "{}")
base = config.get("base")
cells = sorted({(g, r) for g, r in zip(curves["game"], curves["role"], strict=True)})
cell = st.selectbox("Game and role", cells, format_func=lambda c: f"{c[0]} / {c[1]}",
                    key="p_cell")
chosen = curves[(curves["game"] == cell[0]) & (curves["role"] == cell[1])]
st.altair_chart(charts.arms_chart(chosen, base), width="stretch")
st.caption("arms_k: the best score among the first k rounds, averaged over maps (forfeits "
           "count as the worst score on the map minus one bit). Dashed: the base participant. "
           "A game is playable for the base when its curve rises: catch-up scores need that.")
arms = chosen.pivot_table(index="round", columns="participant", values="arms")
st.dataframe(arms, width="stretch", placeholder="",
             column_config={str(c): st.column_config.NumberColumn(format="%.3f")
                            for c in arms.columns})
