"""Judge-arbitrated truth (`is_true`, `is_false`, bare-string `ensure`).

The judge compares the cross-entropy of a "true" answer against a "false" answer after a
fixed evaluation prompt. The answers start with "Answer:" so that, in dialect `xent` where
the first target token is never scored, the true/false token itself is still scored; the
shared "Answer:" tokens cost the same in both and cancel in the comparison.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.lang.ast import Dialect
from arena.protocols.judge import ScoreRequest, TokenScores

TRUE_ANSWER = "Answer: true"
FALSE_ANSWER = "Answer: false"


def truth_prompt(statement: str, strings: Sequence[str]) -> str:
    """The fixed evaluation prompt; documented so that game authors can reason about it."""
    prompt = f"Statement: {statement}"
    for index, text in enumerate(strings, start=1):
        prompt += f"\nString {index}: {text}"
    return prompt + "\nIs the statement true or false?"


def truth_requests(
    statement: str, strings: Sequence[str], dialect: Dialect
) -> tuple[ScoreRequest, ScoreRequest]:
    """The two score requests whose comparison decides the statement."""
    context = truth_prompt(statement, strings)
    return (
        ScoreRequest(TRUE_ANSWER, context, dialect),
        ScoreRequest(FALSE_ANSWER, context, dialect),
    )


def truth_verdict(true_scores: TokenScores, false_scores: TokenScores) -> bool:
    """True when the judge finds "true" strictly more likely than "false"."""
    return true_scores.total < false_scores.total
