"""is_true / is_false: the one fixed evaluation prompt (arena.lang.truth) and the verdict."""

from __future__ import annotations

import pytest

from arena.judges.ngram import NgramJudge
from arena.lang.truth import FALSE_ANSWER, TRUE_ANSWER, truth_prompt, truth_requests, truth_verdict
from arena.protocols.judge import TokenScores


def test_prompt_text_is_fixed() -> None:
    assert truth_prompt("it rhymes", []) == (
        "Statement: it rhymes\nIs the statement true or false?"
    )
    assert truth_prompt("same topic", ["a", "b"]) == (
        "Statement: same topic\nString 1: a\nString 2: b\nIs the statement true or false?"
    )


@pytest.mark.parametrize("dialect", ["xgl", "xent"])
def test_requests_share_the_prompt_and_differ_in_the_answer(dialect: str) -> None:
    t, f = truth_requests("num_words<10", ["the cat sat"], dialect)  # type: ignore[arg-type]
    assert t.context == f.context == truth_prompt("num_words<10", ["the cat sat"])
    assert (t.target, f.target) == (TRUE_ANSWER, FALSE_ANSWER)
    assert t.dialect == f.dialect == dialect


def test_verdict_compares_totals() -> None:
    cheap, dear = TokenScores(("a",), (1.0,)), TokenScores(("b",), (2.0,))
    assert truth_verdict(cheap, dear) and not truth_verdict(dear, cheap)
    assert not truth_verdict(cheap, cheap)  # a tie is not true


@pytest.mark.parametrize("dialect", ["xgl", "xent"])
async def test_the_answer_token_is_scored_in_both_dialects(dialect: str) -> None:
    """The shared "Answer:" costs the same in both requests; the answers differ after it,
    so even dialect xent (first target token never scored) compares true with false."""
    t, f = await NgramJudge().score(list(truth_requests("it is short", ["x"], dialect)))  # type: ignore[arg-type]
    common = 0
    while t.tokens[common] == f.tokens[common]:
        common += 1
    assert common >= 1
    assert t.bits[:common] == pytest.approx(f.bits[:common])
    assert t.tokens[common:] != f.tokens[common:] and t.total != f.total
