"""Crosstables of participants: a heat map per pair of P(row beats column), predicted by
the Bradley–Terry ratings or observed, each cell's number written in it (with the
comparisons behind an observed one). Pure functions of DataFrames."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from arena.dashboard.charts import LABEL_LIMIT_PX, ROWS_AUTOSIZE, AnyChart

CELL_FONT = 11
CELL_PX = 40  # a row of the crosstable: room for "0.62 (13)"


def crosstable(frame: pd.DataFrame, value: str, title: str, order: Sequence[str],
               counts: str | None = None, legend: str = "P(win)") -> AnyChart:
    """Participant x participant heat map of `value` (a probability, columns a, b) on a
    diverging scale centred on 0.5, rows and columns in `order` (strongest first); with
    `counts`, each cell also shows that column's number, e.g. "0.62 (13)"."""
    shown = frame.assign(cell=[
        f"{v:.2f}" + (f" ({n:.0f})" if counts else "")
        for v, n in zip(frame[value], frame[counts] if counts else frame[value], strict=True)
    ]) if len(frame) else frame.assign(cell=pd.Series(dtype=str))
    names = list(order)
    base = alt.Chart(shown).encode(
        x=alt.X("b:N", sort=names, title="against (column)",
                axis=alt.Axis(labelAngle=-30, labelLimit=LABEL_LIMIT_PX)),
        y=alt.Y("a:N", sort=names, title=None, axis=alt.Axis(labelLimit=LABEL_LIMIT_PX)),
    )
    tooltip = ["a", "b", alt.Tooltip(f"{value}:Q", format=".3f", title=title)]
    if counts:
        tooltip.append(alt.Tooltip(f"{counts}:Q", format=".1f", title="comparisons"))
    rect = base.mark_rect(stroke="white").encode(
        color=alt.Color(f"{value}:Q", title=legend,
                        scale=alt.Scale(scheme="redblue", domain=[0, 1], domainMid=0.5)),
        tooltip=tooltip,
    )
    text = base.mark_text(fontSize=CELL_FONT).encode(
        text="cell:N",
        color=alt.condition(f"datum.{value} < 0.2 || datum.{value} > 0.8",
                            alt.value("white"), alt.value("black")),
    )
    return (rect + text).properties(title=title, height=CELL_PX * max(len(names), 2),
                                    autosize=ROWS_AUTOSIZE)
