"""Judges as users name them: through the registry, pooled by default."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.errors import UnknownNameError
from arena.plugins.registry import Registry
from arena.protocols.judge import ScoreRequest


@pytest.mark.torch
async def test_hf_judge_spec_is_pooled_and_scores_like_the_bare_backend(
    tiny_model_dir: Path, torch_device: str
) -> None:
    from arena.judges.hf.judge import HFJudge
    from arena.judges.pool.judge_pool import JudgePool

    registry = Registry.load()
    on = f"device={torch_device}&tf32=0"
    pooled = registry.create_judge(f"hf:{tiny_model_dir}?pool_wait_ms=1&{on}")
    bare = registry.create_judge(f"hf:{tiny_model_dir}?pool=0&{on}")
    try:
        assert isinstance(pooled, JudgePool) and isinstance(bare, HFJudge)
        requests = [ScoreRequest("the cat sat", "a story:"), ScoreRequest("on the mat")]
        a = await pooled.score(requests)
        b = await bare.score(requests)
        for x, y in zip(a, b, strict=True):
            assert x.bits == pytest.approx(y.bits, abs=1e-4)
        assert pooled.metrics()["requests"] >= 2
    finally:
        await pooled.aclose()
        await bare.aclose()


def test_unknown_judge_lists_the_available_ones() -> None:
    with pytest.raises(UnknownNameError) as caught:
        Registry.load().create_judge("bundeld")
    message = str(caught.value)
    assert "Did you mean 'bundled'" in message
    for name in ("ngram", "bundled", "hf", "remote"):
        assert name in message
