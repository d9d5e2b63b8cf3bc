"""Scopes: the scopes grown by Algorithm 1 (`arena scope grow`), each with its rounds
(Σ_0, then the games Ω_k each round added), its transfer covers and its whole archive,
accepted and rejected candidates with their gamma and decision. Read uncached: a growing
scope changes without a new match, which the cache keys on."""

from __future__ import annotations

import streamlit as st

from arena.dashboard import data, tables
from arena.dashboard.cache import fresh, fresh_compute
from arena.storage.read_model import ReadModel

st.title("Scopes")
scopes = fresh(ReadModel.scope_list)
if not len(scopes):
    st.info("No scope grown yet. Grow one with arena scope grow \\-\\-name NAME \\-\\-from GAME "
            "\\-\\-db URL, then reload; a tournament file plays it with games = \"scope:NAME\".")
    st.stop()
tables.show(scopes)
names = list(scopes["scope"])
name = st.selectbox("Scope", names, key="s_scope")
view = fresh_compute(data.scope_view, name)
if view is None:  # removed since the list was read
    st.info("That scope is no longer in the database; reload.")
    st.stop()
st.text(f"status {view['status']}, round {view['round']}, {view['candidates']} candidate(s), "
        f"{view['weighed']} weighed and not accepted")
with st.expander("Parameters"):
    st.json(view["params"])
st.subheader("Rounds")
tables.show(view["rounds"])
st.subheader("Transfer covers (Def. 45)")
tables.show(view["covers"])
st.caption("Δ_Γ(Σ) = min over G in Σ of max over G' in Γ of V_G'(G), over the transfer values "
           "the growth measured (V_G(G) = 1); a game with no measured value from Γ is counted "
           "in the last column and left out of the minimum.")
st.subheader("Optimal η-covers (Def. 45) and the benchmark (Def. 47)")
tables.show(view["eta_covers"])
st.caption("The fewest games of the scope whose measured transfer values reach every game at "
           "η or more (then the largest transfer cover); Def. 47's benchmark measure is the "
           "histogram of a model's scores over them. A tournament plays one with games = "
           "\"scope:NAME?cover=η\".")
st.subheader("Archive")
tables.show(view["archive"])
st.caption("in scope: an initial game or an accepted candidate; gamma: the largest transfer "
           "value from a game of the scope to the candidate, when measured; decision: why the "
           "growth kept it or stopped at it.")
shown = st.selectbox("Show a game's code", list(view["sources"]), key="s_game")
if shown is not None:
    st.code(view["sources"][shown], language=None)
