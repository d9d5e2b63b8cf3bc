"""Golden playthroughs: one seeded match per bundled game, recorded as JSON and replayed.

Each record is a match played with the torch-free `ngram` judge and `scripted` players with
fixed moves, loops capped at `DEFAULT_MAX_REPLAY`, two rounds. Replaying it must give the
same events (floats within 1e-9). After an intended change to the runtime, a judge or a
game, rewrite the records with `python -m tests.golden.regenerate` or
`arena games golden --update` and review the diff.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from arena.match_setup import DEFAULT_MAX_REPLAY, LoadedGame, build_match
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.runtime.seat import MovePolicy

GOLDEN_JUDGE = "ngram"
GOLDEN_SEED = 7
GOLDEN_ROUNDS = 2
FLOAT_TOLERANCE = 1e-9
# Events that describe the machine rather than the game (timings, cache hit rates).
_VOLATILE_EVENTS = frozenset({"judge_stats"})
# Fixed moves per role: plain words, mostly absent from generated stories, so that games
# with "no common words" ensures see both passing and failing moves.
_SCRIPTS = {
    "black": ("quiet harbor lights at dusk", "seven copper kettles", "a violin under snow"),
    "white": ("marble staircase", "e4 e5 Nf3", "the orchard keeper sleeps", "rain"),
    "alice": ("lantern festival", "a map of the hidden valley", "owls"),
    "bob": ("the valley had a river", "he remembers", "lantern"),
    "carol": ("festival", "river", "nothing to add"),
    "david": ("the secret is a lantern", "valley river owls"),
    "env": ("fine",),
}


def golden_spec(role: str) -> str:
    """The scripted player spec a role plays in golden playthroughs."""
    return "scripted:" + "|".join(_SCRIPTS.get(role, ("move",)))


async def record_golden(game: LoadedGame, registry: Registry, judge: Judge) -> dict[str, Any]:
    """Play the golden match of `game` and return its JSON-ready record."""
    specs = {role: golden_spec(role) for role in game.roles}
    async with await build_match(
        game, specs, judge=judge, registry=registry, seed=GOLDEN_SEED, rounds=GOLDEN_ROUNDS,
        max_replay=DEFAULT_MAX_REPLAY, policy=MovePolicy(timeout_s=None),
        match_id=f"games:golden:{game.name}",
    ) as match:
        result = await match.play()
    return {
        "game": game.name,
        "version": game.version,
        "dialect": game.program.dialect_name,
        "judge": judge.info.name,
        "seed": GOLDEN_SEED,
        "rounds": GOLDEN_ROUNDS,
        "max_replay": DEFAULT_MAX_REPLAY,
        "players": specs,
        "events": [
            e.model_dump(mode="json") for e in result.events if e.type not in _VOLATILE_EVENTS
        ],
        "scores": {
            role: {"rounds": list(s.rounds), "best": s.best, "forfeit": s.forfeit}
            for role, s in result.scores.items()
        },
        "error": result.error,
    }


def differences(expected: Any, actual: Any, path: str = "$", limit: int = 10) -> list[str]:
    """Where two JSON values differ (floats compared within `FLOAT_TOLERANCE`)."""
    found: list[str] = []
    _diff(expected, actual, path, found, limit)
    return found


def _diff(expected: Any, actual: Any, path: str, found: list[str], limit: int) -> None:
    if len(found) >= limit:
        return
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            if key not in expected or key not in actual:
                found.append(f"{path}.{key}: only in {'actual' if key in actual else 'golden'}")
            else:
                _diff(expected[key], actual[key], f"{path}.{key}", found, limit)
    elif isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            found.append(f"{path}: length {len(expected)} in golden, {len(actual)} now")
        for index, (a, b) in enumerate(zip(expected, actual, strict=False)):
            _diff(a, b, f"{path}[{index}]", found, limit)
    elif _is_number(expected) and _is_number(actual):
        if not math.isclose(expected, actual, rel_tol=0.0, abs_tol=FLOAT_TOLERANCE):
            found.append(f"{path}: {expected!r} in golden, {actual!r} now")
    elif expected != actual:
        found.append(f"{path}: {expected!r} in golden, {actual!r} now")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def golden_path(directory: Path, name: str) -> Path:
    return directory / f"{name}.json"


def write_record(path: Path, record: dict[str, Any]) -> None:
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def read_record(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a golden record (a JSON object).")
    return data


async def update_goldens(
    directory: Path, registry: Registry, games: Iterable[LoadedGame]
) -> list[Path]:
    """Rewrite the golden record of every game; returns the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    judge = registry.create_judge(GOLDEN_JUDGE)
    written = []
    try:
        for game in games:
            path = golden_path(directory, game.name)
            write_record(path, await record_golden(game, registry, judge))
            written.append(path)
    finally:
        await judge.aclose()
    return written


async def verify_goldens(
    directory: Path, registry: Registry, games: Sequence[LoadedGame]
) -> dict[str, list[str]]:
    """Replay every game's golden match: game name -> differences (empty when equal)."""
    judge = registry.create_judge(GOLDEN_JUDGE)
    report: dict[str, list[str]] = {}
    try:
        for game in games:
            path = golden_path(directory, game.name)
            if not path.is_file():
                report[game.name] = [f"no golden record at {path}"]
                continue
            actual = json.loads(json.dumps(await record_golden(game, registry, judge)))
            report[game.name] = differences(read_record(path), actual)
    finally:
        await judge.aclose()
    return report
