"""Charts of one participant's page: its rating (with the 95% interval) and its rank in
every stored snapshot. Pure functions of DataFrames (tested on their specs)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from arena.dashboard.charts import INK, AnyChart, snapshot_label


def _with_labels(history: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    labels = [snapshot_label(s, c) for s, c in zip(history["snapshot"], history["created_at"],
                                                    strict=True)]
    return history.assign(snapshot_at=labels), labels


def _x(labels: list[str]) -> alt.X:
    return alt.X("snapshot_at:O", sort=labels, title="snapshot",
                 axis=alt.Axis(labelAngle=-30, labelLimit=160))


def rating_path(history: pd.DataFrame, unit: str) -> AnyChart:
    """Rating per snapshot with its 95% interval as a rule (columns snapshot, created_at,
    rating, ci_low, ci_high; `derived.participant_history`)."""
    frame, labels = _with_labels(history)
    base = alt.Chart(frame).encode(x=_x(labels))
    interval = base.mark_rule(strokeWidth=3, opacity=0.4, color=INK).encode(
        y=alt.Y("ci_low:Q", title=f"rating ({unit}), 95% interval",
                scale=alt.Scale(zero=False)),
        y2="ci_high:Q")
    line = base.mark_line(point=True, color=INK).encode(
        y="rating:Q",
        tooltip=["snapshot", alt.Tooltip("rating:Q", format=".1f"),
                 alt.Tooltip("ci_low:Q", format=".1f"), alt.Tooltip("ci_high:Q", format=".1f")])
    return alt.layer(interval, line)


def rank_path(history: pd.DataFrame) -> AnyChart:
    """Rank by rating per snapshot, 1 at the top (columns snapshot, created_at, rank, of)."""
    frame, labels = _with_labels(history)
    worst = int(frame["of"].max()) if len(frame) else 1
    return alt.Chart(frame).mark_line(point=True, interpolate="step-after", color=INK).encode(
        x=_x(labels),
        y=alt.Y("rank:Q", title="rank", scale=alt.Scale(domain=[worst, 1], nice=False),
                axis=alt.Axis(tickMinStep=1, format="d")),
        tooltip=["snapshot", "rank", alt.Tooltip("of:Q", title="participants")],
    )
