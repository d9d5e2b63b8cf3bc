"""What only the installed plugins can tell about a raw tournament document: unknown
player, judge and story-source names, spec options their declarations or checks refuse,
and game references that do not load.

Its own module because both the file's validation (`arena.tournaments.planning.config`, to list
these
beside the field errors) and `arena.tournaments.running.prepare` (for a valid file) use it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.errors import ArenaError
from arena.lang.ast import DIALECTS
from arena.redaction import redact
from arena.specs import parse_spec
from arena.tournaments.planning.config_errors import Problem, key_path

if TYPE_CHECKING:  # importing the registry and the game loader waits until a check runs
    from arena.plugins.registry import Registry

# The `stories` value that has the match's judge write the maps (no story-source plugin).
JUDGE_STORIES = "judge"


def registry_problems(
    data: Mapping[str, Any],
    registry: Registry,
    base_dir: Path | None = None,
    *,
    games: bool = True,
) -> list[Problem]:
    """What only the installed plugins can tell, read from the raw file so that it can
    join its type errors in one listing: unknown names and bad options (what `arena play`
    would refuse) of the judge, the story source and every participant's player, NPCs
    included; with `games`, game references that do not load. Values of the wrong type
    are left to the file's own validation."""
    from arena.match_setup import load_game_ref

    checks: list[tuple[tuple[str | int, ...], object, str]] = [
        (("judge",), data.get("judge"), "judge"),
        (("stories",), data.get("stories"), "story source"),
    ]
    people = data.get("participants")
    for i, person in enumerate(people if isinstance(people, list) else []):
        if isinstance(person, Mapping):
            checks.append((("participants", i, "player"), person.get("player"), "player"))
    problems = [
        problem
        for loc, text, kind in checks
        if isinstance(text, str)
        for problem in _spec_problem(data, loc, text, kind, registry)
    ]
    listed = data.get("games")
    for i, game in enumerate(listed if games and isinstance(listed, list) else []):
        ref = game.get("game") if isinstance(game, Mapping) else None
        if not isinstance(ref, str) or not ref:
            continue
        dialect = game.get("dialect")
        try:
            load_game_ref(
                ref, registry, base_dir=base_dir,
                dialect=dialect if isinstance(dialect, str) and dialect in DIALECTS else None,
            )
        except ArenaError as error:
            problems.append(Problem(key_path(("games", i, "game"), data), str(error), ref))
    return problems


def _spec_problem(
    data: Mapping[str, Any], loc: tuple[str | int, ...], text: str, kind: str, registry: Registry
) -> list[Problem]:
    try:
        spec = parse_spec(text)
    except ArenaError:
        return []  # a malformed spec is reported by the field's validation
    try:
        if kind == "story source":
            if spec.name != JUDGE_STORIES:
                registry.story_source_entry(spec.name)
        else:
            registry.check_spec(kind, spec)
    except ArenaError as error:
        return [Problem(key_path(loc, data), str(error), redact(text))]
    return []
