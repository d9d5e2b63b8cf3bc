"""Chart builders: pure functions from DataFrames to Altair charts (tested on their specs).

Player text (tokens, moves, names) only ever enters a chart as data: Vega draws it as SVG
text, never parses it as HTML or markdown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd

AnyChart = Any  # an Altair chart (Chart, LayerChart or FacetChart); its chaining API is untyped
_FONT = 11
FOREST_ROW_PX = 26
LABEL_LIMIT_PX = 260
INK = "#1f4e8c"  # the single-series colour (forest plot)
# Participant colours: every one at least 3:1 contrast on the white page (WCAG's bar for
# graphics), unlike Vega's default palette whose yellow and light grey barely show.
PARTICIPANT_COLOURS = (
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b",
    "#e7298a", "#555555", "#b35806", "#008b8b", "#6b6b00",
)
PARTICIPANT_SCALE: Any = alt.Scale(range=list(PARTICIPANT_COLOURS))


def _participant_colour(title: str | None = "participant") -> Any:
    # legend symbols fully opaque: they would otherwise take a faint band's opacity
    return alt.Color("participant:N", scale=PARTICIPANT_SCALE, title=title,
                     legend=alt.Legend(symbolOpacity=1))


def rows_height(rows: int) -> int:
    """A fixed row height per category (the plot area's height; see `ROWS_AUTOSIZE`)."""
    return FOREST_ROW_PX * max(rows, 1)


# Streamlit's default autosize "fit" squeezes axes and legends into the chart's height, which
# squashed every row of a one-row-per-participant chart into one band; "fit-x" fits the width
# to the page and leaves the height to the rows.
ROWS_AUTOSIZE: Any = alt.AutoSizeParams(type="fit-x", contains="padding")


def forest_plot(board: pd.DataFrame, unit: str) -> AnyChart:
    """Ratings with their intervals (a CI forest plot): one row per participant, best at the
    top, the interval a rule and the rating a point (hollow when provisional). The height
    grows with the number of participants, so names never share a row.
    Columns: participant, rating, ci_low, ci_high, provisional."""
    order = list(board.sort_values("rating", ascending=False)["participant"])
    base = alt.Chart(board).encode(
        y=alt.Y("participant:N", sort=order, title=None,
                scale=alt.Scale(domain=order, paddingInner=0.3, paddingOuter=0.3),
                axis=alt.Axis(labelLimit=LABEL_LIMIT_PX, labelOverlap=False)),
        tooltip=["participant", alt.Tooltip("rating:Q", format=".1f"),
                 alt.Tooltip("ci_low:Q", format=".1f"), alt.Tooltip("ci_high:Q", format=".1f"),
                 "provisional"],
    )
    rule = base.mark_rule(strokeWidth=2, color=INK).encode(
        x=alt.X("ci_low:Q", title=f"rating ({unit}), 95% interval", scale=alt.Scale(zero=False),
                axis=alt.Axis(labelFlush=True)),  # the last label ("2,000") stays whole
        x2="ci_high:Q",
    )
    point = base.mark_point(size=80, filled=True).encode(
        x=alt.X("rating:Q", scale=alt.Scale(zero=False)),
        fill=alt.condition("datum.provisional", alt.value("white"), alt.value(INK)),
        stroke=alt.value(INK),
    )
    # Room on the right: the axis's last label ("2,000") was cut at the column's edge.
    return (rule + point).properties(height=forest_height(len(order)), autosize=ROWS_AUTOSIZE,
                                     padding={"left": 5, "top": 5, "bottom": 5, "right": 24})


def forest_height(participants: int) -> int:
    """The forest plot's height in pixels: a fixed row per participant (a container-sized
    height would squash 50 names into the space of 3)."""
    return rows_height(participants)


PAIR_LEGENDS = {"p_win": "P(win)", "win_rate": "won", "comparisons": "n"}


def pair_matrix(frame: pd.DataFrame, value: str, title: str, fmt: str = ".2f") -> AnyChart:
    """A participant x participant heat map of `value` (columns a, b, value), row beats column."""
    names = sorted(set(frame["a"]) | set(frame["b"])) if len(frame) else []
    base = alt.Chart(frame).encode(
        x=alt.X("b:N", sort=names, title="against"),
        y=alt.Y("a:N", sort=names, title=None),
    )
    share = value in ("p_win", "win_rate")
    # The Pairwise page's colours (red: the row loses, blue: it wins) and a short legend
    # title: the chart's own title says what it is (a long one was cut off).
    rect = base.mark_rect(stroke="white").encode(
        color=alt.Color(f"{value}:Q", scale=alt.Scale(scheme="redblue", domain=[0, 1],
                                                      domainMid=0.5)
                        if share else alt.Scale(scheme="greens"),
                        title=PAIR_LEGENDS.get(value, value)),
        tooltip=["a", "b", alt.Tooltip(f"{value}:Q", format=fmt, title=title)],
    )
    text = base.mark_text(fontSize=_FONT).encode(
        text=alt.Text(f"{value}:Q", format=fmt),
        color=alt.condition(f"datum.{value} < 0.2 || datum.{value} > 0.8", alt.value("white"),
                            alt.value("black")) if share else alt.value("black"))
    return (rect + text).properties(title=title, height=rows_height(len(names)),
                                    autosize=ROWS_AUTOSIZE)


def transfer_heatmap(values: pd.DataFrame, games: Sequence[str]) -> AnyChart:
    """V_source(target) as a heat map (rows: fine-tuned on; columns: evaluated at); an
    undefined value is an empty cell."""
    defined = values[values["value"].notna()]
    base = alt.Chart(defined).encode(
        x=alt.X("target:N", sort=list(games), title="evaluated at"),
        y=alt.Y("source:N", sort=list(games), title="fine-tuned on"),
    )
    rect = base.mark_rect().encode(
        color=alt.Color("value:Q", scale=alt.Scale(scheme="blueorange", domainMid=0),
                        title="V"),
        tooltip=["source", "target", alt.Tooltip("value:Q", format=".3g"),
                 alt.Tooltip("low:Q", format=".3g"), alt.Tooltip("high:Q", format=".3g")],
    )
    text = base.mark_text(fontSize=_FONT).encode(text=alt.Text("value:Q", format=".2f"))
    return (rect + text).properties(title="Transfer value V_row(column)",
                                    height=rows_height(len(games)), autosize=ROWS_AUTOSIZE)


HISTOGRAM_ROW_PX = 70
HISTOGRAM_WIDTH_PX = 300  # with its axis it fits half of a 1400 px wide page


def histogram_panels(masses: pd.DataFrame, x_title: str) -> AnyChart:
    """Xent-measure histograms as small multiples: one panel per participant on a shared
    x axis, each in its own colour (overlaid bars hid whoever was drawn first).
    Columns participant, bin_low, bin_high, mass."""
    names = sorted(masses["participant"].unique()) if len(masses) else []
    return (
        alt.Chart(masses)
        .mark_bar(binSpacing=0, stroke="white", strokeWidth=0.5)
        .encode(
            x=alt.X("bin_low:Q", bin="binned", title=x_title,
                    axis=alt.Axis(labelFlush=True)),  # the last tick label stays inside
            x2="bin_high:Q",
            y=alt.Y("mass:Q", title=None, axis=alt.Axis(tickCount=3, format=".0%")),
            color=alt.Color("participant:N", scale=PARTICIPANT_SCALE, legend=None),
            tooltip=["participant", alt.Tooltip("bin_low:Q", format=".2f"),
                     alt.Tooltip("bin_high:Q", format=".2f"),
                     alt.Tooltip("mass:Q", format=".0%", title="share of games")],
        )
        .properties(height=HISTOGRAM_ROW_PX, width=HISTOGRAM_WIDTH_PX)
        # Names above their panels, not beside them: a facet chart cannot shrink to its
        # column, and a left header pushed the axis's right end ("10") out of view.
        .facet(row=alt.Row("participant:N", sort=names, title=None,
                           header=alt.Header(labelOrient="top", labelAnchor="start",
                                             labelLimit=HISTOGRAM_WIDTH_PX,
                                             labelFontWeight="bold")))
        .resolve_scale(y="shared")
        .properties(title=alt.TitleParams("share of games per bin", anchor="start",
                                          fontSize=_FONT, fontWeight="normal"))
    )


def ecdf(values: pd.DataFrame, x_title: str) -> AnyChart:
    """Empirical CDF per participant (columns participant, value)."""
    return (
        alt.Chart(values)
        .transform_window(
            cumulative="cume_dist()", sort=[{"field": "value"}], groupby=["participant"]
        )
        # points too: a participant with one game has a one-point line, which draws nothing
        .mark_line(interpolate="step-after", point=True)
        .encode(
            x=alt.X("value:Q", title=x_title),
            y=alt.Y("cumulative:Q", title="share of games at or below"),
            color=_participant_colour(),
            tooltip=["participant", "game", alt.Tooltip("value:Q", format=".2f")],
        )
    )


def arms_chart(curves: pd.DataFrame, base: str | None) -> AnyChart:
    """Running-max (arms_k) curves (columns participant, round, arms); the base dashed."""
    frame = curves.assign(is_base=curves["participant"] == base)
    return (
        alt.Chart(frame)
        .mark_line(point=True)
        .encode(
            x=alt.X("round:O", title="rounds played k", axis=alt.Axis(labelAngle=0)),
            y=alt.Y("arms:Q", title="arms_k (bits, mean over maps)", scale=alt.Scale(zero=False)),
            color=_participant_colour(),
            strokeDash=alt.condition("datum.is_base", alt.value([6, 4]), alt.value([1, 0])),
            tooltip=["participant", "round", alt.Tooltip("arms:Q", format=".2f")],
        )
    )


def snapshot_label(snapshot: int, created_at: Any) -> str:
    """How a snapshot is named on the time axis: its id and when it was taken."""
    return f"#{snapshot} · {pd.Timestamp(created_at):%Y-%m-%d %H:%M}"


def rating_history(history: pd.DataFrame, changes: pd.DataFrame, unit: str) -> AnyChart:
    """Rating per snapshot with its 95% interval (a band, and a rule at each snapshot so a
    single snapshot still shows it); dashed marks at the first snapshot after a spec or the
    judge changed (`changes`: kind, name, detail, first_match_at).

    The x axis is the ordered snapshots (ordinal), labelled by id and time: a time scale
    over one snapshot has no extent and labels its ticks in milliseconds."""
    snaps = (history[["snapshot", "created_at"]].drop_duplicates("snapshot")
             .sort_values(["created_at", "snapshot"]))
    labels = [snapshot_label(s, c) for s, c in zip(snaps["snapshot"], snaps["created_at"],
                                                    strict=True)]
    by_id = dict(zip(snaps["snapshot"], labels, strict=True))
    frame = history.assign(snapshot_at=[by_id[s] for s in history["snapshot"]])
    x = alt.X("snapshot_at:O", sort=labels, title="snapshot",
              scale=alt.Scale(domain=labels), axis=alt.Axis(labelAngle=-30, labelLimit=160))
    base = alt.Chart(frame).encode(x=x, xOffset="participant:N", color=_participant_colour())
    band = base.mark_area(opacity=0.15).encode(y=alt.Y("ci_low:Q", title=f"rating ({unit})",
                                                       scale=alt.Scale(zero=False)),
                                               y2="ci_high:Q")
    interval = base.mark_rule(opacity=0.5, strokeWidth=2).encode(y="ci_low:Q", y2="ci_high:Q")
    line = base.mark_line(point=True).encode(
        y="rating:Q",
        tooltip=["participant", "snapshot", alt.Tooltip("created_at:T", format="%Y-%m-%d %H:%M"),
                 alt.Tooltip("rating:Q", format=".1f"), alt.Tooltip("ci_low:Q", format=".1f"),
                 alt.Tooltip("ci_high:Q", format=".1f")],
    )
    marks = alt.Chart(_changes_at_snapshots(changes, snaps, labels)).mark_rule(
        strokeDash=[3, 3], color="gray").encode(x=x, tooltip=["kind", "name", "detail"])
    return alt.layer(band, interval, line, marks)


def _changes_at_snapshots(changes: pd.DataFrame, snaps: pd.DataFrame,
                          labels: list[str]) -> pd.DataFrame:
    """Each change placed at the first snapshot taken at or after it (later ones dropped)."""
    times = [pd.Timestamp(c) for c in snaps["created_at"]]
    rows = []
    for change in changes.to_dict("records") if len(changes) else []:
        when = pd.Timestamp(change["first_match_at"])
        at = next((label for label, t in zip(labels, times, strict=True) if t >= when), None)
        if at is not None:
            rows.append({**change, "snapshot_at": at})
    return pd.DataFrame(rows, columns=["kind", "name", "detail", "snapshot_at"])


def rank_probabilities(probs: pd.DataFrame) -> AnyChart:
    """P(rank = k) per participant (columns participant, rank, p)."""
    base = alt.Chart(probs).encode(
        x=alt.X("rank:O", title="rank k", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("participant:N", title=None)
    )
    height = rows_height(probs["participant"].nunique() if len(probs) else 1)
    return (base.mark_rect().encode(
        color=alt.Color("p:Q", scale=alt.Scale(scheme="blues", domain=[0, 1]), title="P(rank=k)"),
        tooltip=["participant", "rank", alt.Tooltip("p:Q", format=".2f")],
    ) + base.mark_text(fontSize=_FONT).encode(text=alt.Text("p:Q", format=".2f"))).properties(
        height=height, autosize=ROWS_AUTOSIZE)


# Seats of one match often score the same (a cooperative game rewards both alike): each
# seat gets its own dash pattern and hollow marker shape, so a line drawn on top of another
# leaves the one below showing through its gaps and around its markers.
SEAT_DASHES: Any = alt.Scale(range=[[1, 0], [6, 3], [2, 2], [8, 3, 2, 3]])
SEAT_SHAPES: Any = alt.Scale(range=["circle", "square", "triangle-up", "diamond"])
SEAT_MARKER_MAX, SEAT_MARKER_STEP = 300, 160  # marker areas (px^2): first seat largest


def round_scores(scores: pd.DataFrame) -> AnyChart:
    """Score per round and seat (columns round, seat, score): a line, a dash pattern and a
    hollow marker per seat, each seat's marker smaller than the one before, so seats with
    equal scores stay visible (nested markers, dashes over a solid line)."""
    order = list(dict.fromkeys(scores["seat"]))
    frame = scores.assign(marker=[max(SEAT_MARKER_MAX - SEAT_MARKER_STEP * order.index(s), 30)
                                  for s in scores["seat"]])
    base = alt.Chart(frame).encode(
        x=alt.X("round:O", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("score:Q", title="round score (bits)"),
        color=alt.Color("seat:N", scale=PARTICIPANT_SCALE, title="seat", sort=order),
        tooltip=["seat", "round", alt.Tooltip("score:Q", format=".3f")],
    )
    line = base.mark_line(strokeWidth=2).encode(
        strokeDash=alt.StrokeDash("seat:N", scale=SEAT_DASHES, title="seat", sort=order))
    points = base.mark_point(filled=False, strokeWidth=2).encode(
        shape=alt.Shape("seat:N", scale=SEAT_SHAPES, title="seat", sort=order),
        size=alt.Size("marker:Q", scale=None, legend=None))
    return alt.layer(line, points)


def score_distribution(scores: pd.DataFrame) -> AnyChart:
    """Match-score distribution per role (columns role, best)."""
    return (
        alt.Chart(scores)
        .mark_boxplot(extent="min-max")
        .encode(x=alt.X("best:Q", title="match score (bits)"), y=alt.Y("role:N", title=None))
    )


def progress_line(done: pd.DataFrame) -> AnyChart:
    """Cumulative finished matches over time (columns finished_at, done)."""
    return alt.Chart(done).mark_line().encode(
        x=alt.X("finished_at:T", title=None), y=alt.Y("done:Q", title="matches stored")
    )
