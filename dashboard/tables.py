"""How every page shows a table: human column labels, rounded numbers, empty cells for
missing values (Streamlit draws "None" otherwise), full UTC timestamps and short hashes.

`show(frame)` is `st.dataframe` with that done; `prepare(frame)` is the pure part (the
frame as shown and its column configuration), tested without a browser. The frame's own
column names stay as they are (pages and tests select by them); only the labels change.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

TIME_FORMAT = "YYYY-MM-DD HH:mm:ss"  # moment.js, as st.column_config.DatetimeColumn takes it
SHORT_HASH = 12  # hex digits kept of a sha256 (what `arena matches` prints)
FLOAT_FORMAT = "%.2f"
MISSING = ""  # what a missing value shows as

# Labels a plain "snake_case -> words" rule would get wrong or leave unclear.
LABELS: dict[str, str] = {
    "ci_low": "95% low",
    "ci_high": "95% high",
    "rank_low": "best rank",
    "rank_high": "worst rank",
    "rank_change": "Δ rank",
    "n_comparisons": "comparisons",
    "mean_score": "mean score (bits)",
    "best_score": "best score (bits)",
    "best": "score (bits)",
    "matches_per_min": "matches/min",
    "eta_s": "ETA (s)",
    "duration_s": "duration (s)",
    "interval_s": "every (s)",
    "lease_owner": "running on",
    "lease_until": "lease until (UTC)",
    "last_run_status": "last run",
    "tournament_file": "tournament file",
    "tournament_run_id": "tournament run",
    "snapshot_id": "snapshot",
    "config_sha256": "config hash",
    "code_sha256": "code hash",
    "setting_sha256": "setting hash",
    "game_sha256": "game hash",
    "source_sha256": "source hash",
    "target_sha256": "target hash",
    "win_rate": "win rate",
    "p_win": "P(win)",
    "budget_tokens": "token budget",
    "map_index": "map",
    "in_flight": "in flight",
    "mean_batch_size": "mean batch size",
    "cache_hit_rate": "cache hit rate",
    "tokens_per_s": "tokens/s",
    "queue_depth": "queue depth",
    "running_on": "running on",
    "next_run_at": "next run (UTC)",
    "last_run_at": "last run (UTC)",
}

# Number formats (printf style, as st.column_config.NumberColumn takes them) by column name.
FORMATS: dict[str, str] = {
    "rating": "%.1f",
    "ci_low": "%.1f",
    "ci_high": "%.1f",
    "rank_change": "%+d",
    "mean_score": "%.3f",
    "best_score": "%.3f",
    "best": "%.3f",
    "matches_per_min": "%.1f",
    "eta_s": "%.0f",
    "duration_s": "%.2f",
    "interval_s": "%.0f",
    "win_rate": "%.2f",
    "p_win": "%.2f",
    "cache_hit_rate": "%.2f",
    "tokens_per_s": "%.1f",
}

_HEX64 = re.compile(r"^(?:[a-z0-9_-]+:)?[0-9a-f]{64}$")


def label(name: str) -> str:
    """A column's label: `LABELS`, else the words of its snake_case name, with a unit for
    `_s` (seconds) and `(UTC)` for `_at` (a time)."""
    if name in LABELS:
        return LABELS[name]
    words = name
    suffix = ""
    if words.endswith("_at"):
        words, suffix = words[:-3], " (UTC)"
    elif words.endswith("_s"):
        words, suffix = words[:-2], " (s)"
    elif words.endswith("_sha256"):
        words, suffix = words[:-7], " hash"
    return words.replace("_", " ").strip() + suffix


def short_hash(value: object) -> object:
    """A sha256 (or a prefixed key such as ``import:<sha256>``) cut to its first 12 hex
    digits; anything else unchanged."""
    if not isinstance(value, str) or not _HEX64.match(value):
        return value
    prefix, _, digest = value.rpartition(":")
    return f"{prefix}:{digest[:SHORT_HASH]}" if prefix else digest[:SHORT_HASH]


def _is_hash_column(series: pd.Series) -> bool:
    """By name only: a column of player text (moves) that happens to look like hashes
    must show as the player wrote it."""
    name = str(series.name)
    return name.endswith("sha256") or name in ("key", "hash", "match_key")


def _as_times(series: pd.Series) -> pd.Series | None:
    """The column as UTC-naive timestamps when it holds times (datetimes, or `*_at` text as
    SQLite returns it); None otherwise."""
    if pd.api.types.is_datetime64_any_dtype(series):
        return series.dt.tz_convert(None) if series.dt.tz is not None else series
    name = str(series.name)
    values = series.dropna()
    if not len(values) or not (name.endswith("_at") or name.endswith("_until")
                               or values.map(lambda v: isinstance(v, pd.Timestamp)
                                             or hasattr(v, "tzinfo")).all()):
        return None
    try:
        return pd.to_datetime(series, utc=True, format="mixed").dt.tz_convert(None)
    except (ValueError, TypeError):
        return None


def prepare(frame: pd.DataFrame, labels: Mapping[str, str | None] | None = None,
            formats: Mapping[str, str] | None = None) -> tuple[pd.DataFrame, dict[str, Any]]:
    """`frame` as shown (hashes shortened, times parsed) and its column configuration
    (labels, number and time formats). `labels`/`formats` override the defaults per column;
    a label of ``None`` hides a column."""
    overrides = dict(labels or {})
    formats = {**FORMATS, **(formats or {})}
    shown = frame.copy()
    config: dict[str, Any] = {}
    for name in shown.columns:
        key = str(name)
        if key in overrides and overrides[key] is None:
            config[key] = None  # hidden
            continue
        text = overrides.get(key) or label(key)
        series = shown[name]
        if pd.api.types.is_bool_dtype(series):
            config[key] = st.column_config.CheckboxColumn(text)
        elif pd.api.types.is_numeric_dtype(series):
            fmt = formats.get(key)
            if fmt is None and pd.api.types.is_float_dtype(series):
                integral = series.dropna()
                fmt = "%d" if len(integral) and (integral == integral.round()).all() \
                    and key not in FORMATS else FLOAT_FORMAT
            config[key] = st.column_config.NumberColumn(text, format=fmt)
        elif (times := _as_times(series)) is not None:
            shown[name] = times
            text = text if "UTC" in text else f"{text} (UTC)"  # stored times are UTC
            config[key] = st.column_config.DatetimeColumn(text, format=TIME_FORMAT,
                                                          width="medium")
        elif _is_hash_column(series):
            shown[name] = series.map(short_hash)
            config[key] = st.column_config.TextColumn(text, help="first 12 hex digits")
        else:
            config[key] = st.column_config.TextColumn(text)
    return shown, config


def show(frame: pd.DataFrame, *, labels: Mapping[str, str | None] | None = None,
         formats: Mapping[str, str] | None = None,
         column_config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
    """`st.dataframe` of `frame` as `prepare` shows it (`column_config` entries win over the
    prepared ones; other keywords go to `st.dataframe`). Index hidden, full width, missing
    values as empty cells."""
    shown, config = prepare(frame, labels, formats)
    config.update(column_config or {})
    kwargs.setdefault("hide_index", True)
    kwargs.setdefault("width", "stretch")
    return st.dataframe(shown, column_config=config, placeholder=MISSING, **kwargs)
