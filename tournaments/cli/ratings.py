"""`arena ratings`, `arena scores` and `arena export` (added to the `arena` command by
`arena.tournaments.plugin`; also runnable as `python -m arena.tournaments.cli.ratings ...`).
`arena import` is `arena.tournaments.cli.imports`.

Every command takes ``--tournament`` (repeatable where results can be merged: participants
are matched by name across tournaments) and ``--db``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from arena.cli.commands.validators import finite_positive
from arena.cli.console import run_app
from arena.errors import UnknownNameError

if TYPE_CHECKING:  # ratings, storage and exchange import SciPy and SQLAlchemy: per command
    from arena.storage import Store
    from arena.tournaments.ratings.service import NormalisedReport, RatingInputs, RatingOptions
    from arena.tournaments.ratings.win_rate import WinRate

# The option types and defaults of the modules behind the commands, repeated here so that
# building the command line imports none of them (tests/cli/test_cli_start.py checks that
# they agree).
Scale = Literal["elo", "log"]  # arena.tournaments.ratings.service.Scale
ExportFormat = Literal["csv", "json", "parquet"]  # arena.tournaments.services.exchange.export
DEFAULT_PRIOR = 0.01  # arena.tournaments.ratings.bradley_terry
CLUSTER_MIN_MAPS = 4  # arena.tournaments.ratings.bootstrap

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, no_args_is_help=True)

DbOption = Annotated[
    str | None,
    typer.Option("--db", help="SQLAlchemy URL (default: $XENT_ARENA_DB or the user data dir)."),
]
TournamentsOption = Annotated[
    list[str],
    typer.Option(
        "--tournament", "-t",
        help="Tournament name; repeat to rate several together (participants matched by name).",
    ),
]
ScaleOption = Annotated[
    Scale,
    typer.Option(
        help="elo: 400/ln 10 per unit, mean 1000. log: Bradley–Terry strengths on the "
        "natural-log scale, mean 0 (GameBench's scale)."
    ),
]
PointCli = Literal["auto", "mle", "bootstrap-mean"]
PointOption = Annotated[
    PointCli,
    typer.Option(
        help="Point rating: mle (the fit on all matches), bootstrap-mean (mean of the "
        "resampled fits, as GameBench reports), or auto (the sources' own convention when "
        "they agree, else mle)."
    ),
]
ResamplesOption = Annotated[int, typer.Option("--resamples", min=1, help="Bootstrap resamples.")]
Resampling = Literal["auto", "match", "map", "cluster"]  # ratings.bootstrap.RESAMPLING
ResampleOption = Annotated[
    Resampling,
    typer.Option(
        "--resample",
        help="The bootstrap's unit: match (matches drawn with replacement, games weighted "
        "alike), map (each game's maps drawn, then their matches: wider intervals when "
        "matches on one map move together), cluster (whole maps drawn: an eval map's "
        "scores together), or auto (cluster for eval boards with at least "
        f"{CLUSTER_MIN_MAPS} maps of every game, else match).",
    ),
]
SeedOption = Annotated[int, typer.Option(help="Bootstrap seed (ratings are deterministic).")]


def _options(
    scale: Scale, point: PointCli, resamples: int, seed: int, **extra: Any
) -> RatingOptions:
    from arena.tournaments.ratings.service import RatingOptions

    return RatingOptions(
        scale=scale, point=point.replace("-", "_"), n_resamples=resamples, seed=seed, **extra
    )


def _open(db: str | None) -> Store:
    """The database, which these commands read (only `arena import` may create one)."""
    from arena.storage import Store

    return Store.open(db, create=False)


# ------------------------------------------------------------------------------ ratings


@app.command("ratings")
def ratings_command(
    tournament: TournamentsOption,
    db: DbOption = None,
    scale: ScaleOption = "elo",
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a JSON list of leaderboard rows.")
    ] = False,
    point: PointOption = "auto",
    resamples: ResamplesOption = 1000,
    resample: ResampleOption = "auto",
    seed: SeedOption = 0,
    confidence: Annotated[float, typer.Option(min=0.5, max=0.999)] = 0.95,
    role_effects: Annotated[
        bool, typer.Option(help="Fit one extra parameter per (game, role).")
    ] = False,
    min_comparisons: Annotated[
        int, typer.Option(min=0, help="Fewer comparisons than this: provisional.")
    ] = 30,
    anchor: Annotated[
        str | None, typer.Option(help="Pin this participant at --anchor-value.")
    ] = None,
    anchor_value: Annotated[float | None, typer.Option()] = None,
    prior: Annotated[
        float, typer.Option(min=1e-9, help="L2 prior precision of the fit (keep it small).")
    ] = DEFAULT_PRIOR,
    vs: Annotated[
        str | None,
        typer.Option(
            "--vs", help="Instead: win rates against this reference participant (gg-bench's "
            "measure), per game and overall, with Wilson intervals.",
        ),
    ] = None,
) -> None:
    """Print the Bradley–Terry leaderboard (bootstrap intervals, CI-aware rank ranges), or
    with --vs, each participant's win rate against a reference participant."""
    from arena.tournaments.ratings.leaderboard_text import render_leaderboard
    from arena.tournaments.ratings.service import compute_ratings
    from arena.tournaments.ratings.spend import settled_cost
    from arena.tournaments.records.rating_store import load_costs, load_inputs

    options = _options(
        scale, point, resamples, seed, confidence=confidence, role_effects=role_effects,
        min_comparisons=min_comparisons, anchor=anchor, anchor_value=anchor_value, prior=prior,
        resample=resample,
    )
    store = _open(db)
    try:
        inputs = load_inputs(store, tournament)
        costs = load_costs(store, tournament)
    finally:
        store.close()
    if vs is not None:
        _print_win_rates(inputs, vs, confidence, as_json)
        return
    board = compute_ratings(inputs, options)
    if as_json:
        # a list of rows as before; each row's `cost` is its participant's spend, and
        # `per_settled_rank` the whole board's spend per settled rank (the same in every row)
        per_rank = settled_cost(board.rows, costs).as_dict()
        rows = [
            {**row, "cost": {**(costs[str(row["participant"])].as_dict()
                                if row["participant"] in costs else {}),
                             "per_settled_rank": per_rank}}
            for row in board.as_dicts()
        ]
        typer.echo(json.dumps(rows, indent=2))
        return
    typer.echo(render_leaderboard(inputs, options, board))
    if any(c.measured for c in costs.values()):
        typer.echo(settled_cost(board.rows, costs).sentence())


def _print_win_rates(
    inputs: RatingInputs, reference: str, confidence: float, as_json: bool
) -> None:
    from arena.tournaments.ratings.win_rate import win_rates

    known = {s.participant for r in inputs.records for s in r.players}
    if reference not in known:
        raise UnknownNameError(
            "reference participant", reference, known,
            "Give a participant that played in the tournament(s), e.g. --vs "
            f"{min(known) if known else 'NAME'}.",
        )
    rows = win_rates(inputs.records, reference, confidence)
    if as_json:
        doc = [asdict(r) | {"rate": r.rate} for r in rows]
        typer.echo(json.dumps(doc, indent=2))
        return
    typer.echo(render_win_rates(rows, reference, confidence, inputs.tournaments))


def render_win_rates(
    rows: Sequence[WinRate], reference: str, confidence: float, tournaments: Sequence[str]
) -> str:
    """The win-rate table: one line per participant and game, then its overall line."""
    from arena.listing import text_table  # Rich: imported when a table is printed
    lines = [
        f"{', '.join(tournaments)}: win rate against '{reference}' (ties count half; "
        f"{confidence:.0%} Wilson intervals; eval matches compared per game, role and map)",
        "",
    ]
    table = [("participant", "game", "win rate", "interval", "trials")]
    for r in rows:
        table.append((
            r.participant, r.game, f"{r.rate:.1%}", f"[{r.low:.1%}, {r.high:.1%}]",
            str(r.trials),
        ))
    lines += text_table(table[0], table[1:])
    if len(table) == 1:
        lines.append(f"(no match compares a participant with '{reference}')")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ scores


def report_json(report: NormalisedReport) -> dict[str, Any]:
    threshold = report.threshold
    return {
        "method": report.method,
        "threshold": None if threshold is None else {"theta": threshold.theta, "m": threshold.m},
        "base": report.base,
        "catch_up": {p: dict(g) for p, g in report.catch_up.items()},
        "unplayable": [
            {"game": g, "role": r, "reason": why} for g, r, why in report.unplayable
        ],
        "xent_measure": {
            p: {"values": dict(m.values), "bin_edges": list(m.bin_edges),
                "masses": list(m.masses)}
            for p, m in report.measures.items()
        },
        "reference": {
            "per_game": {p: dict(g) for p, g in report.reference.per_game.items()},
            "overall": dict(report.reference.overall),
            "skipped_maps": [list(k) for k in report.reference.skipped_maps],
        },
        "benchmark": None if report.benchmark is None else {
            "overall": dict(report.benchmark.overall),
            "per_game": {p: dict(g) for p, g in report.benchmark.per_game.items()},
            "ranking": list(report.benchmark.ranking),
            "skipped_maps": [list(k) for k in report.benchmark.skipped_maps],
            "no_result": {p: dict(g) for p, g in report.benchmark.no_result.items()},
        },
        "no_result": {p: dict(g) for p, g in report.no_results.items()},
        "notes": list(report.notes),
    }


def render_scores(report: NormalisedReport, tournaments: Sequence[str]) -> str:
    lines = [f"Normalised scores: {', '.join(tournaments)}"]
    lines += [f"note: {n}" for n in report.notes]
    for name, games in report.no_results.items():  # absent from every score below
        cells = ", ".join(f"{g} {n}" for g, n in games.items())
        lines.append(f"matches without a result (in no score): {name}: {cells}")
    if report.base is not None:
        if report.threshold is None:
            lines += ["", f"Catch-up scores against base '{report.base}' (B's rounds per round):"]
        else:
            lines += [
                "",
                f"narms (paper Definition 42) against base '{report.base}', levels of "
                f"theta={report.threshold.theta:g} bits, m={report.threshold.m} (in levels):",
            ]
        for name, per_game in report.catch_up.items():
            cells = ", ".join(f"{g} {v:.2f}" for g, v in per_game.items())
            mean = sum(per_game.values()) / max(len(per_game), 1)
            lines.append(f"  {name}: mean {mean:.2f} ({cells})")
        for game, role, why in report.unplayable:
            lines.append(f"  not normalised: {game} role {role}: {why}")
        if report.measures:
            lines += ["", f"Xent measure (share of games per bin of {report.method} score):"]
        for name, m in report.measures.items():
            lines.append(f"  {name}:")
            for lo, hi, mass in zip(m.bin_edges, m.bin_edges[1:], m.masses, strict=False):
                if mass > 0:
                    lines.append(f"    [{lo:5.2f}, {hi:5.2f}) {'#' * round(20 * mass)} {mass:.2f}")
    ref = report.reference
    lines += [
        "",
        # score / |best| is a percentage only when the map's best score is positive
        "Reference normalisation (100 x score / |best score| on each map, averaged; the "
        "best scores 100 where it is positive, -100 where it is negative):",
    ]
    for name, overall in ref.overall.items():
        cells = ", ".join(f"{g} {v:.1f}" for g, v in ref.per_game[name].items())
        lines.append(f"  {name}: {overall:.1f} ({cells})")
    if ref.skipped_maps:
        lines.append(f"  maps left out (best score 0 or none): {len(ref.skipped_maps)}")
    if report.benchmark is not None:
        lines += ["", *_benchmark_lines(report)]
    return "\n".join(lines)


def _benchmark_lines(report: NormalisedReport) -> list[str]:
    """The published Xent benchmark's leaderboard, as its generate_md_table.py prints it."""
    from arena.tournaments.ratings.normalisation_benchmark import benchmark_table

    bench = report.benchmark
    assert bench is not None
    lines = [
        "Xent benchmark score (100 x mean over games of the mean over results of "
        "score / |best score on the map|; as the benchmark's generate_md_table.py):",
        benchmark_table(bench),
    ]
    for name in bench.ranking:
        cells = ", ".join(f"{g} {v:.2f}" for g, v in bench.per_game[name].items())
        missing = ", ".join(f"{g} {n}" for g, n in bench.no_result.get(name, {}).items())
        without = f"; maps without a result: {missing}" if missing else ""
        lines.append(f"  {name}: {cells or 'no map with a non-zero best'}{without}")
    if bench.skipped_maps:
        lines.append(f"  maps left out (best score exactly 0): {len(bench.skipped_maps)}")
    return lines


@app.command("scores")
def scores_command(
    tournament: TournamentsOption,
    db: DbOption = None,
    base: Annotated[
        str | None, typer.Option(help="Base participant (default: the tournament's `base`).")
    ] = None,
    horizon: Annotated[
        int | None, typer.Option(min=1, help="Rounds K of the running max (default: all).")
    ] = None,
    bins: Annotated[int, typer.Option(min=1, help="Histogram bins over [0, 10].")] = 20,
    normalisation: Annotated[
        str | None,
        typer.Option(
            help="catch-up, narms (the paper's Definition 42), reference, or benchmark (the "
            "published Xent benchmark's leaderboard score) (default: the tournament file's "
            "`normalisation`, else catch-up)."
        ),
    ] = None,
    theta: Annotated[
        float | None,
        typer.Option(
            help="narms: bits between levels (default: file's, or 1).", callback=finite_positive
        ),
    ] = None,
    levels: Annotated[
        int | None, typer.Option(help="narms: m, the number of levels (default: file's, or 2).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Print normalised scores (catch-up, narms or reference), the Xent measure histogram,
    and the reference normalisation."""
    from arena.tournaments.ratings.service import normalised_scores
    from arena.tournaments.records.rating_store import load_inputs

    store = _open(db)
    try:
        inputs = load_inputs(store, tournament)
    finally:
        store.close()
    edges = [10.0 * i / bins for i in range(bins + 1)]
    report = normalised_scores(
        inputs, base, horizon=horizon, bin_edges=edges, method=normalisation, theta=theta,
        m=levels,
    )
    if as_json:
        typer.echo(json.dumps(report_json(report), indent=2))
    else:
        typer.echo(render_scores(report, inputs.tournaments))


# ------------------------------------------------------------------------------ export


@app.command("export")
def export_command(
    tournament: TournamentsOption,
    out: Annotated[Path, typer.Option(help="Folder for matches, seats and ratings files.")],
    fmt: Annotated[ExportFormat, typer.Option("--format", help="File format.")] = "csv",
    db: DbOption = None,
    scale: ScaleOption = "elo",
    point: PointOption = "auto",
    resamples: ResamplesOption = 1000,
    seed: SeedOption = 0,
) -> None:
    """Write matches, seats and ratings as CSV, JSON or Parquet files."""
    from arena.tournaments.services.exchange.export import export

    options = _options(scale, point, resamples, seed)
    store = _open(db)
    try:
        written = export(store, tournament, out, fmt, options)
    finally:
        store.close()
    for path in written:
        typer.echo(f"wrote {path}")


def main(argv: list[str] | None = None) -> None:
    """`python -m arena.tournaments.cli.ratings`: user errors print a message and exit 2."""
    run_app(app, argv)


if __name__ == "__main__":
    main()
