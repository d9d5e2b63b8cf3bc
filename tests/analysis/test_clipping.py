"""ClippedJudge: per-token bits' = min(bits, log2(1/epsilon)), everything else delegated."""

from __future__ import annotations

import math

import pytest

from arena.analysis.clipping import ClippedJudge, cap_for, clip_bits, default_epsilon
from arena.analysis.memo import MemoJudge
from arena.errors import ConfigError
from arena.judges.ngram import NgramJudge
from arena.protocols.judge import JudgeInfo, ScoreRequest


def test_clip_bits_caps_each_token_and_keeps_the_rest() -> None:
    assert clip_bits([1.0, 7.0, 3.0, 12.5], 5.0) == (1.0, 5.0, 3.0, 5.0)
    assert clip_bits([], 5.0) == ()


def test_cap_is_log2_of_inverse_epsilon() -> None:
    assert cap_for(1 / 1024) == pytest.approx(10.0)
    assert default_epsilon(JudgeInfo("j", "m", vocab_size=50257)) == pytest.approx(1 / 50257)
    with pytest.raises(ConfigError, match="epsilon"):
        default_epsilon(JudgeInfo("j", "m", vocab_size=0))
    with pytest.raises(ConfigError, match="between 0 and 1"):
        cap_for(1.5)


async def test_clipped_judge_clips_real_scores_token_by_token() -> None:
    inner = NgramJudge()
    clipped = ClippedJudge(inner)  # default: 1/|V| of the ngram judge
    assert clipped.epsilon == pytest.approx(1 / inner.info.vocab_size)
    cap = math.log2(inner.info.vocab_size)
    request = ScoreRequest("The zqxj cat sat on the mat.", "A story:", "xgl")
    (plain,) = await inner.score([request])
    (capped,) = await clipped.score([request])
    assert capped.tokens == plain.tokens
    assert capped.bits == tuple(min(b, cap) for b in plain.bits)
    assert any(b > cap for b in plain.bits), "the test text needs a rare token"
    assert capped.total < plain.total
    assert await clipped.tokenize(["a b"]) == await inner.tokenize(["a b"])
    assert "clip" in clipped.info.name and clipped.info.vocab_size == inner.info.vocab_size


async def test_a_large_cap_changes_nothing() -> None:
    inner = NgramJudge()
    request = ScoreRequest("Once upon a time", "", "xent")
    assert await ClippedJudge(inner, 1e-300).score([request]) == await inner.score([request])


async def test_memo_judge_scores_each_request_once() -> None:
    class Counting(NgramJudge):
        calls = 0

        async def score(self, requests):  # type: ignore[no-untyped-def]
            Counting.calls += len(requests)
            return await super().score(requests)

    memo = MemoJudge(Counting())
    first = ScoreRequest("a cat", "", "xgl")
    second = ScoreRequest("a dog", "", "xgl")
    one = await memo.score([first, second, first])
    two = await memo.score([second])
    assert Counting.calls == 2
    assert one[0] == one[2] and two[0] == one[1]
