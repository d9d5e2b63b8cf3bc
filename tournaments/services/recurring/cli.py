"""`arena schedule add|list|remove|run-now` and `arena scheduler` (added to the `arena`
command by `arena.tournaments.plugin`; also `python -m arena.tournaments.services.recurring.cli
...`)."""

from __future__ import annotations

import asyncio
import logging
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Literal

import typer

from arena.cli.console import run_app
from arena.cli.context import registry_of
from arena.interrupts import run_stoppable
from arena.listing import text_table
from arena.tournaments.cli.run import DbOption

# arena.tournaments.services.recurring.schedules.SeedPolicy, repeated so that building the command
# line
# imports neither APScheduler nor the storage (tests/cli/test_cli_start.py checks it).
SeedPolicy = Literal["fresh", "fixed"]

schedule_app = typer.Typer(
    name="schedule",
    help="Recurring tournaments: add, list, remove and run schedules (see `arena scheduler`).",
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
)
scheduler_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@schedule_app.command("add")
def add_command(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Tournament file (TOML).")],
    cron: Annotated[
        str | None,
        typer.Option(
            help="Crontab: five fields 'minute hour day-of-month month day-of-week' (e.g. "
            "'0 3 * * *' = daily at 03:00), six with seconds first, or @daily-style names.",
        ),
    ] = None,
    every: Annotated[
        float | None, typer.Option(help="Run every SECONDS instead of on a cron.")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Schedule name (default: tournament's).")] = None,
    seeds: Annotated[
        SeedPolicy, typer.Option(help="fresh: new maps every run; fixed: the file's seed.")
    ] = "fresh",
    timezone: Annotated[
        str | None, typer.Option(help="IANA zone of the cron, e.g. UTC (default: local).")
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="Matches in flight (overrides the file).")
    ] = None,
    replace: Annotated[bool, typer.Option(help="Replace a schedule of the same name.")] = False,
    db: DbOption = None,
) -> None:
    """Schedule a tournament file to run on a cron or every N seconds."""
    from arena.storage import Store
    from arena.tournaments.services.recurring.schedules import add_schedule, describe_trigger

    store = Store.open(db)
    try:
        record = add_schedule(
            store, file, cron=cron, every=every, name=name, seeds=seeds,
            timezone=timezone, concurrency=concurrency, replace=replace,
            registry=registry_of(ctx),
        )
    finally:
        store.close()
    typer.echo(
        f"schedule '{record.name}' added: {describe_trigger(record)} runs "
        f"{record.tournament_file}. Start `arena scheduler` to run it on time."
    )


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)  # SQLite drops the zone


def _when(moment: datetime | None) -> str:
    if moment is None:
        return "-"
    return _aware(moment).astimezone().strftime("%Y-%m-%d %H:%M:%S")


SCHEDULE_HEADER = ("schedule", "when", "tournament file", "last run", "next run", "now")


@schedule_app.command("list")
def list_command(db: DbOption = None) -> None:
    """List the schedules with their last run and next run times."""
    from arena.storage import Store
    from arena.tournaments.services.recurring.schedules import describe_trigger, next_run_time

    store = Store.open(db, create=False)
    try:
        found = store.schedules()
        last = {s.name: store.schedule_runs(s.name, limit=1) for s in found}
    finally:
        store.close()
    if not found:
        typer.echo("No schedules. Add one with `arena schedule add FILE --cron '0 3 * * *'`.")
        return
    now = datetime.now(UTC)
    rows = []
    for s in found:
        runs = last[s.name]
        latest = f"{runs[0].status} at {_when(runs[0].started_at)}" if runs else "never run"
        upcoming = _when(next_run_time(s, now)) if s.enabled else "disabled"
        running = s.lease_owner and s.lease_until and _aware(s.lease_until) > now
        rows.append((s.name, describe_trigger(s), s.tournament_file, latest, upcoming,
                     f"running in {s.lease_owner}" if running else ""))
    for line in text_table(SCHEDULE_HEADER, rows):
        typer.echo(line)


@schedule_app.command("remove")
def remove_command(
    name: Annotated[str, typer.Argument(help="Schedule name.")], db: DbOption = None
) -> None:
    """Remove a schedule (its matches, runs and rating snapshots stay stored)."""
    from arena.storage import Store
    from arena.tournaments.services.recurring.schedules import remove_schedule

    store = Store.open(db, create=False)
    try:
        remove_schedule(store, name)
    finally:
        store.close()
    typer.echo(f"schedule '{name}' removed.")


@schedule_app.command("run-now")
def run_now_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Schedule name.")],
    db: DbOption = None,
) -> None:
    """Run a schedule once, now, in this process (skipped if it is running elsewhere)."""
    from arena.storage import Store
    from arena.tournaments.services.recurring.runner import MANUAL, process_owner, run_schedule

    registry = registry_of(ctx)

    async def go() -> None:
        store = Store.open(db, create=False)
        try:
            done = await run_schedule(
                store, name, registry=registry, owner=process_owner(), trigger=MANUAL
            )
            # numbered within its tournament, as everywhere else
            snapshot = (store.snapshot_number(done.snapshot_id)
                        if done is not None and done.snapshot_id else None)
        finally:
            store.close()
        if done is None:
            typer.echo(f"schedule '{name}' is running in another process; not started.")
            raise typer.Exit(1)
        typer.echo(
            f"schedule '{name}': run {done.id} {done.status}, {done.written} match(es) "
            f"stored, seed {done.seed}, rating snapshot {f'#{snapshot}' if snapshot else '-'}"
        )
        if done.error:
            typer.echo(f"error: {done.error}", err=True)
        if done.status != "done":
            raise typer.Exit(1)

    run_stoppable(go())


@scheduler_app.command("scheduler")
def scheduler_command(
    ctx: typer.Context,
    db: DbOption = None,
    sync_every: Annotated[
        float, typer.Option(min=0.1, help="Seconds between re-reads of the schedules.")
    ] = 30.0,
    lease: Annotated[
        float, typer.Option(min=1.0, help="Seconds a run's lock outlives a killed process.")
    ] = 60.0,
) -> None:
    """Run schedules on time until Ctrl-C or SIGTERM (schedules live in the database)."""
    from arena.tournaments.services.recurring.service import serve_until_signal

    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S",
        stream=sys.stderr,
    )
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    asyncio.run(
        serve_until_signal(db, registry=registry_of(ctx), sync_s=sync_every, lease_s=lease)
    )


def main(argv: list[str] | None = None) -> None:
    """`python -m arena.tournaments.services.recurring.cli`: user errors print a message and exit
    2."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.add_typer(schedule_app)
    app.add_typer(scheduler_app)
    run_app(app, argv)


if __name__ == "__main__":
    main()
