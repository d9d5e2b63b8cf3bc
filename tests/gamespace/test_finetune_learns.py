"""The issue's bar for the fine-tuning mechanism: it genuinely learns.

The bundled model plays a small one-player game against the bundled judge: continue a short
story with a 3-token text the judge finds unsurprising (`nex(t | s)`, a few-token cousin of
the paper's single-text game). The base model's moves are fragments of its own stories
("oven. It took", "apron. With t"), scored around -45 bits; better continuations exist for
every map. After REINFORCE on a small token budget (training maps only), the tuned player
is scored on 32 evaluation maps it never saw, paired map by map with the base player (same
maps, same play seeds): the mean gain must exceed its bootstrap interval, i.e. the whole
95% interval of the paired mean difference lies above zero.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from arena.gamespace.transfer.evaluate import game_scores
from arena.match_setup import load_game_text
from arena.plugins.registry import Registry
from arena.protocols.finetune import FineTuneRequest

pytestmark = pytest.mark.torch

CONTINUE = """# Continue (test game)
# measures: continuing a story with a short, unsurprising text
# players: black (sees the story)
assign(s=story(8))
elicit(t, 3)
reward(nex(t | s))
"""
PLAYER = "hf:bundled?max_new_tokens=6"
TUNER = "reinforce?lr=3e-5&batch=8"
BUDGET = 40_000
MAPS = 32


def paired_interval(gains: list[float], seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of paired differences (maps resampled)."""
    rng = np.random.default_rng(seed)
    values = np.asarray(gains)
    means = values[rng.integers(0, len(values), (4000, len(values)))].mean(axis=1)
    tail = (1 - level) / 2
    return float(np.quantile(means, tail)), float(np.quantile(means, 1 - tail))


async def test_reinforce_raises_the_score_beyond_its_interval(tmp_path: Path) -> None:
    registry = Registry.load()
    judge = registry.create_judge("bundled")
    game = load_game_text(CONTINUE, "continue.xgl")
    try:
        before = await game_scores(
            PLAYER, game, judge=judge, registry=registry, maps=MAPS, seed=11
        )
        tuner = registry.create_finetuner(TUNER)
        result = await tuner.finetune(
            FineTuneRequest(PLAYER, game.view, judge, BUDGET, 0, tmp_path / "tuned")
        )
        after = await game_scores(
            result.player, game, judge=judge, registry=registry, maps=MAPS, seed=11,
            opponent=PLAYER,
        )
    finally:
        await judge.aclose()
    gains = [a - b for a, b in zip(after, before, strict=True)]
    low, high = paired_interval(gains)
    mean = float(np.mean(gains))
    report = (
        f"S_G before {np.mean(before):.2f}, after {np.mean(after):.2f}, gain {mean:.2f} "
        f"[{low:.2f}, {high:.2f}], {result.steps} steps, {result.tokens} tokens, "
        f"training curve {[round(r, 1) for r in result.rewards]}"
    )
    print(report)
    assert result.tokens >= BUDGET, report
    assert low > 0, f"no learning beyond the interval: {report}"
