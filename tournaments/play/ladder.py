"""Page matches as matches of one standing tournament: the ladder where people are rated
beside the page's models (docs/play.md, "The ladder").

A page match is an eval match of the ladder tournament (`play` unless the organiser names
another): the person is the participant `human-<name>` (spec `human:web?name=<name>`) in the
role they chose, the other seats are NPC participants named after the players the person
picked (`npc-<spec>`), on a map drawn for this match (a seed of its own, so nobody has seen
it). Each of the ladder's models (`random`, `search` and `hf:bundled` unless the organiser
lists others) is an entrant too and plays the same map in the same role against the same
NPCs, after the person: so every page match adds comparisons between the person and each
model, and a person's Bradley–Terry rating and interval grow with each match, on the
ladder's Leaderboard. One ladder across games: a person has one rating (the dashboard's
game filter narrows it to one game).

A pasted game is practice: it goes into `<ladder>-practice` with the person alone (nothing
to compare with), so one tournament holds them all.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass, field, replace

from arena.errors import ConfigError
from arena.lang.limits import ResourceLimits
from arena.match_setup import LoadedGame
from arena.plugins.registry import Registry
from arena.specs import parse_spec, shorten
from arena.tournaments.planning.config import TournamentConfig, parse_tournament
from arena.tournaments.planning.pairings import MatchPlan
from arena.tournaments.play.games import PASTED
from arena.tournaments.running.prepare import PreparedTournament, prepare_tournament

LADDER = "play"
PRACTICE_SUFFIX = "-practice"
HUMAN_PREFIX = "human-"
NPC_PREFIX = "npc-"
DEFAULT_MODELS = ("random", "search", "hf:bundled")
MAX_ROUNDS = 10
SOURCE = "the play page"
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.\-]+")


@dataclass(frozen=True)
class Ladder:
    """The organiser's ladder: its tournament's name, the judge of its matches, the models
    people are rated against, a person's seconds per move, the limits of pasted games."""

    name: str = LADDER
    judge: str = "bundled"
    models: tuple[str, ...] = DEFAULT_MODELS
    move_timeout: float = 3600.0
    limits: ResourceLimits = field(default_factory=ResourceLimits)

    @property
    def practice(self) -> str:
        """The tournament of pasted games."""
        return self.name + PRACTICE_SUFFIX


@dataclass(frozen=True)
class SeatChoice:
    """What the play page asks for: a game (name or pasted text), the person's seat, who
    plays the other seats (role -> a spec from the organiser's list) and the rounds."""

    person: str
    game: str  # a registered name; ignored when `source` is given
    role: str
    others: dict[str, str]
    source: str = ""
    dialect: str | None = None
    rounds: int = 1


@dataclass(frozen=True)
class PageMatch:
    """One page match, as runs of its tournament: the person's match first, then the
    models' matches on the same map (none for practice)."""

    prepared: PreparedTournament  # the map's schedule, checked
    person: str
    role: str
    mine: MatchPlan
    models: tuple[MatchPlan, ...]
    opponents: dict[str, str]  # role -> player spec of the other seats

    @property
    def tournament(self) -> str:
        return self.prepared.config.name

    @property
    def participant(self) -> str:
        return person_participant(self.person)

    def person_run(self) -> PreparedTournament:
        return replace(self.prepared, plans=(self.mine,))

    def models_run(self) -> PreparedTournament | None:
        return replace(self.prepared, plans=self.models) if self.models else None


def person_participant(person: str) -> str:
    """The participant a person plays as on the page."""
    return HUMAN_PREFIX + person


def spec_name(spec: str) -> str:
    """A participant name for a player spec, one per spec and readable where it can be:
    `hf:bundled` -> hf-bundled; a spec with options or text gets a digest of it too."""
    plain = spec.replace(":", "-")
    clean = _NAME_CHARS.sub("-", plain).strip("-.")
    if clean == plain and 0 < len(clean) <= 40:
        return clean
    digest = hashlib.sha256(spec.encode("utf-8", "replace")).hexdigest()[:8]
    return f"{clean[:32].strip('-.') or 'player'}-{digest}"


def page_match(choice: SeatChoice, game: LoadedGame, ladder: Ladder,
               registry: Registry) -> PageMatch:
    """The page match of `choice` on a new map of `game` (loaded by the caller, from a
    registered name or pasted text); ConfigError for a choice that does not make one."""
    roles = tuple(game.roles)
    if choice.role not in roles:
        raise ConfigError(
            f"Role {shorten(choice.role, 40)!r} does not play in this game. Pick one of: "
            f"{', '.join(roles) or '(none)'}."
        )
    wanted = sorted(r for r in roles if r != choice.role)
    if sorted(choice.others) != wanted:
        raise ConfigError(
            "Pick a player for every other seat of this game: "
            f"{', '.join(wanted) or '(none: it has one seat)'}."
        )
    practice = bool(choice.source)
    config = _config(choice, ladder, practice, registry)
    prepared = prepare_tournament(config, registry, SOURCE)
    me = person_participant(choice.person)
    mine = [p for p in prepared.plans if p.main_role == choice.role
            and p.seat(choice.role).participant == me]
    models = tuple(p for p in prepared.plans if p.main_role == choice.role
                   and p.seat(choice.role).participant != me)
    assert len(mine) == 1 and all(p.map_index == mine[0].map_index for p in models)
    return PageMatch(prepared, choice.person, choice.role, mine[0], models,
                     dict(sorted(choice.others.items())))


def _config(choice: SeatChoice, ladder: Ladder, practice: bool,
            registry: Registry) -> TournamentConfig:
    label = PASTED if practice else choice.game
    me = person_participant(choice.person)
    participants: list[dict[str, object]] = [
        {"name": me, "player": f"human:web?name={choice.person}"}
    ]
    if not practice:
        participants += [{"name": spec_name(spec), "player": spec} for spec in ladder.models]
    npcs = {role: NPC_PREFIX + spec_name(spec) for role, spec in choice.others.items()}
    for role, spec in sorted(choice.others.items()):
        if all(p["name"] != npcs[role] for p in participants):
            participants.append({"name": npcs[role], "player": spec, "npc_only": True})
    names = [str(p["name"]) for p in participants]
    if len(set(names)) != len(names):
        raise ConfigError(f"Two players of this match would share a name ({', '.join(names)}); "
                          "ask the organiser to rename a model (--model).")
    if npcs:  # eval mode wants an NPC for every role; the plans where it plays are cut
        npcs[choice.role] = next(iter(npcs.values()))
    entry: dict[str, object] = {"game": label, "name": label}
    if npcs:
        entry["npc"] = npcs
    if choice.dialect:
        entry["dialect"] = choice.dialect
    data = {
        "name": ladder.practice if practice else ladder.name, "mode": "eval",
        "judge": ladder.judge, "seed": secrets.randbelow(2**62),  # a map nobody has seen
        "rounds": max(1, min(choice.rounds, MAX_ROUNDS)), "maps": 1,
        "move_timeout": ladder.move_timeout, "move_retries": 0,
        "limits": ladder.limits.model_dump(), "participants": participants, "games": [entry],
    }
    config = parse_tournament(data, source=SOURCE, registry=registry)
    if practice:
        config._texts = {PASTED: (choice.source, f"{PASTED}.xgl")}
    return config


def human_seats(plan: MatchPlan) -> dict[str, str]:
    """role -> person for the `human:web` seats of a plan."""
    found = {}
    for seat in plan.seats:
        spec = parse_spec(seat.spec)
        if spec.name == "human" and spec.arg == "web":
            found[seat.role] = spec.params.get("name", "")
    return found


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
