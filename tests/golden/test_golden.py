"""Golden playthroughs: every bundled game's recorded match replays to the same events.

A failure shows where the replay departs from the record. If the change is intended (a
runtime, ngram judge or game change), rewrite the records with
`python -m tests.golden.regenerate` and review the diff.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from arena.analysis.golden import (
    GOLDEN_JUDGE,
    differences,
    golden_path,
    read_record,
    record_golden,
)
from arena.match_setup import load_entry
from arena.plugins.registry import Registry

GOLDEN_DIR = Path(__file__).resolve().parent
REGISTRY = Registry.load()
GAMES = REGISTRY.game_names()


@pytest.mark.parametrize("name", GAMES)
async def test_golden_playthrough_replays_exactly(name: str) -> None:
    path = golden_path(GOLDEN_DIR, name)
    assert path.is_file(), f"no golden record for {name}: run python -m tests.golden.regenerate"
    game = load_entry(REGISTRY.game(name))
    actual = json.loads(json.dumps(await record_golden(game, REGISTRY, REGISTRY.create_judge(GOLDEN_JUDGE))))
    expected = read_record(path)
    assert expected["version"] == game.version, "game version changed: regenerate the record"
    assert differences(expected, actual) == []


def test_every_record_belongs_to_a_bundled_game() -> None:
    recorded = {p.stem for p in GOLDEN_DIR.glob("*.json")}
    assert recorded == set(GAMES)


def test_records_exercise_moves_and_rewards() -> None:
    kinds = set()
    for name in GAMES:
        kinds |= {event["type"] for event in read_record(golden_path(GOLDEN_DIR, name))["events"]}
    assert {"elicit_response", "reward", "failed_ensure", "reveal", "round_finished"} <= kinds


def test_comparison_catches_changed_floats_and_tolerates_rounding() -> None:
    record = read_record(golden_path(GOLDEN_DIR, "single_text"))
    same = copy.deepcopy(record)
    reward = next(e for e in same["events"] if e["type"] == "reward")
    reward["total"] += 1e-12
    assert differences(record, same) == []
    reward["total"] += 1e-6
    found = differences(record, same)
    assert len(found) == 1 and found[0].startswith("$.events[")
    same["events"].pop()
    assert any("length" in line for line in differences(record, same))
