"""From a validated tournament file to everything the executor needs, checked against the
installed plugins: games loaded and hashed, NPCs per role, participants' plugin origins,
and the schedule. Every problem found is reported at once, located by key path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError
from arena.lang.ast import Program
from arena.lang.game_file import game_sha256
from arena.match_setup import LoadedGame, load_game_ref, load_game_text
from arena.plugins.registry import Registry
from arena.redaction import redact
from arena.specs import parse_spec
from arena.storage.records import GameInfo, ParticipantInfo
from arena.tournaments.planning.config import GameConfig, TournamentConfig
from arena.tournaments.planning.config_errors import Problem, TournamentConfigError, key_path
from arena.tournaments.planning.map_views import map_views
from arena.tournaments.planning.pairings import EVAL, GameSlot, MatchPlan, plan_matches
from arena.tournaments.planning.plugin_problems import registry_problems


@dataclass(frozen=True)
class PreparedGame:
    label: str
    game: LoadedGame  # named by its label
    info: GameInfo
    slot: GameSlot

    @property
    def program(self) -> Program:
        return self.game.program


@dataclass(frozen=True)
class PreparedTournament:
    config: TournamentConfig
    games: Mapping[str, PreparedGame]  # by label
    participants: Mapping[str, ParticipantInfo]  # by name
    entrants: tuple[str, ...]
    plans: tuple[MatchPlan, ...]


def _npcs(config: TournamentConfig, game: GameConfig, roles: tuple[str, ...]) -> dict[str, str]:
    found: dict[str, str] = {}
    for setting in (config.npc, game.npc):  # the game's own setting wins
        if isinstance(setting, str):
            found.update({r: setting for r in roles})
        elif isinstance(setting, Mapping):
            found.update(setting)
    return found


def _prepare_game(
    config: TournamentConfig, index: int, game: GameConfig, registry: Registry
) -> tuple[PreparedGame | None, list[Problem]]:
    where = ("games", index)
    raw = config.model_dump(by_alias=True)
    text = config.game_text(game.label)
    try:
        if text is not None:  # a scope's game: its text from the database, checked alike
            loaded = load_game_text(
                text[0], text[1], dialect=game.dialect, name=game.label, limits=config.limits
            )
        else:
            loaded = load_game_ref(
                game.game, registry, dialect=game.dialect, base_dir=config.base_dir,
                name=game.label, limits=config.limits,
            )
    except ArenaError as error:
        return None, [Problem(key_path((*where, "game"), raw), str(error), game.game)]
    program, roles = loaded.program, loaded.roles
    npcs = _npcs(config, game, roles)
    problems = [
        Problem(
            key_path((*where, "npc", role), raw),
            f"'{role}' is not an active role of this game (active: {', '.join(roles)})",
            npcs[role],
        )
        for role in npcs
        if role not in roles and isinstance(game.npc, Mapping) and role in game.npc
    ]
    missing = [r for r in roles if r not in npcs]
    if config.mode == EVAL and len(roles) > 1 and missing:
        problems.append(
            Problem(
                key_path((*where, "npc"), raw),
                f"no NPC for role(s) {', '.join(missing)}: in eval mode every other role is "
                'played by an NPC. Set npc = "<participant>" here or at the top level',
                game.npc,
            )
        )
    source_hash = game_sha256(loaded.source)
    filename = Path(loaded.filename).name
    info = GameInfo(
        game.label, loaded.version, program.dialect_name, source_hash, loaded.source, filename
    )
    slot = GameSlot(
        name=game.label,
        version=loaded.version,
        code_hash=source_hash,
        dialect=program.dialect_name,
        roles=roles,
        rounds=game.rounds or config.rounds,
        maps=game.maps or config.maps,
        npcs={r: p for r, p in npcs.items() if r in roles},
        max_matches=game.max_matches,
        views=map_views(program, roles),
    )
    return PreparedGame(game.label, loaded, info, slot), problems


def _participant_info(name: str, spec_text: str, registry: Registry) -> ParticipantInfo:
    spec = parse_spec(spec_text)
    plugin, version = "", ""
    for info in registry.plugins():
        if spec.name in info.provides["players"]:
            plugin, version = info.name, info.version
    return ParticipantInfo(name, spec.raw, plugin, version, spec.arg, dict(spec.params))


def _trust_problems(config: TournamentConfig, registry: Registry) -> list[Problem]:
    """With `untrusted_entrants`, an entrant may not run inside the arena's process: a
    third-party player plugin runs with the arena's rights (it could implement
    `arena_on_event` and read every hidden register). Entrants play as `remote:` agents."""
    if not config.untrusted_entrants:
        return []
    raw = config.model_dump(by_alias=True)
    problems = []
    for i, p in enumerate(config.participants):
        name = parse_spec(p.player).name
        if p.npc_only or name not in registry.player_names() or registry.player_is_builtin(name):
            continue
        plugin, dist = registry.player_plugin(name)
        origin = f"plugin '{plugin}'" + (f" of {dist}" if dist else "")
        problems.append(
            Problem(
                key_path(("participants", i, "player"), raw),
                f"player '{name}' comes from {origin}, which would run inside the arena with "
                "its rights, and untrusted_entrants = true allows only built-in players; "
                f"let '{p.name}' connect as a remote agent instead "
                f"(player = \"remote:{p.name}?token_env=TOKEN_VAR\"), or set "
                "untrusted_entrants = false if you trust its code",
                redact(p.player),
            )
        )
    return problems


def prepare_tournament(
    config: TournamentConfig, registry: Registry, source: str = "tournament file"
) -> PreparedTournament:
    """Load the games, check every name against `registry` and build the schedule."""
    raw = config.model_dump(by_alias=True)
    problems = registry_problems(raw, registry, games=False) + _trust_problems(config, registry)
    games: dict[str, PreparedGame] = {}
    for index, game in enumerate(config.games):
        prepared, found = _prepare_game(config, index, game, registry)
        problems += found
        if prepared is not None:
            games[prepared.label] = prepared
    entrants = tuple(p.name for p in config.participants if not p.npc_only)
    if not entrants:
        problems.append(
            Problem("participants", "every participant is npc_only: nobody to evaluate", None)
        )
    if problems:
        raise TournamentConfigError(source, problems)
    specs = {p.name: p.player for p in config.participants}
    try:
        plans = plan_matches(
            config.name,
            config.mode,
            [g.slot for g in games.values()],
            entrants,
            specs,
            seed=config.seed,
            judge=config.judge,
        )
    except ArenaError as error:
        raise TournamentConfigError(
            source, [Problem("games", str(error), show_value=False)]
        ) from None
    participants = {
        p.name: _participant_info(p.name, p.player, registry) for p in config.participants
    }
    return PreparedTournament(config, games, participants, entrants, tuple(plans))
