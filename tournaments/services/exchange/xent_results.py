"""Reads a result file of the published Xent benchmark (issue 20): the reference
implementation's `BenchmarkResult` JSON (xentlabs/xent, `src/xent/common/configuration_types.py`),
``{"expanded_config": {...}, "results": [GameMapResults, ...]}``.

Each `GameMapResults` is one player's run of one game map, which is what our eval-mode matches
are: it becomes a one-seat match of game ``game_map.name`` on the map labelled
``game_map.map_seed``, seat ``player.name`` (the role, e.g. black) played by ``player.id``, with
score ``score`` (the reference's best round score; a user-made file without it gets the best of
``round_results[].score``, as the reference's `extract_score`). Results keep their file order,
which the benchmark score uses to order ties. Round histories are not stored.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from arena.errors import ConfigError
from arena.specs import NAME_RE, shorten
from arena.storage.imports import ImportedMatch, ImportedSeat
from arena.tournaments.services.exchange.names import MAX_LABEL_CHARS, MAX_NAME_CHARS, name_problem

__all__ = ["is_xent_results", "read_xent_results"]

MAX_SHOWN = 5
_NEEDS = (
    "each result needs game_map.name, game_map.map_seed, player.id, player.name and a numeric "
    "score (or round_results with scores), as the reference's GameMapResults"
)


def is_xent_results(obj: object) -> bool:
    """Whether parsed JSON looks like a `BenchmarkResult` (format detection)."""
    if not isinstance(obj, Mapping) or not isinstance(obj.get("results"), list):
        return False
    first = obj["results"][0] if obj["results"] else None
    return "expanded_config" in obj or (isinstance(first, Mapping) and "game_map" in first)


def _number(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
        return number if math.isfinite(number) else None
    return None


def _field(obj: Mapping[str, Any], part: str, key: str, where: str) -> str:
    """A non-empty string (a map seed may also be an integer) at ``obj[part][key]``."""
    inner = obj.get(part)
    if not isinstance(inner, dict):  # parsed JSON (dict, not the slower Mapping check)
        raise ValueError(f"{where}.{part} is missing")
    value = inner.get(key)
    if isinstance(value, int) and not isinstance(value, bool) and key == "map_seed":
        return str(value)
    if not isinstance(value, str) or not value.strip():
        shown = "missing" if value is None else f"{shorten(repr(value))}, not a non-empty string"
        raise ValueError(f"{where}.{part}.{key} is {shown}")
    return value.strip()


def _score(obj: Mapping[str, Any], where: str) -> float:
    if "score" in obj:
        score = _number(obj["score"])
        if score is None:
            raise ValueError(f"{where}.score is {obj['score']!r}, not a finite number")
        return score
    rounds = obj.get("round_results")
    scores = [_number(r.get("score")) for r in rounds or () if isinstance(r, Mapping)]
    if not rounds or any(s is None for s in scores) or len(scores) != len(rounds):
        raise ValueError(f"{where} has no score and no round_results with numeric scores")
    return max(s for s in scores if s is not None)


_NAMED = (
    ("game_map.name", MAX_NAME_CHARS), ("game_map.map_seed", MAX_LABEL_CHARS),
    ("player.id", MAX_NAME_CHARS), ("player.name", MAX_NAME_CHARS),
)


def _match(index: int, obj: object) -> ImportedMatch:
    where = f"results[{index}]"
    if not isinstance(obj, dict):
        raise ValueError(f"{where} is not an object")
    names = (
        _field(obj, "game_map", "name", where), _field(obj, "game_map", "map_seed", where),
        _field(obj, "player", "id", where), _field(obj, "player", "name", where),
    )
    for value, (what, limit) in zip(names, _NAMED, strict=True):
        if len(value) > limit or not NAME_RE.fullmatch(value):  # the message only then
            raise ValueError(name_problem(value, f"{where}.{what}", limit))
    game, seed, participant, role = names
    seat = ImportedSeat(role, participant, _score(obj, where))
    return ImportedMatch(f"#{index:08d}", game, seed, "eval", (seat,))


def read_xent_results(obj: object, file: str) -> list[ImportedMatch]:
    """The matches of a parsed `BenchmarkResult`; ConfigError naming every problem (at most
    five shown) when it is not one, so nothing of a bad file is stored."""
    if not isinstance(obj, Mapping) or not isinstance(obj.get("results"), list):
        raise ConfigError(
            f"'{file}' is not a Xent benchmark result: it needs a top-level object with a "
            f"'results' list (the reference's BenchmarkResult); {_NEEDS}."
        )
    matches: list[ImportedMatch] = []
    problems: list[str] = []
    for index, item in enumerate(obj["results"]):
        try:
            matches.append(_match(index, item))
        except ValueError as error:
            problems.append(str(error))
    if problems:
        shown = "; ".join(problems[:MAX_SHOWN])
        more = f" (and {len(problems) - MAX_SHOWN} more)" if len(problems) > MAX_SHOWN else ""
        raise ConfigError(
            f"'{file}' is not a valid Xent benchmark result: {shown}{more}; {_NEEDS}. "
            "Nothing was imported."
        )
    if not matches:
        raise ConfigError(
            f"'{file}' holds no results (its 'results' list is empty); nothing to import."
        )
    return matches
