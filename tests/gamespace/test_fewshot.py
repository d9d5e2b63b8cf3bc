"""Issue 19 item 3: the few-shot playability filter. The permutation trend test passes a
non-learning player with probability <= eps (exchangeable rounds), while Def. 33's bare
arms rule passes it often; a player that learns in context (`search`) passes the paper's
single_text. Fixed seeds; the rates with intervals are in benchmarks/gamespace_calibration.py."""

from __future__ import annotations

import random

import pytest

from arena.analysis.playability import run_playability
from arena.gamespace.sampling import fewshot
from arena.gamespace.sampling.fewshot import false_pass_bound, trend_test
from arena.gamespace.sampling.pipeline import FilterPipeline, PipelineConfig
from arena.judges.ngram import NgramJudge
from arena.match_setup import load_entry
from arena.plugins.registry import Registry


def test_exchangeable_scores_pass_at_most_eps_and_rising_ones_pass() -> None:
    rng = random.Random(0)
    trials = 300
    null = sum(
        trend_test([[rng.gauss(0, 1) for _ in range(6)] for _ in range(4)], seed=i).passed
        for i in range(trials)
    )
    # binomial(300, EPSILON = 0.01): mean 3, P(X > 10) < 0.001
    assert null <= 10
    rising = sum(
        trend_test([[rng.gauss(0, 1) + 0.5 * k for k in range(6)] for _ in range(4)],
                   seed=i).passed
        for i in range(100)
    )
    assert rising >= 90


def test_forfeits_and_empty_maps() -> None:
    assert trend_test([[None, None, None]]).p_value == 1.0
    assert trend_test([[None, 1.0, 2.0, 3.0, 4.0, 5.0]] * 4).passed  # a forfeit counts low
    assert false_pass_bound(0.05, 1) == pytest.approx(0.05)


async def test_random_fails_and_search_passes_single_text() -> None:
    registry, judge = Registry.load(), NgramJudge()
    game = load_entry(registry.game("single_text"))
    config = PipelineConfig(seed=0)  # the default: the trend rule, base search, N x m
    verdicts = {}
    for base in ("random", "search"):
        report = await run_playability(game, judge, registry, participant=base,
                                       maps=fewshot.MAPS, rounds=fewshot.ROUNDS, seed=0)
        verdicts[base] = trend_test(report.per_map, seed=0)
    assert not verdicts["random"].passed and verdicts["search"].passed
    pipeline = FilterPipeline(registry, judge, config)
    verdict = await pipeline.playability(game, None)  # type: ignore[arg-type]  # record unused
    assert verdict.passed and "permutation p" in verdict.reason
    assert (config.fewshot, config.base, config.epsilon) == ("trend", "search", fewshot.EPSILON)
