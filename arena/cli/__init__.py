"""The `arena` command line. Sub-commands live in `arena/cli/commands/`, one module each;
plugins add their own through the `arena_cli_commands` hook. The plugins are discovered
once, here, and the registry reaches each command through the click context
(`arena.cli.context`). How a run ends (exit codes, messages, crash logs) is
`arena.cli.console`.

`arena run`, `matches`, `ratings`, `scores`, `import`, `export`, `demo` and `dashboard` are
the tournaments wing's, mounted through that hook: their code is `arena/tournaments/cli/`
(`arena run` in `run.py`); `schedule` and `scheduler` are
`arena.tournaments.services.recurring.cli`.
"""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.console import ArenaGroup, run_app, set_verbose
from arena.noise import quiet_third_party, verbose_third_party

__all__ = ["app", "main", "run_app"]

app = typer.Typer(
    name="arena",
    cls=ArenaGroup,
    help="Xent Arena: play, rate and schedule Cross-Entropy games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Click's plain help: it rewraps docstrings to the terminal (Rich's kept their line
    # breaks) and needs no Rich import (a third of the start-up time of `arena --help`).
    rich_markup_mode=None,
    context_settings={"max_content_width": 120},  # wide terminals get whole summaries
)


def _print_version(value: bool) -> None:
    if value:
        from arena import __version__

        typer.echo(f"arena (xent-arena) {__version__}")
        raise typer.Exit()


@app.callback()
def global_options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True,
                     help="Print the version and exit."),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose", "-v",
            help="Show third-party warnings and progress bars, and print the traceback of "
            "an internal error.",
        ),
    ] = False,
) -> None:
    """Xent Arena: play, rate and schedule Cross-Entropy games."""
    set_verbose(verbose)
    if verbose:
        verbose_third_party()
    else:
        quiet_third_party()


def _register_commands() -> None:
    from arena.cli.commands import games, play, plugins, scope, transfer
    from arena.plugins.registry import Registry

    # each a module-level typer app, like the plugins'
    for module in (play, games, plugins, transfer, scope):
        app.add_typer(module.app)
    # The one discovery of this process: plugins (the built-in tournaments package
    # included) add their own sub-commands, and every command gets this registry as its
    # context object (`arena.cli.context.registry_of`).
    registry = Registry.load()
    plugins.mount_plugin_commands(app, registry)
    app.info.context_settings = {**(app.info.context_settings or {}), "obj": registry}


def build_app() -> typer.Typer:
    """The complete `arena` app, plugin commands included (registered once)."""
    if not app.registered_commands and not app.registered_groups:
        _register_commands()
    return app


def main(argv: list[str] | None = None) -> None:
    """Console entry point of `arena`."""
    run_app(build_app(), argv)


if __name__ == "__main__":
    main()
