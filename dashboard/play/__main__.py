"""`python -m arena.dashboard.play`: what `arena play-server` starts (it checks the
options first). The token, if any, comes in `XENT_ARENA_PLAY_TOKEN`, never on this
process's command line, so it does not show in the process list."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from pathlib import Path

from arena.dashboard.play.caps import Caps
from arena.dashboard.play.hosts import HostRule, host_name
from arena.dashboard.play.matches import tournament_with_humans
from arena.dashboard.play.opponents import DEFAULT_OPPONENTS, Opponents
from arena.dashboard.play.people import PeopleBook, default_people_file, person_name_problem
from arena.dashboard.play.server import Settings, serve
from arena.errors import ArenaError, ConfigError
from arena.plugins.registry import Registry
from arena.tournaments.planning.config import load_tournament

TOKEN_ENV = "XENT_ARENA_PLAY_TOKEN"


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(prog="python -m arena.dashboard.play")
    made.add_argument("--host", default="127.0.0.1")
    made.add_argument("--port", type=int, default=8600)
    made.add_argument("--db", default=None)
    made.add_argument("--judge", default="ngram")
    made.add_argument("--move-timeout", type=float, default=3600.0)
    made.add_argument("--tournament", action="append", default=[])
    made.add_argument("--opponent", action="append", default=[])
    made.add_argument("--allowed-host", action="append", default=[])
    made.add_argument("--people", type=Path, default=None)
    made.add_argument("--invite", action="append", default=[])
    made.add_argument("--max-starts", type=int, default=Caps.starts_per_minute)
    made.add_argument("--max-sockets", type=int, default=Caps.sockets)
    return made


def check_names(hosts: list[str], invites: list[str]) -> None:
    """The organiser's host names and invited names, each a plain name; else ConfigError."""
    for name in hosts:
        if host_name(name) != name.lower() or ":" in name:
            raise ConfigError(f"--allowed-host {name!r} is not a host name; give the name "
                              "people type in the address bar, without port, e.g. "
                              "play.example.org.")
    for name in invites:
        problem = person_name_problem(name)
        if problem:
            raise ConfigError(f"--invite: {problem}")


def settings_from(args: argparse.Namespace, registry: Registry, token: str | None) -> Settings:
    check_names(args.allowed_host, args.invite)
    if args.max_starts < 1 or args.max_sockets < 1:
        raise ConfigError("--max-starts and --max-sockets take a whole number of at least 1, "
                          "e.g. --max-starts 6.")
    caps = Caps(starts_per_minute=args.max_starts, sockets=args.max_sockets,
                sockets_per_address=max(1, args.max_sockets // 4))
    return Settings(
        db=args.db, judge=args.judge, move_timeout=args.move_timeout, token=token,
        hosts=HostRule.for_bind(args.host, args.allowed_host),
        opponents=Opponents.from_specs(args.opponent or DEFAULT_OPPONENTS, registry),
        people=PeopleBook(args.people or default_people_file()), caps=caps,
        invites=tuple(args.invite),
    )


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    token = os.environ.pop(TOKEN_ENV, "") or None
    try:
        registry = Registry.load()
        settings = settings_from(args, registry, token)
        prepared = [
            tournament_with_humans(load_tournament(path, registry), registry)
            for path in args.tournament
        ]
    except ArenaError as error:
        print(f"arena play-server: {error}", file=sys.stderr)
        raise SystemExit(2) from None

    def ready(url: str) -> None:
        print(f"play server: {url}", flush=True)

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(settings, args.host, args.port, registry, prepared, ready))


if __name__ == "__main__":
    main()
