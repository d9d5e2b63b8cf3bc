"""Xent measure: per participant, the histogram over games of its normalised scores
(SCORING.md section 3), one panel each (overlaid bars hid a participant), with the ECDF
and the per-game table behind it."""

from __future__ import annotations

import json

import numpy as np
import streamlit as st

from arena.dashboard import charts, derived
from arena.dashboard.cache import from_seats, query
from arena.dashboard.context import current
from arena.dashboard.derived import NORMALISATIONS, histogram
from arena.dashboard.ui import need_rows
from arena.storage.read_model import ReadModel

ctx = current()
f = ctx.filters
st.title("Xent measure")

config_text = query(ReadModel.tournaments).set_index("name")["config_json"].get(f.tournament, "{}")
configured_base = json.loads(config_text or "{}").get("base")
people = sorted(query(ReadModel.participant_summary, f)["participant"].unique())
cols = st.columns(4)
how = cols[0].selectbox("Normalisation", NORMALISATIONS, key="x_how",
                        help="catch-up: rounds the base needs to reach the score, per round "
                        "played; narms: the paper's threshold levels; reference: percent of "
                        "the best score on each map.")
base_options = sorted(set(people) | ({configured_base} if configured_base else set()))
base = cols[1].selectbox("Base participant", base_options,
                         index=base_options.index(configured_base)
                         if configured_base in base_options else 0,
                         key="x_base", disabled=how == "reference") if base_options else None
theta = cols[2].number_input("narms θ (bits per level)", min_value=0.01, value=1.0, step=0.5,
                             key="x_theta", disabled=how != "narms")
levels = cols[3].number_input("narms levels m", min_value=1, value=2, step=1, key="x_m",
                              disabled=how != "narms")

values, notes = from_seats(derived.seat_normalised_scores, base, how, float(theta), int(levels))
for note in notes:
    st.caption(note)
if not need_rows(values, "normalised scores"):
    st.stop()
shown = st.multiselect("Participants", sorted(values["participant"].unique()),
                       default=sorted(values["participant"].unique()), key="x_people")
values = values[values["participant"].isin(shown)]
top = 100.0 * 1.5 if how == "reference" else (10.0 * int(levels) if how == "narms" else 10.0)
low = -100.0 if how == "reference" else 0.0
edges = np.linspace(low, top, 21)
unit = "percent of best" if how == "reference" else "normalised score"
left, right = st.columns(2)
left.altair_chart(charts.histogram_panels(histogram(values, edges), unit))
right.altair_chart(charts.ecdf(values, unit), width="stretch")
st.caption("Each game is one atom of mass 1/|games| (the paper's Xent measure), one panel "
           "per participant on a shared axis; values outside the axis are clipped into the "
           "end bins.")
table = values.pivot_table(index="game", columns="participant", values="value")
st.dataframe(table, width="stretch", placeholder="",
             column_config={str(c): st.column_config.NumberColumn(format="%.2f")
                            for c in table.columns})
