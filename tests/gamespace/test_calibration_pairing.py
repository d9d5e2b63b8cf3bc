"""Issue 19's calibration cases at the level they can fail without a model: a copy of a game
(renamed, or with a no-op instruction) is the same game to every measurement, and with common
random numbers V between copies is 1 with the interval [1, 1]; breaking the pairing (a run
or a map matched to another) shows at once. (Copies the canonical form does not recognise
are measured apart: test_unrecognised_copies.py and the benchmark.) The fine-tuned versions of these cases are in
test_transfer_oracle.py; the rates over many seeds in benchmarks/gamespace_calibration.py."""

from __future__ import annotations

import numpy as np
import pytest

from arena.gamespace.transfer.arithmetic import runs_gain, runs_transfer_value
from arena.gamespace.transfer.evaluate import EVAL_NAME, evaluation_form, game_scores
from arena.gamespace.transfer.measure import DEFAULT_RUNS
from arena.judges.ngram import NgramJudge
from arena.match_setup import load_game_text
from arena.plugins.registry import Registry
from tests.gamespace import transfer_games as tg

MAPS = 8


def scores(seed: int, runs: int, shift: float = 0.0) -> tuple[list[float], list[list[float]]]:
    """Before (per map) and after (per run, per map) scores that vary over maps and runs."""
    rng = np.random.default_rng(seed)
    before = rng.normal(-20, 8, MAPS)
    after = [before + rng.normal(10 + shift, 4) + rng.normal(0, 3, MAPS) for _ in range(runs)]
    return before.tolist(), [a.tolist() for a in after]


@pytest.mark.parametrize("seed", range(5))
def test_a_copy_has_v_exactly_one(seed: int) -> None:
    before, after = scores(seed, runs=DEFAULT_RUNS)
    value = runs_transfer_value(before, after, before, after).value
    assert value is not None and (value.value, value.low, value.high) == (1.0, 1.0, 1.0)


def test_broken_pairing_shows() -> None:
    """Matched to other runs (or other maps), the same scores no longer give [1, 1]: what
    the pairing test above would catch if runs or maps were drawn apart."""
    before, after = scores(0, runs=DEFAULT_RUNS)
    runs_swapped = runs_transfer_value(before, after, before, after[::-1]).value
    maps_swapped = runs_transfer_value(
        before, after, before[::-1], [a[::-1] for a in after]
    ).value
    for value in (runs_swapped, maps_swapped):
        assert value is not None and value.low < 1.0 < value.high


def test_a_run_that_kept_the_base_weights_leaves_v_of_a_copy_defined() -> None:
    """reinforce's keep=best returns M's own weights when a run found nothing better: that
    run's gain is exactly 0. Under the earlier bootstrap the resamples that drew it every
    time had no ratio, and V of a copy came out undefined although the game was judged
    playable (seed 73 of the calibration benchmark); it is one run among the others."""
    before, after = scores(1, runs=6)
    after[2] = list(before)  # the run that kept the base weights
    assert runs_gain(before, after).playable
    value = runs_transfer_value(before, after, before, after).value
    assert value is not None and (value.value, value.low, value.high) == (1.0, 1.0, 1.0)


def test_one_collapsed_run_in_r_runs() -> None:
    """Why a learnable game's verdict needs reliable runs: one run in four that made the
    model worse (as much as the others made it better) leaves the mean gain positive but
    its interval over runs and maps reaches below 0, so the game is judged not playable; the same
    runs without the collapsed one are playable."""
    before = [-20.0 + i for i in range(MAPS)]
    good = [[0.0 + 0.1 * i * r for i in range(MAPS)] for r in range(3)]
    collapsed = [b - 20.0 for b in before]
    assert runs_gain(before, good).playable
    mixed = runs_gain(before, [*good, collapsed])
    assert mixed.gain.gain.value > 0 and not mixed.playable and mixed.agreeing == 1


def test_copies_share_one_evaluation_form() -> None:
    plain, renamed, fixed = tg.games()
    noop = load_game_text(tg.NOOP, "noop.xgl")
    form = evaluation_form(plain)
    assert form.name == EVAL_NAME and "#" not in form.source.split("\n", 1)[1]  # no comments
    assert evaluation_form(renamed).source == form.source == evaluation_form(noop).source
    assert evaluation_form(form) is form  # idempotent
    assert evaluation_form(fixed).source != form.source  # another game stays another game


async def test_copies_score_alike_for_a_player() -> None:
    """The same maps, moves and scores for the copies (a random player: a name, a register
    name or a no-op line in the prompt or the move seed would show)."""
    plain, renamed, _ = tg.games()
    noop = load_game_text(tg.NOOP, "noop.xgl")
    judge, registry = NgramJudge(), Registry.load()
    measured = [
        await game_scores("random", g, judge=judge, registry=registry, maps=4, seed=5)
        for g in (plain, renamed, noop)
    ]
    assert measured[0] == measured[1] == measured[2]
    assert len(set(measured[0])) > 1  # the moves differ from map to map
