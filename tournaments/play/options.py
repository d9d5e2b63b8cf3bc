"""The play server's options as its process reads them (`python -m arena.tournaments.play`),
checked in one place: `arena play-server` and `arena dashboard --play` check them the same
way before they start anything, so a bad option is one sentence (exit 2) and no server."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from arena.errors import ArenaError, ConfigError
from arena.plugins.registry import Registry
from arena.tournaments.planning.config import load_tournament
from arena.tournaments.play.caps import Caps
from arena.tournaments.play.hosts import HostRule, dashboard_url, host_name
from arena.tournaments.play.ladder import DEFAULT_MODELS, LADDER, Ladder, tournament_with_humans
from arena.tournaments.play.opponents import DEFAULT_OPPONENTS, Opponents
from arena.tournaments.play.people import PeopleBook, default_people_file, person_name_problem
from arena.tournaments.play.server import Settings
from arena.tournaments.running.prepare import PreparedTournament

TOKEN_ENV = "XENT_ARENA_PLAY_TOKEN"
DEFAULT_JUDGE = "bundled"


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(prog="python -m arena.tournaments.play")
    made.add_argument("--host", default="127.0.0.1")
    made.add_argument("--port", type=int, default=8600)
    made.add_argument("--db", default=None)
    made.add_argument("--judge", default=DEFAULT_JUDGE)
    made.add_argument("--move-timeout", type=float, default=3600.0)
    made.add_argument("--tournament", action="append", default=[])
    made.add_argument("--opponent", action="append", default=[])
    made.add_argument("--model", action="append", default=[])
    made.add_argument("--ladder", default=LADDER)
    made.add_argument("--allowed-host", action="append", default=[])
    made.add_argument("--people", type=Path, default=None)
    made.add_argument("--invite", action="append", default=[])
    made.add_argument("--max-starts", type=int, default=Caps.starts_per_minute)
    made.add_argument("--max-sockets", type=int, default=Caps.sockets)
    made.add_argument("--dashboard-url", default="")
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


def ladder_from(args: argparse.Namespace, registry: Registry) -> Ladder:
    """The ladder of the options: its name, a judge that exists, models that may play."""
    if person_name_problem(args.ladder) or args.ladder.endswith("-practice"):
        raise ConfigError(f"--ladder {args.ladder!r} is not a tournament name: use up to 32 "
                          "letters, digits, '_', '-' and '.' (not ending in -practice), "
                          "e.g. --ladder play.")
    try:
        registry.check_spec("judge", args.judge)
    except ArenaError as error:
        raise ConfigError(f"--judge {args.judge!r}: {error}") from None
    models = Opponents.from_specs(args.model or DEFAULT_MODELS, registry, option="--model")
    if any(entry.takes_text for entry in models.entries):
        raise ConfigError("--model takes whole player specs (the models play every map a "
                          "person plays), not scripted:*; e.g. --model random.")
    return Ladder(name=args.ladder, judge=args.judge,
                  models=tuple(e.spec for e in models.entries), move_timeout=args.move_timeout)


def settings_from(args: argparse.Namespace, registry: Registry, token: str | None) -> Settings:
    check_names(args.allowed_host, args.invite)
    if args.max_starts < 1 or args.max_sockets < 1:
        raise ConfigError("--max-starts and --max-sockets take a whole number of at least 1, "
                          "e.g. --max-starts 6.")
    caps = Caps(starts_per_minute=args.max_starts, sockets=args.max_sockets,
                sockets_per_address=max(1, args.max_sockets // 4))
    return Settings(
        db=args.db, ladder=ladder_from(args, registry), token=token,
        hosts=HostRule.for_bind(args.host, args.allowed_host),
        opponents=Opponents.from_specs(args.opponent or DEFAULT_OPPONENTS, registry),
        people=PeopleBook(args.people or default_people_file()), caps=caps,
        invites=tuple(args.invite), dashboard=dashboard_url(args.dashboard_url),
    )


def tournaments_of(paths: Sequence[str], registry: Registry) -> list[PreparedTournament]:
    """The tournament files to run, checked (their human seats need the local executor)."""
    return [tournament_with_humans(load_tournament(path, registry), registry) for path in paths]
