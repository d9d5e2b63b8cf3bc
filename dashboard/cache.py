"""The cached layer over the read model (`arena.storage.read_model.ReadModel`, with the
dashboard's own `arena.dashboard.data`) and `arena.dashboard.derived`: every call is keyed
by the database URL, the data watermark (last match / snapshot / run id) and its arguments,
so new data shows at once and unchanged data is never read twice.

Pages pass the query itself, typed: `query(ReadModel.matches, filters)`, `compute(
derived.point_ratings, filters)`, `from_seats(derived.seat_arms)`; mypy checks the
arguments against the query's own signature (no query is called by a string name).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from operator import attrgetter
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

import pandas as pd
import streamlit as st

from arena.dashboard.context import current, reader_for
from arena.dashboard.filters import Filters
from arena.storage.door import operation
from arena.storage.read_model import ReadModel

P = ParamSpec("P")
R = TypeVar("R")
READ_MODEL = "ReadModel"  # the key's owner of a read-model method


def _key(read: object) -> str:
    """A query's cache key: `ReadModel:<method>`, or `<module>:<function>` of a function
    that takes the read model (or the seats) first."""
    if isinstance(read, operation):
        return f"{READ_MODEL}:{read.name}"
    fn = cast(Callable[..., Any], read)
    return f"{fn.__module__}:{fn.__qualname__}"


def _resolve(key: str) -> Callable[..., Any]:
    where, name = key.split(":")
    return cast(Callable[..., Any], attrgetter(name)(importlib.import_module(where)))


def _read(key: str, url: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Run the query `key` now against the read model at `url`."""
    reader = reader_for(url)
    where, name = key.split(":")
    if where == READ_MODEL:
        return getattr(reader, name)(*args, **kwargs)
    return _resolve(key)(reader, *args, **kwargs)


@st.cache_data(show_spinner=False, max_entries=512)
def _call(
    key: str, url: str, watermark: tuple[int, ...], args: tuple[Any, ...],
    kwargs: tuple[tuple[str, Any], ...],
) -> Any:
    return _read(key, url, args, dict(kwargs))


def query(read: operation[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """`read(*args, **kwargs)`, a `ReadModel` method, on the page's read model, cached."""
    ctx = current()
    return cast(R, _call(_key(read), ctx.url, ctx.watermark, args,
                         tuple(sorted(kwargs.items()))))


def compute(read: Callable[Concatenate[ReadModel, P], R], *args: P.args,
            **kwargs: P.kwargs) -> R:
    """`read(reader, *args, **kwargs)`, a function of `arena.dashboard.derived` (ratings
    and normalisation over stored data) or `data` given the read model first, cached."""
    ctx = current()
    return cast(R, _call(_key(read), ctx.url, ctx.watermark, args,
                         tuple(sorted(kwargs.items()))))


@st.cache_resource(show_spinner=False, max_entries=4)
def _seats(url: str, watermark: tuple[int, ...], filters: Filters) -> pd.DataFrame:
    """The rated seats of the selected done matches (`ReadModel.scored_seats`), shared (not
    copied) by every page that normalises scores: reading them is the costly part over
    100 000 matches."""
    return reader_for(url).scored_seats(filters, rated_only=True)


@st.cache_data(show_spinner=False, max_entries=256)
def _on_seats(
    key: str, url: str, watermark: tuple[int, ...], filters: Filters, args: tuple[Any, ...],
    kwargs: tuple[tuple[str, Any], ...],
) -> Any:
    return _resolve(key)(_seats(url, watermark, filters), *args, **dict(kwargs))


def from_seats(read: Callable[Concatenate[pd.DataFrame, P], R], *args: P.args,
               **kwargs: P.kwargs) -> R:
    """`read(seats, *args)` over the `ReadModel.scored_seats` table the global filters
    select (a function of `arena.dashboard.derived`), cached."""
    ctx = current()
    return cast(R, _on_seats(_key(read), ctx.url, ctx.watermark, ctx.filters, args,
                             tuple(sorted(kwargs.items()))))


def query_at(url: str, watermark: tuple[int, ...], read: operation[P, R], *args: P.args,
             **kwargs: P.kwargs) -> R:
    """`query` before the page context exists (the entry script's sidebar)."""
    return cast(R, _call(_key(read), url, watermark, args, tuple(sorted(kwargs.items()))))


def fresh(read: operation[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """`query` read now, uncached (the Live page's auto-refresh)."""
    return cast(R, _read(_key(read), current().url, args, kwargs))


def fresh_compute(read: Callable[Concatenate[ReadModel, P], R], *args: P.args,
                  **kwargs: P.kwargs) -> R:
    """`compute` read now, uncached (what changes without new matches: a growing scope)."""
    return cast(R, _read(_key(read), current().url, args, kwargs))
