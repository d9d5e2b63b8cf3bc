"""The cached layer over `arena.dashboard.data` and `arena.dashboard.derived`: every call is
keyed by the
database URL, the data watermark (last match / snapshot / run id) and its arguments, so new
data shows at once and unchanged data is never read twice."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from arena.dashboard import data, derived
from arena.dashboard.context import current, engine_for
from arena.dashboard.filters import Filters

_MODULES = {"data": data, "derived": derived}


@st.cache_data(show_spinner=False, max_entries=512)
def _call(
    module: str, name: str, url: str, watermark: tuple[int, ...], args: tuple[Any, ...],
    kwargs: tuple[tuple[str, Any], ...],
) -> Any:
    return getattr(_MODULES[module], name)(engine_for(url), *args, **dict(kwargs))


def query(name: str, *args: Any, **kwargs: Any) -> Any:
    """`arena.dashboard.data.<name>(engine, *args, **kwargs)`, cached."""
    ctx = current()
    return _call("data", name, ctx.url, ctx.watermark, args, tuple(sorted(kwargs.items())))


def compute(name: str, *args: Any, **kwargs: Any) -> Any:
    """`arena.dashboard.derived.<name>(engine, *args, **kwargs)` (ratings and normalisation over
    stored data), cached."""
    ctx = current()
    return _call("derived", name, ctx.url, ctx.watermark, args, tuple(sorted(kwargs.items())))


@st.cache_resource(show_spinner=False, max_entries=4)
def _seats(url: str, watermark: tuple[int, ...], filters: Filters) -> pd.DataFrame:
    """The rated seats of the selected done matches (`data.scored_seats`), shared (not
    copied) by every page that normalises scores: reading them is the costly part over
    100 000 matches."""
    return data.scored_seats(engine_for(url), filters, rated_only=True)


@st.cache_data(show_spinner=False, max_entries=256)
def _on_seats(
    name: str, url: str, watermark: tuple[int, ...], filters: Filters, args: tuple[Any, ...]
) -> Any:
    return getattr(derived, name)(_seats(url, watermark, filters), *args)


def from_seats(name: str, *args: Any) -> Any:
    """`arena.dashboard.derived.<name>(seats, *args)` over the `data.scored_seats` table the global
    filters select, cached."""
    ctx = current()
    return _on_seats(name, ctx.url, ctx.watermark, ctx.filters, args)


def query_at(url: str, watermark: tuple[int, ...], name: str, *args: Any) -> Any:
    """`query` before the page context exists (the entry script's sidebar)."""
    return _call("data", name, url, watermark, args, ())


def fresh(name: str, *args: Any, **kwargs: Any) -> Any:
    """`arena.dashboard.data.<name>` read now, uncached (the Live page's auto-refresh)."""
    return getattr(data, name)(engine_for(current().url), *args, **kwargs)
