"""`arena play-server`: people play seats in the browser (docs/play.md).

Opt-in and separate from the dashboard's pages, which stay read-only (`arena dashboard
--play` starts this server beside them, on its own port). It binds 127.0.0.1
unless `--host` says otherwise, and any other host needs `--token` (the page asks for it;
it reaches the server process through its environment, not its command line). The
organiser also chooses the names the server answers to (`--allowed-host`), the players a
person may pick for the other seats (`--opponent`), who is invited (`--invite`, and every
`human:web` entrant of a `--tournament`), where people's secrets are kept (`--people`) and
the caps. The server itself is `arena.dashboard.play`, started as a child process:
tournaments may import only arena (the architecture test), as for the dashboard; it checks
those options and says what is wrong in one sentence (exit 2).
"""

from __future__ import annotations

import ipaddress
import os
import subprocess
import sys
from collections.abc import Sequence
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
    tournaments: list[Path], options: Sequence[str] = (),
) -> list[str]:
    command = [sys.executable, "-m", "arena.dashboard.play", "--host", host, "--port",
               str(port), "--judge", judge, "--move-timeout", str(move_timeout), *options]
    if db:
        command += ["--db", db]
    for path in tournaments:
        command += ["--tournament", str(path)]
    return command


def repeated(option: str, values: Sequence[object] | None) -> list[str]:
    """`--option v` for each value (the child process's own spelling)."""
    return [part for value in values or () for part in (option, str(value))]


def start_play_server(
    host: str, port: int, db: str | None, token: str | None, judge: str = "ngram",
    move_timeout: float = 3600.0, tournaments: list[Path] | None = None,
    options: Sequence[str] = (),
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
    command = server_command(host, port, db, judge, move_timeout, tournaments or [], options)
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
    opponent: Annotated[
        list[str] | None,
        typer.Option("--opponent", help="A player a person may pick for the other seats of "
                     "a page match; repeatable; replaces the default list (random, search, "
                     "scripted:* = a script written on the page, hf:bundled)."),
    ] = None,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option("--allowed-host", help="A name people reach this server by (the "
                     "address bar's host, e.g. play.example.org), beside the bound address "
                     "and localhost; repeatable. Requests naming any other host are refused."),
    ] = None,
    people: Annotated[
        Path | None,
        typer.Option("--people", help="File of people's names and their secrets' digests "
                     "(default: play-people.json in the user data dir)."),
    ] = None,
    invite: Annotated[
        list[str] | None,
        typer.Option("--invite", help="Make a new invite link for this person (replacing "
                     "any earlier one) and print it once; repeatable."),
    ] = None,
    max_starts: Annotated[
        int, typer.Option(min=1, help="Matches one person may start per minute.")
    ] = 6,
    max_sockets: Annotated[
        int, typer.Option(min=1, help="Pages open at once, all together (a quarter of it "
                          "from one address).")
    ] = 64,
) -> None:
    """Serve the play page: a person plays a seat of any game, or their seats of tournaments
    with human:web entrants. Matches are stored in the database like any other."""
    options = [*repeated("--opponent", opponent), *repeated("--allowed-host", allowed_host),
               *repeated("--invite", invite), "--max-starts", str(max_starts),
               "--max-sockets", str(max_sockets), *repeated("--people", [people] if people
                                                             else [])]
    child = start_play_server(host, port, db, token, judge, move_timeout, tournament, options)
    try:
        code = child.wait()
    except KeyboardInterrupt:
        stop_child(child)
        typer.echo(STOPPED, err=True)
        raise typer.Exit(130) from None
    if code != 0:
        raise typer.Exit(code)
