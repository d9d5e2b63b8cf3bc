"""`arena import`: store external match results as a tournament of their own (added to the
`arena` command by `arena.tournaments.plugin`; also
`python -m arena.tournaments.cli.imports FILE -t NAME`).

Writing a tournament from a published Xent benchmark config is another job, with its own
command: `arena import-benchmark` (`arena.tournaments.cli.benchmark`). Given a config, or
that command's options, `arena import` says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from arena.cli.console import run_app
from arena.errors import ConfigError

# The option types of the modules behind the command, repeated here so that building the
# command line imports none of them (tests/cli/test_cli_start.py checks that they agree).
ImportFormat = Literal[
    "gamebench", "csv", "jsonl", "xent-results", "xent-config"
]  # arena.tournaments.services.exchange.formats
OutcomeRule = Literal["higher-wins", "win-share"]  # arena.tournaments.ratings.outcomes

LONG_SNAPSHOT = 20_000  # imported matches from which the rating snapshot takes ~10 s or more
app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, no_args_is_help=True)

BENCHMARK_ONLY = "--out, --judge, --maps and --rounds"


def _benchmark_option(hint: str) -> object:
    """An option of `arena import-benchmark` that `arena import` keeps (hidden) only to say
    which command it belongs to."""
    return typer.Option(hidden=True, help=hint)


@app.command("import")
def import_command(
    file: Annotated[Path, typer.Argument(help="The results file.")],
    tournament: Annotated[
        str | None, typer.Option("--tournament", "-t", help="Store under this name.")
    ] = None,
    fmt: Annotated[
        ImportFormat | None,
        typer.Option(
            "--format",
            help="File format (default: from the file's extension or JSON content); "
            "xent-results: a result file of the published Xent benchmark (BenchmarkResult). "
            "A Xent benchmark config (xent-config) is no results file: `arena "
            "import-benchmark` writes it as a tournament.",
        ),
    ] = None,
    outcome: Annotated[
        OutcomeRule | None,
        typer.Option(
            help="csv/jsonl: how scores compare (default higher-wins; GameBench files are "
            "win shares)."
        ),
    ] = None,
    db: Annotated[
        str | None,
        typer.Option("--db", help="SQLAlchemy URL (default: $XENT_ARENA_DB or the user data dir)."),
    ] = None,
    out: Annotated[Path | None, _benchmark_option("see arena import-benchmark")] = None,
    judge: Annotated[str | None, _benchmark_option("see arena import-benchmark")] = None,
    maps: Annotated[int | None, _benchmark_option("see arena import-benchmark")] = None,
    rounds: Annotated[int | None, _benchmark_option("see arena import-benchmark")] = None,
) -> None:
    """Store external match results (GameBench, CSV, JSON Lines, Xent benchmark results) as
    a tournament of their own; no game is run."""
    from arena.storage import Store
    from arena.tournaments.records.rating_store import store_snapshot
    from arena.tournaments.services.exchange.importers import import_parsed, parse_file

    if any(v is not None for v in (out, judge, maps, rounds)):
        raise ConfigError(
            f"{BENCHMARK_ONLY} are options of `arena import-benchmark`, which writes a "
            "tournament from a Xent benchmark config; `arena import` stores match results. "
            f"Write the tournament with: arena import-benchmark {file} --out FOLDER"
        )
    if tournament is None:
        raise ConfigError(
            f"`arena import {file.name}` stores match results and needs a tournament name: "
            "add --tournament NAME (e.g. -t imported). To write a tournament from a Xent "
            f"benchmark config instead: arena import-benchmark {file} --out FOLDER"
        )
    parsed = parse_file(file, fmt, outcome)
    store = Store.open(db, create=True)
    try:
        store.require_writable("`arena import` stores the file's matches in it")
        result = import_parsed(store, parsed, tournament)
        if result.created:
            if result.source.matches >= LONG_SNAPSHOT:  # minutes at 200 000: say so first
                typer.echo(f"stored {result.source.matches} matches; rating them for the "
                           "dashboard's snapshot (about a minute per 100 000 matches) ...")
            store_snapshot(store, tournament, run_id=result.source.run_id)
    finally:
        store.close()
    src = result.source
    if not result.created:
        typer.echo(
            f"already imported: {file.name} (sha256 {parsed.sha256[:12]}) is in tournament "
            f"'{tournament}' since {src.imported_at} as '{src.file}' ({src.matches} matches); "
            "nothing changed."
        )
        return
    games = {m.game for m in parsed.matches}
    people = {s.participant for m in parsed.matches for s in m.seats}
    typer.echo(
        f"imported {src.matches} matches ({len(games)} games, {len(people)} participants) "
        f"from {src.file} (sha256 {src.sha256[:12]}, {src.format}, scores read as "
        f"{src.outcome}) into tournament '{tournament}'."
    )


def main(argv: list[str] | None = None) -> None:
    """`python -m arena.tournaments.cli.imports`: user errors print a message and exit 2."""
    run_app(app, argv)


if __name__ == "__main__":
    main()
