"""`arena play-server`: people play seats in the browser (docs/play.md).

Opt-in and separate from the dashboard's pages, which stay read-only (`arena dashboard
--play` starts this server beside them, on its own port). It binds 127.0.0.1
unless `--host` says otherwise, and any other host needs `--token` (the page asks for it;
it reaches the server process through its environment, not its command line). The server
itself is `arena.dashboard.play`, started as a child process: tournaments may import only
arena (the architecture test), as for the dashboard.
"""

from __future__ import annotations

import ipaddress
import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.errors import ConfigError
from arena.tournaments.cli.dashboard import LOOPBACK, STOPPED, check_port, stop_child

play_server_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
DEFAULT_PORT = 8600
TOKEN_ENV = "XENT_ARENA_PLAY_TOKEN"
MIN_TOKEN_CHARS = 16


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_token(host: str, token: str | None) -> None:
    """A host other than loopback needs a token long enough not to be guessed."""
    if is_loopback(host):
        return
    make = "python -c 'import secrets; print(secrets.token_urlsafe())'"
    if not token:
        raise ConfigError(
            f"--host {host} shares the play server beyond this machine, so it needs a token: "
            f"add --token \"$({make})\" and give it to the players, or use --host {LOOPBACK}."
        )
    if len(token) < MIN_TOKEN_CHARS:
        raise ConfigError(
            f"The play token has {len(token)} characters; use at least {MIN_TOKEN_CHARS} so "
            f"that it cannot be guessed, e.g. --token \"$({make})\"."
        )


def browser_entrants(file: Path) -> list[str]:
    """The participants of a tournament file whose moves come from the browser (`human:web`);
    empty for a file that cannot be read (the run reports that itself)."""
    import tomllib

    from arena.specs import parse_spec

    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
        found = []
        for entry in data.get("participants", []):
            spec = parse_spec(str(entry.get("player", "")))
            if spec.name == "human" and spec.arg == "web":
                found.append(str(entry.get("name", "")))
        return found
    except Exception:  # any problem with the file is the run's to report
        return []


def server_command(
    host: str, port: int, db: str | None, judge: str, move_timeout: float,
    tournaments: list[Path],
) -> list[str]:
    command = [sys.executable, "-m", "arena.dashboard.play", "--host", host, "--port",
               str(port), "--judge", judge, "--move-timeout", str(move_timeout)]
    if db:
        command += ["--db", db]
    for path in tournaments:
        command += ["--tournament", str(path)]
    return command


def start_play_server(
    host: str, port: int, db: str | None, token: str | None, judge: str = "ngram",
    move_timeout: float = 3600.0, tournaments: list[Path] | None = None,
) -> subprocess.Popen[bytes]:
    """Check the options (token off loopback, tournament files, the port) and start the
    play server as a child process; the token goes through its environment."""
    check_token(host, token)
    for path in tournaments or []:
        if not path.is_file():
            raise ConfigError(f"No tournament file at {path}. Check the path.")
    check_port(host, port)
    env = dict(os.environ)
    if token:
        env[TOKEN_ENV] = token
    command = server_command(host, port, db, judge, move_timeout, tournaments or [])
    typer.echo(f"Play page: http://{host}:{port}/  (Ctrl-C stops it)")
    return subprocess.Popen(command, env=env)


@play_server_app.command("play-server")
def play_server_command(
    db: Annotated[
        str | None,
        typer.Option("--db", help="SQLAlchemy URL (default: $XENT_ARENA_DB or the user data dir)."),
    ] = None,
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to serve on.")] = DEFAULT_PORT,
    host: Annotated[str, typer.Option(help="Address to bind (needs --token unless loopback).")]
    = LOOPBACK,
    token: Annotated[
        str | None, typer.Option(help="Secret the page asks for (required off loopback).")
    ] = None,
    judge: Annotated[str, typer.Option(help="Judge of the matches started on the page.")]
    = "ngram",
    move_timeout: Annotated[
        float, typer.Option(min=1.0, help="Seconds a person has per move in a page's match.")
    ] = 3600.0,
    tournament: Annotated[
        list[Path] | None,
        typer.Option(
            "--tournament", "-t",
            help="A tournament file to run here (its human:web entrants play on the "
                 "page; its move_timeout applies); repeatable.",
        ),
    ] = None,
) -> None:
    """Serve the play page: a person plays a seat of any game, or their seats of tournaments
    with human:web entrants. Matches are stored in the database like any other."""
    child = start_play_server(host, port, db, token, judge, move_timeout, tournament)
    try:
        code = child.wait()
    except KeyboardInterrupt:
        stop_child(child)
        typer.echo(STOPPED, err=True)
        raise typer.Exit(130) from None
    if code != 0:
        raise typer.Exit(code)
