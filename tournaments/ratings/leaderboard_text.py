"""The leaderboard as text: one format wherever a terminal shows one (`arena ratings`,
`arena demo`, `arena run`, `arena schedule run-now`).

What was rated, how, a table with a header row (rank range, participant, rating, interval,
comparisons with the provisional mark), and a footer that explains every column.
"""

from __future__ import annotations

from arena.listing import printable, text_table
from arena.tournaments.ratings.leaderboard import Leaderboard
from arena.tournaments.ratings.service import (
    RatingInputs,
    RatingOptions,
    comparisons,
    resolved_point,
    uninformative,
)

HEADER = ("rank", "participant", "rating", "interval", "comparisons")


def _number(value: float, options: RatingOptions) -> str:
    return f"{value:+.2f}" if options.scale == "log" else f"{value:.0f}"


def render_leaderboard(
    inputs: RatingInputs, options: RatingOptions, board: Leaderboard
) -> str:
    """The leaderboard of `board` (computed from `inputs` with `options`) as text."""
    names = printable(", ".join(inputs.tournaments))
    if not board.rows:
        return f"{names}: no finished match to rate yet."
    data = comparisons(inputs)
    point = resolved_point(inputs, options).replace("_", " ")
    scale = "natural-log scale, mean 0" if options.scale == "log" else "Elo scale, mean 1000"
    level = f"{options.confidence:.0%}"
    rows = []
    for r in board.rows:
        ranks = f"{r.rank_low}" + (f"-{r.rank_high}" if r.rank_high != r.rank_low else "")
        interval = f"[{_number(r.ci_low, options)}, {_number(r.ci_high, options)}]"
        mark = " *" if r.provisional else ""
        rows.append((ranks, r.participant, _number(r.rating, options), interval,
                     f"{r.n_comparisons}{mark}"))
    lines = [
        f"Leaderboard of {names}: {len(inputs.records)} matches, {data.n_comparisons} "
        f"comparisons, {len(board.rows)} participants",
        f"Bradley–Terry ({scale}), point = {point}; {level} intervals from "
        f"{options.n_resamples} {board.resample} resamples (games weighted equally), seed "
        f"{options.seed}",
        "",
        *text_table(HEADER, rows, right={2}),
        "",
        f"rank: every rank the {level} intervals allow, read against the best-measured "
        "zero (a provisional row may rank anywhere);",
        f"interval: {level} bootstrap interval of the rating;",
        "comparisons: pairwise results against other participants"
        + (f"; * provisional: fewer than {options.min_comparisons}" if any(
            r.provisional for r in board.rows) else ""),
    ]
    lines += [f"note: {role.note}" for role in uninformative(inputs)]
    if board.role_effects:
        unit = "natural-log units" if options.scale == "log" else "Elo points"
        lines += ["", f"role effects ({unit}, fitted with --role-effects):"]
        lines += [f"  {printable(role)}: {value:+.2f}"
                  for role, value in sorted(board.role_effects.items())]
    return "\n".join(lines)
