"""Matches and tournaments with human seats, played by the play server and stored like any.

A single match from the play page is a one-match eval tournament (`play-<person>-<time>`):
the person is the participant `human-<person>` (spec `human:web?name=<person>`), every
other seat an NPC participant; the schedule is cut to the one plan where the person sits in
the chosen role. So it is stored, keyed and rated by the tournament code, and appears in
Matches, Replay and the ratings. A game is a registered name or pasted text, never a path
on the server: a pasted game goes in as a scope game does (its text, never a file), checked
by the same loader with the same resource limits.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from arena.errors import ConfigError, UnknownNameError
from arena.lang.limits import ResourceLimits
from arena.match_setup import LoadedGame, load_entry, load_game_text
from arena.plugins.registry import Registry
from arena.specs import parse_spec, shorten
from arena.tournaments.planning.config import TournamentConfig, parse_tournament
from arena.tournaments.planning.pairings import MatchPlan
from arena.tournaments.running.prepare import PreparedTournament, prepare_tournament

PASTED = "pasted"
HUMAN_PREFIX = "human-"


@dataclass(frozen=True)
class SeatChoice:
    """What the play page asks for: a game (name or pasted text) and the other seats."""

    person: str
    game: str  # a registered name; ignored when `source` is given
    role: str
    others: dict[str, str]  # role -> player spec
    source: str = ""
    dialect: str | None = None
    rounds: int = 1


def registered_game(game: str, registry: Registry) -> str:
    """`game` if it is a registered game's name; else UnknownNameError listing them. Nothing
    on the server's disk is looked at, so the answer is the same for any path."""
    if game not in registry.game_names():
        raise UnknownNameError(
            "game", shorten(game, 60), registry.game_names(),
            "Pick one of the page's games, or paste a game's text (XGL).",
        )
    return game


def page_game(game: str, source: str, dialect: str | None, registry: Registry,
              limits: ResourceLimits) -> LoadedGame:
    """The game the page names: pasted text, else a registered name (never a path)."""
    if source:
        return load_game_text(source, f"{PASTED}.xgl", dialect=dialect, limits=limits)
    entry = registry.game(registered_game(game, registry))
    return load_entry(entry, dialect=dialect, limits=limits)


def human_seats(plan: MatchPlan) -> dict[str, str]:
    """role -> person for the `human:web` seats of a plan."""
    found = {}
    for seat in plan.seats:
        spec = parse_spec(seat.spec)
        if spec.name == "human" and spec.arg == "web":
            found[seat.role] = spec.params.get("name", "")
    return found


def _npc_name(index: int, spec: str) -> str:
    return f"npc{index}-" + re.sub(r"[^A-Za-z0-9_.\-]+", "-", spec)[:40]


def single_match(
    choice: SeatChoice, registry: Registry, *, judge: str, move_timeout: float,
    limits: ResourceLimits,
) -> PreparedTournament:
    """The one-match tournament of `choice`; raises ConfigError (or the config's own error,
    with every problem) for a choice that does not make a match."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    name = f"play-{choice.person}-{stamp}-{secrets.token_hex(2)}"
    label = PASTED if choice.source else registered_game(choice.game, registry)
    others = sorted(choice.others.items())
    npcs = {role: _npc_name(i, spec) for i, (role, spec) in enumerate(others)}
    participants: list[dict[str, object]] = [{"name": HUMAN_PREFIX + choice.person,
                     "player": f"human:web?name={choice.person}"}]
    participants += [{"name": npcs[role], "player": spec, "npc_only": True}
                     for role, spec in others]
    if npcs:  # eval mode wants an NPC for every role; the plans using this one are cut
        npcs[choice.role] = next(iter(npcs.values()))
    game: dict[str, object] = {"game": label, "name": label, "npc": npcs}
    if choice.dialect:
        game["dialect"] = choice.dialect
    data = {
        "name": name, "mode": "eval", "judge": judge, "seed": secrets.randbelow(2**31),
        "rounds": choice.rounds, "maps": 1, "move_timeout": move_timeout, "move_retries": 0,
        "limits": limits.model_dump(), "participants": participants, "games": [game],
    }
    config = parse_tournament(data, source="the play page", registry=registry)
    if choice.source:
        config._texts = {PASTED: (choice.source, f"{PASTED}.xgl")}
    prepared = prepare_tournament(config, registry, "the play page")
    mine = [p for p in prepared.plans
            if p.main_role == choice.role and human_seats(p).get(choice.role) == choice.person]
    if not mine:
        roles = sorted({p.main_role or "" for p in prepared.plans})
        raise ConfigError(
            f"Role {shorten(choice.role, 40)!r} does not play in this game. Pick one of: "
            f"{', '.join(roles) or '(none)'}."
        )
    return replace(prepared, plans=(mine[0],))


def tournament_with_humans(config: TournamentConfig, registry: Registry) -> PreparedTournament:
    """A tournament file's schedule, checked; it needs the local executor (a human seat
    waits on this process's desk)."""
    if config.executor != "local":
        raise ConfigError(
            f"Tournament '{config.name}' names executor '{config.executor}'; a tournament "
            "with human:web entrants runs in the play server's process. Set executor = "
            "\"local\"."
        )
    return prepare_tournament(config, registry)
