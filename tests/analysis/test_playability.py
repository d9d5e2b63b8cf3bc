"""Playability (paper Definition 33): arms curves, the increase count, and real runs."""

from __future__ import annotations

import pytest

from arena.analysis.playability import run_playability
from arena.errors import ConfigError
from arena.match_setup import load_entry
from arena.plugins.registry import Registry
from arena.scoring import arms_curve, assess_curve

REGISTRY = Registry.load()


def test_arms_is_the_mean_running_max_over_maps() -> None:
    curve, dropped = arms_curve([[1.0, 3.0, 2.0, 5.0], [4.0, 0.0, 6.0, 6.0]])
    assert curve == [2.5, 3.5, 4.5, 5.5]
    assert dropped == 0
    assert assess_curve(curve) == (3, 3)


def test_forfeits_count_as_the_maps_worst_minus_one_bit() -> None:
    curve, dropped = arms_curve([[None, 2.0, None], [None, None, None], [1.0, None, 3.0]])
    assert dropped == 1  # a map with no numeric score at all
    assert curve == [(1.0 + 1.0) / 2, (2.0 + 1.0) / 2, (2.0 + 3.0) / 2]


def test_flat_and_stalling_curves() -> None:
    assert assess_curve([1.0, 1.0, 1.0]) == (0, 0)
    assert assess_curve([1.0, 2.0, 2.0, 3.0]) == (1, 2)
    assert assess_curve([]) == (0, 0)


async def test_random_play_raises_the_running_max_on_a_real_game() -> None:
    game = load_entry(REGISTRY.game("synthesize"))
    judge = REGISTRY.create_judge("ngram")
    report = await run_playability(
        game, judge, REGISTRY, participant="random", maps=3, rounds=4, steps=2
    )
    assert len(report.curve) == 4 and len(report.per_map) == 3
    assert all(b >= a for a, b in zip(report.curve, report.curve[1:], strict=False))
    assert report.curve[-1] > report.curve[0]
    assert not report.flat
    assert report.playable == (report.leading_increases >= 2)


async def test_a_participant_that_never_changes_its_move_is_flat() -> None:
    game = load_entry(REGISTRY.game("synthesize"))
    judge = REGISTRY.create_judge("ngram")
    report = await run_playability(
        game, judge, REGISTRY, participant="scripted:the same move", maps=2, rounds=3
    )
    assert report.flat and not report.playable
    assert report.curve[0] == report.curve[-1]


async def test_playability_needs_an_active_role_and_two_rounds() -> None:
    game = load_entry(REGISTRY.game("synthesize"))
    judge = REGISTRY.create_judge("ngram")
    with pytest.raises(ConfigError, match="Active roles: black"):
        await run_playability(game, judge, REGISTRY, role="alice")
    with pytest.raises(ConfigError, match="rounds >= 2"):
        await run_playability(game, judge, REGISTRY, rounds=1)
