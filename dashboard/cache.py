"""The cached layer over the read model (`arena.storage.read_model.ReadModel`, with the
dashboard's own `arena.dashboard.data`) and `arena.dashboard.derived`: every call is keyed
by the database URL, the data watermark (last match / snapshot / run id) and its arguments,
so new data shows at once and unchanged data is never read twice."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from arena.dashboard import data, derived
from arena.dashboard.context import current, reader_for
from arena.dashboard.filters import Filters


def _read(module: str, name: str, url: str, args: tuple[Any, ...], kwargs: dict[str, Any]
          ) -> Any:
    """Read `name` now: a read-model method, or a function of `data` / `derived` given the
    read model first."""
    reader = reader_for(url)
    if module == "data" and not hasattr(data, name):
        return getattr(reader, name)(*args, **kwargs)
    return getattr(data if module == "data" else derived, name)(reader, *args, **kwargs)


@st.cache_data(show_spinner=False, max_entries=512)
def _call(
    module: str, name: str, url: str, watermark: tuple[int, ...], args: tuple[Any, ...],
    kwargs: tuple[tuple[str, Any], ...],
) -> Any:
    return _read(module, name, url, args, dict(kwargs))


def query(name: str, *args: Any, **kwargs: Any) -> Any:
    """The read model's `<name>(*args, **kwargs)` (or `arena.dashboard.data.<name>(reader,
    ...)`), cached."""
    ctx = current()
    return _call("data", name, ctx.url, ctx.watermark, args, tuple(sorted(kwargs.items())))


def compute(name: str, *args: Any, **kwargs: Any) -> Any:
    """`arena.dashboard.derived.<name>(reader, *args, **kwargs)` (ratings and normalisation
    over stored data), cached."""
    ctx = current()
    return _call("derived", name, ctx.url, ctx.watermark, args, tuple(sorted(kwargs.items())))


@st.cache_resource(show_spinner=False, max_entries=4)
def _seats(url: str, watermark: tuple[int, ...], filters: Filters) -> pd.DataFrame:
    """The rated seats of the selected done matches (`ReadModel.scored_seats`), shared (not
    copied) by every page that normalises scores: reading them is the costly part over
    100 000 matches."""
    return reader_for(url).scored_seats(filters, rated_only=True)


@st.cache_data(show_spinner=False, max_entries=256)
def _on_seats(
    name: str, url: str, watermark: tuple[int, ...], filters: Filters, args: tuple[Any, ...]
) -> Any:
    return getattr(derived, name)(_seats(url, watermark, filters), *args)


def from_seats(name: str, *args: Any) -> Any:
    """`arena.dashboard.derived.<name>(seats, *args)` over the `ReadModel.scored_seats` table
    the global filters select, cached."""
    ctx = current()
    return _on_seats(name, ctx.url, ctx.watermark, ctx.filters, args)


def query_at(url: str, watermark: tuple[int, ...], name: str, *args: Any) -> Any:
    """`query` before the page context exists (the entry script's sidebar)."""
    return _call("data", name, url, watermark, args, ())


def fresh(name: str, *args: Any, **kwargs: Any) -> Any:
    """`query` read now, uncached (the Live page's auto-refresh)."""
    return _read("data", name, current().url, args, kwargs)
