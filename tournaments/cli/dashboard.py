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
import socket
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.errors import ArenaError

dashboard_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)

EXTRA = "xent-arena[dashboard]"
DEFAULT_PORT = 8501
LOOPBACK = "127.0.0.1"
STOP_WAIT_S = 10.0
STOPPED = "dashboard stopped."


class DashboardError(ArenaError):
    """The dashboard cannot start (Streamlit missing, port busy)."""


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


def check_port(host: str, port: int) -> None:
    """Raise unless `host:port` can be bound now (Streamlit would fail later, less clearly)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise DashboardError(
            f"Cannot listen on host '{host}': {error.strerror}. Use an address of this "
            f"machine, e.g. --host {LOOPBACK} (this machine only) or --host 0.0.0.0 (every "
            "interface)."
        ) from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            raise DashboardError(
                f"Cannot listen on {host}:{port}: {error.strerror}. Pick another port with "
                f"--port (e.g. --port {port + 1})."
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


def stop_child(child: subprocess.Popen[bytes]) -> None:
    """Stop the Streamlit server with SIGTERM, which it obeys even when started with SIGINT
    ignored (a script's background job inherits that), then kill it if it lingers."""
    child.terminate()
    try:
        child.wait(timeout=STOP_WAIT_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


@dashboard_app.command("dashboard")
def dashboard_command(
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
) -> None:
    """Serve the live dashboard (read-only) over an arena database; Ctrl-C or SIGTERM
    stops it and its Streamlit server (and the play page, with --play)."""
    from arena.storage import DB_ENV, Store, default_db_url, shown_url

    if play:  # a bad play option is told before anything else is checked
        from arena.tournaments.play_server_cli import check_token

        check_token(host, play_token)
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
    if play:  # its own server and port: the dashboard's pages never write
        from arena.tournaments.play_server_cli import start_play_server

        player = start_play_server(host, play_port, url, play_token)
    typer.echo(f"Dashboard: http://{host}:{port}/  (database {shown_url(url)}; Ctrl-C stops it)")
    env = {**os.environ, DB_ENV: url}
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
