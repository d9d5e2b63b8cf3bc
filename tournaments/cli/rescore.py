"""`arena rescore --tournament T --judge SPEC --as NAME`: the stored moves of T judged again
by another judge into the tournament NAME, no player called (`arena.tournaments.services.rescore`),
then how much the ranking depends on the judge (`arena.tournaments.ratings.sensitivity`).
Added to the `arena` command by `arena.tournaments.plugin`; also runnable as
`python -m arena.tournaments.cli.rescore ...`."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer

from arena.cli.console import run_app
from arena.cli.context import registry_of
from arena.interrupts import run_stoppable

if TYPE_CHECKING:  # storage and ratings import SQLAlchemy and SciPy: loaded per command
    from arena.storage import Store
    from arena.tournaments.ratings.sensitivity import Sensitivity
    from arena.tournaments.services.rescore import RescoreSummary

INTERRUPTED = "interrupted: rescored matches are stored; run the same command to resume."

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, no_args_is_help=True)


@app.command("rescore")
def rescore_command(
    ctx: typer.Context,
    tournament: Annotated[
        str, typer.Option("--tournament", "-t", help="The stored tournament to judge again.")
    ],
    judge: Annotated[str, typer.Option(help="The other judge's spec, e.g. bundled or ngram.")],
    target: Annotated[
        str, typer.Option("--as", help="Name of the new tournament that holds the rescore.")
    ],
    db: Annotated[
        str | None,
        typer.Option("--db", help="SQLAlchemy URL (default: $XENT_ARENA_DB or the user data "
                     "dir)."),
    ] = None,
    concurrency: Annotated[int, typer.Option(min=1, max=1024, help="Matches at once.")] = 4,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the rescore and the comparison as JSON.")
    ] = False,
    resamples: Annotated[
        int, typer.Option("--resamples", min=1, max=100_000, help="Paired bootstrap resamples.")
    ] = 1000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed (the report is deterministic).")] = 0,
    confidence: Annotated[float, typer.Option(min=0.5, max=0.999)] = 0.95,
) -> None:
    """Judge the stored moves of a tournament again with another judge, without calling any
    player, into a new tournament with the same matches; then compare the two rankings
    (Kendall's tau with a paired bootstrap interval, participants whose rank changed).
    Running it again resumes an interrupted rescore."""
    from arena.storage import Store
    from arena.tournaments.services.rescore import rescore

    store = Store.open(db, create=False)
    try:
        progress = _progress(as_json)
        try:
            summary = run_stoppable(
                rescore(store, registry_of(ctx), tournament, judge, target,
                        concurrency=concurrency, on_stored=progress)
            )
        except KeyboardInterrupt:
            typer.echo(INTERRUPTED, err=True)
            raise typer.Exit(130) from None
        report = _sensitivity(store, summary, resamples, seed, confidence)
    finally:
        store.close()
    if as_json:
        doc = {
            "rescore": {
                "tournament": summary.source, "as": summary.target, "judge": summary.judge,
                "matches": summary.planned, "already_done": summary.already_done,
                "written": summary.written, "errors": summary.errors,
                "left_out": summary.left_out,
            },
            "sensitivity": report.as_dict(),
        }
        typer.echo(json.dumps(doc, indent=2))
    else:
        typer.echo(render(summary, report))
    if summary.errors:
        raise typer.Exit(1)


def _progress(quiet: bool) -> Callable[[int, int], None]:
    interactive = sys.stderr.isatty() and not quiet

    def show(done: int, total: int) -> None:
        if interactive:
            print(f"\rrescored {done}/{total}", end="" if done < total else "\n",
                  file=sys.stderr, flush=True)

    return show


def _sensitivity(
    store: Store, summary: RescoreSummary, resamples: int, seed: int, confidence: float
) -> Sensitivity:
    from arena.storage import MATCH_DONE
    from arena.tournaments.ratings.leaderboard import LeaderboardConfig
    from arena.tournaments.ratings.sensitivity import judge_sensitivity
    from arena.tournaments.records.from_store import records_from_store

    config = LeaderboardConfig(n_resamples=resamples, seed=seed, confidence=confidence)
    return judge_sensitivity(
        records_from_store(store.stored_matches(summary.source, status=MATCH_DONE)),
        records_from_store(store.stored_matches(summary.target, status=MATCH_DONE)),
        summary.keys,
        config,
    )


def render(summary: RescoreSummary, report: Sensitivity) -> str:
    from arena.listing import printable, text_table  # Rich: imported when a table is printed

    source, target = printable(summary.source), printable(summary.target)
    lines = [
        f"rescored {summary.planned} match(es) of '{source}' with judge "
        f"'{printable(summary.judge)}' into '{target}': {summary.written} stored now, "
        f"{summary.already_done} already done, {summary.errors} error(s)"
        + (f"; {summary.left_out} error match(es) of the source left out"
           if summary.left_out else ""),
        "",
        f"Kendall's tau between the two rankings: {report.tau:.3f} "
        f"[{report.tau_low:.3f}, {report.tau_high:.3f}] ({report.confidence:.0%} interval, "
        f"{report.resamples} paired resamples of {report.matches} matches)",
        "",
    ]
    rows = [
        (p.participant, p.rank_a, p.rank_b, f"{p.rating_a:.1f}", f"{p.rating_b:.1f}",
         f"{p.range_a[0]}-{p.range_a[1]}", f"{p.range_b[0]}-{p.range_b[1]}",
         ("clearly " if p.clear else "") + "moved" if p.changed else "")
        for p in report.participants
    ]
    lines += text_table(
        ("participant", f"rank {source}", f"rank {target}", f"rating {source}",
         f"rating {target}", "range", "range rescored", "changed"),
        rows, right={1, 2, 3, 4},
    )
    moved = report.changed
    lines.append("")
    if moved:
        lines.append(
            f"{len(moved)} of {len(report.participants)} participant(s) changed rank: "
            f"{', '.join(printable(p.participant) for p in moved)} (clearly moved: the two "
            "rank ranges do not overlap)."
        )
    else:
        lines.append(f"No participant changed rank ({len(report.participants)} rated).")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """`python -m arena.tournaments.cli.rescore`: user errors print a message and exit 2."""
    run_app(app, argv, interrupted=INTERRUPTED)


if __name__ == "__main__":
    main()
