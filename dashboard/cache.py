"""The cached layer over `dashboard.data` and `dashboard.derived`: every call is keyed by the
database URL, the data watermark (last match / snapshot / run id) and its arguments, so new
data shows at once and unchanged data is never read twice."""

from __future__ import annotations

from typing import Any

import streamlit as st

from dashboard import data, derived
from dashboard.context import current, engine_for

_MODULES = {"data": data, "derived": derived}


@st.cache_data(show_spinner=False, max_entries=512)
def _call(
    module: str, name: str, url: str, watermark: tuple[int, ...], args: tuple[Any, ...],
    kwargs: tuple[tuple[str, Any], ...],
) -> Any:
    return getattr(_MODULES[module], name)(engine_for(url), *args, **dict(kwargs))


def query(name: str, *args: Any, **kwargs: Any) -> Any:
    """`dashboard.data.<name>(engine, *args, **kwargs)`, cached."""
    ctx = current()
    return _call("data", name, ctx.url, ctx.watermark, args, tuple(sorted(kwargs.items())))


def compute(name: str, *args: Any, **kwargs: Any) -> Any:
    """`dashboard.derived.<name>(engine, *args, **kwargs)` (ratings and normalisation over
    stored data), cached."""
    ctx = current()
    return _call("derived", name, ctx.url, ctx.watermark, args, tuple(sorted(kwargs.items())))


def fresh(name: str, *args: Any, **kwargs: Any) -> Any:
    """`dashboard.data.<name>` read now, uncached (the Live page's auto-refresh)."""
    return getattr(data, name)(engine_for(current().url), *args, **kwargs)
