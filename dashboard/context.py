"""The state every page reads: the database, the global filters and the data watermark,
set by the entry script (`dashboard/app.py`) on each run before the page runs."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from arena.dashboard.filters import Filters
from arena.storage.read_model import ReadModel

_KEY = "_dashboard_context"


@dataclass(frozen=True)
class Context:
    url: str
    filters: Filters
    watermark: tuple[int, ...]


def set_current(context: Context) -> None:
    st.session_state[_KEY] = context


def current() -> Context:
    found = st.session_state.get(_KEY)
    if not isinstance(found, Context):  # a page run without the entry script
        st.error("Open the dashboard through its entry script: streamlit run dashboard/app.py")
        st.stop()
    return found


@st.cache_resource(show_spinner=False)
def reader_for(url: str) -> ReadModel:
    """One read model (a read-only database) per database URL for the whole server
    (`StorageError` with the fix when the database cannot be opened)."""
    return ReadModel.open(url)
