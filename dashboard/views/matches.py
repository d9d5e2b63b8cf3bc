"""Matches: a filterable table of stored matches; picking a row opens its replay."""

from __future__ import annotations

import streamlit as st

from arena.dashboard import tables
from arena.dashboard.cache import query
from arena.dashboard.context import current
from arena.dashboard.ui import link_params, need_rows, replay_link
from arena.storage.read_model import MATCH_TABLE_LIMIT, ReadModel

ctx = current()
f = ctx.filters
st.title("Matches")

summary = query(ReadModel.participant_summary, f)
cols = st.columns(5)
participant = cols[0].selectbox("Participant", ["(any)", *sorted(summary["participant"].unique())],
                                key="m_participant")
role = cols[1].selectbox("Role", ["(any)", *sorted(summary["role"].unique())], key="m_role")
status = cols[2].selectbox("Status", ["(any)", "done", "error"], key="m_status")
map_index = cols[3].number_input("Map index", min_value=-1, value=-1, step=1, key="m_map",
                                 help="-1: every map")
use_range = cols[4].toggle("Score range", key="m_use_range")
score_range = None
if use_range:
    score_range = st.slider("Match score (bits) of a seat", -50.0, 50.0, (-50.0, 50.0),
                            key="m_range")

frame = query(ReadModel.matches, f,
    participant=None if participant == "(any)" else participant,
    role=None if role == "(any)" else role,
    status=None if status == "(any)" else status,
    map_index=None if map_index < 0 else int(map_index),
    score_range=score_range,
)
total = query(ReadModel.match_count, f)
st.caption(f"{len(frame)} match(es) shown (newest first, at most {MATCH_TABLE_LIMIT}); "
           f"{total} in the filtered tournament. Select a row to open its replay.")
if not need_rows(frame, "matches"):
    st.stop()
ref = frame["key"] if "key" in frame else frame["match"]  # the short key when stored
frame.insert(0, "replay", [replay_link(str(r)) for r in ref])
event = tables.show(
    frame, on_select="rerun", selection_mode="single-row", key="m_table",
    labels={"match": "id"},
    column_config={"replay": st.column_config.LinkColumn("replay", display_text="open")},
)
rows = event.selection.rows if event is not None else []
if rows:
    st.switch_page("views/replay.py", query_params=link_params(match=str(ref.iloc[rows[0]])))
