"""`arena dashboard`: the Streamlit app (`dashboard/app.py`) over an arena database,
read-only, on loopback unless `--host` says otherwise.

Before Streamlit starts, the database is opened read-only and its schema checked, and the
port is tried, so a bad `--db` or a busy port is one clear sentence, not a server that
starts and then shows an error. The URL reaches the app through `XENT_ARENA_DB`, not the
command line, so a password in it never shows in the process list.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.context import registry_of
from arena.tournaments.cli.child_servers import (
    LOOPBACK,
    STOPPED,
    ServerError,
    check_port,
    stop_child,
)
from arena.tournaments.play.cli import (
    AllowedHostOption,
    InviteOption,
    LadderOption,
    MaxSocketsOption,
    MaxStartsOption,
    ModelOption,
    OpponentOption,
    PeopleOption,
    PlayOptions,
    check_options,
    start_play_server,
)

dashboard_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)

EXTRA = "xent-arena[dashboard]"
DEFAULT_PORT = 8501
PLAY_URL_ENV = "XENT_ARENA_PLAY_URL"  # where the dashboard's Play entry points
DashboardError = ServerError  # the dashboard cannot start (Streamlit missing, port busy)
__all__ = ["LOOPBACK", "STOPPED", "DashboardError", "check_port", "dashboard_command",
           "stop_child"]


def app_script() -> Path:
    """The entry script of the Streamlit app (shipped in the `dashboard` package). Found,
    not imported: tournaments may import only arena (the architecture test)."""
    found = importlib.util.find_spec("arena.dashboard")
    if found is None or found.origin is None:
        raise DashboardError("The dashboard package is not installed with the arena.")
    return Path(found.origin).resolve().parent / "app.py"


def require_streamlit() -> None:
    try:
        import streamlit  # noqa: F401
    except ImportError:
        raise DashboardError(
            "The dashboard needs Streamlit, which is not installed. Install the dashboard "
            f"extra: pip install '{EXTRA}'"
        ) from None


def streamlit_command(host: str, port: int) -> list[str]:
    return [
        sys.executable, "-m", "streamlit", "run", str(app_script()),
        "--server.address", host,
        "--server.port", str(port),
        "--server.headless", "true",
        "--server.fileWatcherType", "none",
        "--server.runOnSave", "false",
        "--browser.gatherUsageStats", "false",
        "--global.developmentMode", "false",
    ]


@dashboard_app.command("dashboard")
def dashboard_command(
    ctx: typer.Context,
    db: Annotated[
        str | None,
        typer.Option("--db", help="SQLAlchemy URL (default: $XENT_ARENA_DB or the user data dir)."),
    ] = None,
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to serve on.")] = DEFAULT_PORT,
    host: Annotated[
        str, typer.Option(help="Address to bind; 0.0.0.0 shares it with the network.")
    ] = LOOPBACK,
    upgrade: Annotated[
        bool, typer.Option(help="First bring an older database to this arena's schema.")
    ] = False,
    play: Annotated[
        bool, typer.Option("--play", help="Also serve the play page (`arena play-server`, "
                           "docs/play.md) on --play-port; the dashboard stays read-only.")
    ] = False,
    play_port: Annotated[int, typer.Option(min=1, max=65535, help="Port of the play page.")]
    = 8600,
    play_token: Annotated[
        str | None, typer.Option(help="Token of the play page (required off loopback).")
    ] = None,
    play_judge: Annotated[str, typer.Option(help="Judge of the play page's matches.")]
    = "bundled",
    play_move_timeout: Annotated[
        float, typer.Option(min=1.0, help="Seconds a person has per move on the play page.")
    ] = 3600.0,
    play_tournament: Annotated[
        list[Path] | None, typer.Option(help="A tournament file with human:web entrants for "
                                       "the play server to run; repeatable.")
    ] = None,
    opponent: OpponentOption = None,
    model: ModelOption = None,
    ladder: LadderOption = "play",
    allowed_host: AllowedHostOption = None,
    people: PeopleOption = None,
    invite: InviteOption = None,
    max_starts: MaxStartsOption = 6,
    max_sockets: MaxSocketsOption = 64,
) -> None:
    """Serve the live dashboard (read-only) over an arena database; Ctrl-C or SIGTERM
    stops it and its Streamlit server (and the play page, with --play, which takes the
    play server's options: `arena play-server --help`)."""
    from arena.storage import DB_ENV, Store, default_db_url, shown_url

    options = PlayOptions(
        judge=play_judge, move_timeout=play_move_timeout,
        tournaments=list(play_tournament or []), opponents=list(opponent or []),
        models=list(model or []), ladder=ladder, allowed_hosts=list(allowed_host or []),
        people=people, invites=list(invite or []), max_starts=max_starts,
        max_sockets=max_sockets, dashboard_url=f":{port}",  # the page's host, this port
    )
    if play:  # a bad play option is told before anything else is checked
        check_options(host, play_token, options, registry_of(ctx))
    require_streamlit()
    script = app_script()
    if not script.is_file():
        raise DashboardError(
            f"The dashboard app is missing ({script}): this installation of xent-arena is "
            f"incomplete. Reinstall it: pip install --force-reinstall '{EXTRA}'"
        )
    url = db or default_db_url()
    if upgrade:
        Store.open(url).close()
    Store.open_read_only(url).close()  # a clear error now, before any server starts
    check_port(host, port)
    player = None
    env = {**os.environ, DB_ENV: url}
    if play:  # its own server and port: the dashboard's pages never write
        player = start_play_server(host, play_port, url, play_token, options, registry_of(ctx))
        env[PLAY_URL_ENV] = f":{play_port}"  # the dashboard's Play entry: the reader's host
    typer.echo(f"Dashboard: http://{host}:{port}/  (database {shown_url(url)}; Ctrl-C stops it)")
    child = subprocess.Popen(streamlit_command(host, port), env=env)
    try:
        code = child.wait()
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM (`arena.interrupts`)
        stop_child(child)
        if player is not None:
            stop_child(player)
        typer.echo(STOPPED, err=True)
        raise typer.Exit(130) from None
    if player is not None:
        stop_child(player)
    if code != 0:
        raise typer.Exit(code)
