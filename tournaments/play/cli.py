"""`arena play-server`: people play seats in the browser (docs/play.md), and the options
`arena dashboard --play` passes through to the same server.

Opt-in and separate from the dashboard's pages, which stay read-only (`arena dashboard
--play` starts this server beside them, on its own port). It binds 127.0.0.1 unless `--host`
says otherwise, and any other host needs `--token` (the page asks for it; it reaches the
server process through its environment, not its command line). The organiser also chooses
the judge and the ladder (`--judge`, `--ladder`, `--model`), the names the server answers to
(`--allowed-host`), the players a person may pick for the other seats (`--opponent`), who is
invited (`--invite`, and every `human:web` entrant of a `--tournament`), where people's
secrets are kept (`--people`) and the caps. The server itself is `python -m
arena.tournaments.play`, started as a child process so that `arena dashboard --play` runs it
beside Streamlit; it checks those options and says what is wrong in one sentence (exit 2).
"""

from __future__ import annotations

import ipaddress
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from arena.cli.context import registry_of
from arena.errors import ConfigError
from arena.tournaments.cli.child_servers import LOOPBACK, STOPPED, check_port, stop_child

if TYPE_CHECKING:
    from arena.plugins.registry import Registry

play_server_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
DEFAULT_PORT = 8600
TOKEN_ENV = "XENT_ARENA_PLAY_TOKEN"
MIN_TOKEN_CHARS = 16
SERVER_MODULE = "arena.tournaments.play"

# The options both commands take, declared once (`arena dashboard --play` names the judge,
# move timeout and tournament files with a `--play-` prefix: there they would be ambiguous).
JUDGE_HELP = "Judge of the page's matches (default: bundled, stories a person can read)."
TIMEOUT_HELP = "Seconds a person has per move in a page's match."
TOURNAMENT_HELP = ("A tournament file to run here (its human:web entrants play on the page; "
                   "its move_timeout applies); repeatable.")
OpponentOption = Annotated[list[str] | None, typer.Option(
    "--opponent", help="A player a person may pick for the other seats of a page match; "
    "repeatable; replaces the default list (random, search, scripted:* = a script written on "
    "the page, hf:bundled).")]
ModelOption = Annotated[list[str] | None, typer.Option(
    "--model", help="A program people are rated against on the ladder: it plays every map a "
    "person plays, after them; repeatable; replaces the default (random, search, hf:bundled).")]
LadderOption = Annotated[str, typer.Option(
    "--ladder", help="The tournament that holds the page's matches and ratings (pasted games "
    "go to NAME-practice).")]
AllowedHostOption = Annotated[list[str] | None, typer.Option(
    "--allowed-host", help="A name people reach the play server by (the address bar's host, "
    "e.g. play.example.org), beside the bound address and localhost; repeatable. Requests "
    "naming any other host are refused.")]
PeopleOption = Annotated[Path | None, typer.Option(
    "--people", help="File of people's names and their secrets' digests (default: "
    "play-people.json in the user data dir).")]
InviteOption = Annotated[list[str] | None, typer.Option(
    "--invite", help="Make a new invite link for this person (replacing any earlier one) and "
    "print it once; repeatable.")]
MaxStartsOption = Annotated[int, typer.Option(
    "--max-starts", min=1, help="Matches one person may start per minute.")]
MaxSocketsOption = Annotated[int, typer.Option(
    "--max-sockets", min=1, help="Play pages open at once, all together (a quarter of it "
    "from one address).")]


@dataclass
class PlayOptions:
    """The play server's options other than where it listens, as the child takes them."""

    judge: str = "bundled"
    move_timeout: float = 3600.0
    tournaments: list[Path] = field(default_factory=list)
    opponents: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    ladder: str = "play"
    allowed_hosts: list[str] = field(default_factory=list)
    people: Path | None = None
    invites: list[str] = field(default_factory=list)
    max_starts: int = 6
    max_sockets: int = 64
    dashboard_url: str = ""

    def argv(self) -> list[str]:
        """The child's own spelling of these options."""
        return [
            "--judge", self.judge, "--move-timeout", str(self.move_timeout),
            *repeated("--tournament", self.tournaments), *repeated("--opponent", self.opponents),
            *repeated("--model", self.models), "--ladder", self.ladder,
            *repeated("--allowed-host", self.allowed_hosts),
            *repeated("--people", [self.people] if self.people else []),
            *repeated("--invite", self.invites), "--max-starts", str(self.max_starts),
            "--max-sockets", str(self.max_sockets),
            *repeated("--dashboard-url", [self.dashboard_url] if self.dashboard_url else []),
        ]


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


def server_command(host: str, port: int, db: str | None, options: PlayOptions) -> list[str]:
    command = [sys.executable, "-m", SERVER_MODULE, "--host", host, "--port", str(port),
               *options.argv()]
    if db:
        command += ["--db", db]
    return command


def repeated(option: str, values: Sequence[object] | None) -> list[str]:
    """`--option v` for each value (the child process's own spelling)."""
    return [part for value in values or () for part in (option, str(value))]


def check_options(host: str, token: str | None, options: PlayOptions,
                  registry: Registry) -> None:
    """Everything the server would refuse at start, refused now (one sentence each): the
    token off loopback, the tournament files, the judge, the ladder, the lists, the names."""
    # The server's modules (aiohttp, storage, the run) load with the command, not with `arena`.
    from arena.tournaments.play.options import parser, settings_from, tournaments_of

    check_token(host, token)
    for path in options.tournaments:
        if not path.is_file():
            raise ConfigError(f"No tournament file at {path}. Check the path.")
    args = parser().parse_args(["--host", host, *options.argv()])
    settings_from(args, registry, token)
    tournaments_of(args.tournament, registry)


def start_play_server(
    host: str, port: int, db: str | None, token: str | None, options: PlayOptions,
    registry: Registry,
) -> subprocess.Popen[bytes]:
    """Check the options and the port and start the play server as a child process; the
    token goes through its environment."""
    check_options(host, token, options, registry)
    check_port(host, port)
    env = dict(os.environ)
    if token:
        env[TOKEN_ENV] = token
    typer.echo(f"Play page: http://{host}:{port}/  (Ctrl-C stops it)")
    return subprocess.Popen(server_command(host, port, db, options), env=env)


@play_server_app.command("play-server")
def play_server_command(
    ctx: typer.Context,
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
    judge: Annotated[str, typer.Option(help=JUDGE_HELP)] = "bundled",
    move_timeout: Annotated[float, typer.Option(min=1.0, help=TIMEOUT_HELP)] = 3600.0,
    tournament: Annotated[
        list[Path] | None, typer.Option("--tournament", "-t", help=TOURNAMENT_HELP)
    ] = None,
    opponent: OpponentOption = None,
    model: ModelOption = None,
    ladder: LadderOption = "play",
    allowed_host: AllowedHostOption = None,
    people: PeopleOption = None,
    invite: InviteOption = None,
    max_starts: MaxStartsOption = 6,
    max_sockets: MaxSocketsOption = 64,
    dashboard_url: Annotated[str, typer.Option(
        "--dashboard-url", help="The dashboard's address, for the page's links to the "
        "Leaderboard and Replay (e.g. http://127.0.0.1:8501); `arena dashboard --play` sets "
        "it.")] = "",
) -> None:
    """Serve the play page: a person plays a seat of any game against the organiser's
    programs and is rated on the ladder beside the models; or their seats of tournaments
    with human:web entrants. Matches are stored in the database like any other."""
    options = PlayOptions(
        judge=judge, move_timeout=move_timeout, tournaments=list(tournament or []),
        opponents=list(opponent or []), models=list(model or []), ladder=ladder,
        allowed_hosts=list(allowed_host or []), people=people, invites=list(invite or []),
        max_starts=max_starts, max_sockets=max_sockets, dashboard_url=dashboard_url,
    )
    child = start_play_server(host, port, db, token, options, registry_of(ctx))
    try:
        code = child.wait()
    except KeyboardInterrupt:
        stop_child(child)
        typer.echo(STOPPED, err=True)
        raise typer.Exit(130) from None
    if code != 0:
        raise typer.Exit(code)
