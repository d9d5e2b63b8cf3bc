"""`arena run FILE` and `arena matches --tournament NAME` (added to the `arena` command by
`arena.tournaments.plugin`; also runnable as `python -m arena.tournaments.cli.run ...`).

`arena run` speaks on stdout whether or not it is on a terminal: a start line when the run
begins ("run 1 of live started: 240 matches planned"), a progress line every
`--report-every` seconds when stdout is not a terminal (or no bar is shown on stderr: the
phase, maps k/N, matches k/N and ETA of the run's heartbeat, as the dashboard's Live page
shows them), then its summary and the tournament's leaderboard, as `arena demo` does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import sys
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from arena.cli.console import run_app
from arena.cli.context import registry_of
from arena.interrupts import run_stoppable
from arena.listing import printable, text_table

if TYPE_CHECKING:  # storage and the run import SQLAlchemy and NumPy: loaded per command
    from arena.storage import Store, StoredMatch
    from arena.tournaments.running.executors.engine import RunSummary

INTERRUPTED = "interrupted: finished matches are stored; run the same command to resume."
REPORT_EVERY_S = 30.0
POLL_S = 1.0  # how often the run's heartbeat is looked at (a progress line waits for it)

log = logging.getLogger(__name__)

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, no_args_is_help=True)

MatchStatus = Literal["done", "error"]
DbOption = Annotated[
    str | None,
    typer.Option("--db", help="SQLAlchemy URL (default: $XENT_ARENA_DB or the user data dir)."),
]


@app.command("run")
def run_command(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Tournament file (TOML).")],
    db: DbOption = None,
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="Matches in flight (overrides the file).")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a live progress bar.")] = True,
    executor: Annotated[
        str | None,
        typer.Option(help="Where matches run: local or ray (overrides the file's `executor`)."),
    ] = None,
    ray_address: Annotated[
        str | None,
        typer.Option(help="Ray cluster to join, e.g. auto or ray://head:10001 (implies ray)."),
    ] = None,
    report_every: Annotated[
        float,
        typer.Option(min=0.1, help="Seconds between progress lines when the output is not "
                     "a terminal (no bar)."),
    ] = REPORT_EVERY_S,
) -> None:
    """Run a tournament; running it again resumes where it stopped. Ctrl-C or SIGTERM
    stops it keeping every finished match. Prints a start line, progress lines when not on
    a terminal, and the leaderboard at the end."""
    from arena.tournaments.play.cli import browser_entrants
    from arena.tournaments.services.run_config import run_file

    people = browser_entrants(file)
    if people:  # nobody answers them here: every move of theirs times out and forfeits
        typer.echo(
            f"warning: {', '.join(people)} play(s) in the browser (human:web); here their moves "
            f"time out and forfeit. Run the file with `arena play-server --tournament {file}`.",
            err=True,
        )
    bar = progress and sys.stderr.isatty()
    lines = progress and (not bar or not sys.stdout.isatty())
    said: list[str] = []  # the run's label once its start line is printed
    try:
        summary = run_stoppable(
            reported(
                run_file(
                    file,
                    db=db,
                    concurrency=concurrency,
                    progress=bar,
                    snapshot=True,
                    registry=registry_of(ctx),
                    executor=executor,
                    ray_address=ray_address,
                ),
                db,
                report_every if lines else None,
                said,
            )
        )
    except KeyboardInterrupt:
        typer.echo(INTERRUPTED, err=True)
        raise typer.Exit(130) from None
    _report(summary, db, said)
    if summary.errors or summary.map_failures:
        raise typer.Exit(1)


def run_label(store: Store, run_id: int) -> str | None:
    """"run 2 of nightly": runs count within their tournament (None: no such run)."""
    found = store.run_number(run_id)
    return None if found is None else f"run {found[1]} of {printable(found[0])}"


async def reported(run: Awaitable[RunSummary], db: str | None, every_s: float | None,
                   said: list[str]) -> RunSummary:
    """Await `run`, printing its start line once its heartbeat shows (its label goes into
    `said`) and, every `every_s` seconds (None: never), its progress line. A report that
    fails never stops the run."""
    follower = asyncio.create_task(_follow(db, every_s, said), name="arena-run-report")
    try:
        return await run
    finally:
        follower.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await follower


async def _follow(db: str | None, every_s: float | None, said: list[str]) -> None:
    """Watch this process's running run in the database (its heartbeat) and report it."""
    from arena.errors import ArenaError
    from arena.storage import Store
    from arena.tournaments.running.progress import progress_line, start_line

    me = (socket.gethostname(), os.getpid())
    store: Store | None = None
    label: str | None = None
    last = 0.0
    try:
        while True:
            await asyncio.sleep(POLL_S)
            try:
                if store is None:  # read-only: it never migrates the run's database
                    store = await asyncio.to_thread(Store.open_read_only, db)
                runs = await store.live_runs.in_thread(running_only=True)
                found = next((r for r in runs if (r.progress.host, r.progress.pid) == me), None)
                if found is None:
                    continue
                mine = found.progress
                if label is None:
                    label = f"run {found.number} of {printable(found.tournament)}"
                    typer.echo(start_line(mine, label))
                    said.append(label)
                    last = time.monotonic()
                elif every_s is not None and time.monotonic() - last >= every_s:
                    typer.echo(progress_line(mine, label))
                    last = time.monotonic()
            except (ArenaError, OSError, RuntimeError) as error:  # not there yet, or busy
                log.debug("no run progress to report yet: %s", error)
            except Exception as error:  # the database's own errors: a report is a nicety
                log.debug("could not read the run's progress: %s", error)
    finally:
        if store is not None:
            store.close()


def _report(summary: RunSummary, db: str | None, said: list[str]) -> None:
    """The run's summary, notes and its tournament's leaderboard (as `arena demo` prints);
    first its start line if the run ended before its heartbeat was seen."""
    from arena.storage import Store
    from arena.tournaments.records.rating_store import leaderboard_text

    store = Store.open(db, create=False) if summary.run_id else None
    try:
        label = run_label(store, summary.run_id) if store and not said else None
        if label is not None:
            before = f", {summary.already_done} already stored" if summary.already_done else ""
            typer.echo(f"{label} started: {summary.planned} matches planned{before}")
        for run_id in summary.abandoned_runs:
            label = (run_label(store, run_id) if store else None) or f"run {run_id}"
            typer.echo(
                f"note: {label} had stopped without finishing (its process was killed); it "
                "is now marked interrupted.",
                err=True,
            )
        typer.echo(
            f"{summary.status}: {summary.written} match(es) stored this run "
            f"({summary.errors} error(s)), {summary.already_done} already done, "
            f"{summary.planned} planned; {summary.rounds / max(summary.wall_s, 1e-9):.1f} "
            "rounds/s"
            + (
                f"; {summary.claimed_elsewhere} left to another driver on this database"
                if summary.claimed_elsewhere
                else ""
            )
        )
        if summary.stop_reason is not None:
            typer.echo(f"stopped: {summary.stop_reason}; {summary.stopped} planned match(es) "
                       "not played (run again to play them after changing the rule).")
        if summary.no_results:
            typer.echo(
                f"{summary.no_results} match(es) ended with no result (an ensure line over its "
                "budget, or a provider that could not be reached): they count in no score; run "
                "again to play them again.",
                err=True,
            )
        for note in summary.notes:
            typer.echo(f"warning: {note}", err=True)
        if summary.map_failures:
            typer.echo(
                f"{summary.map_failures} match(es) skipped: their map could not be made; "
                "run again to retry.",
                err=True,
            )
        found = store.run_number(summary.run_id) if store else None
        if store is not None and found is not None:
            typer.echo("")
            typer.echo(leaderboard_text(store, [found[0]]))
    finally:
        if store is not None:
            store.close()


MATCH_HEADER = ("match", "game", "map", "status", "seats (role=participant:best score)", "error")


def _seats(match: StoredMatch) -> str:
    parts = []
    for seat in match.seats:
        score = "forfeit" if seat.forfeit else ("-" if seat.best is None else f"{seat.best:.2f}")
        npc = "" if seat.main else " (npc)"
        parts.append(f"{seat.role}={seat.participant}{npc}:{score}")
    return " ".join(parts)


@app.command("matches")
def matches_command(
    tournament: Annotated[str, typer.Option("--tournament", "-t", help="Tournament name.")],
    db: DbOption = None,
    limit: Annotated[int, typer.Option(min=1, help="Show the latest N matches.")] = 20,
    status: Annotated[
        MatchStatus | None, typer.Option(help="Only matches with this status.")
    ] = None,
) -> None:
    """List a tournament's stored matches."""
    from arena.storage import Store
    from arena.storage.match_keys import short_key

    store = Store.open(db, create=False)
    try:
        found = store.stored_matches(tournament, status=status, limit=limit)
        counts = store.match_counts(tournament)
        if not found and tournament not in store.tournament_names():
            from arena.errors import UnknownNameError

            raise UnknownNameError("tournament", tournament, store.tournament_names())
    finally:
        store.close()
    if not found:
        typer.echo(f"No {status or 'stored'} matches in tournament '{printable(tournament)}'.")
        return
    rows = [
        (short_key(m.key), f"{m.game}@{m.game_version}", m.map_index, m.status, _seats(m),
         m.error or "")
        for m in found
    ]
    for line in text_table(MATCH_HEADER, rows, right={2}):
        typer.echo(line)
    stored = counts.get(status, 0) if status else sum(counts.values())
    if stored > len(found):
        typer.echo(f"Showing the latest {len(found)} of {stored} {status or 'stored'} matches "
                   f"(use --limit {stored} to see them all).")


def main(argv: list[str] | None = None) -> None:
    """`python -m arena.tournaments.cli.run`: user errors print a message and exit 2."""
    run_app(
        app,
        argv,
        interrupted=INTERRUPTED,
    )


if __name__ == "__main__":
    main()
