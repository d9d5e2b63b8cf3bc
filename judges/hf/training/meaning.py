"""Measures that a judge has learned the story corpus: xed of related vs random prefixes.

`xed(story | words) = xent(story) - xent(story | words)` in dialect `xgl`, in bits: positive
when the words make the story more predictable. Related words come from the story's theme
but do not occur in it; random words come from the whole corpus vocabulary, also absent.
Used by `benchmarks/bundled_judge_check.py` and the bundled judge's tests.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from arena.judges.hf.training.corpus import Story, general_vocabulary
from arena.protocols.judge import Judge, ScoreRequest


@dataclass(frozen=True)
class PrefixTrial:
    """xed (bits) of one story under a related and a random 5-word prefix."""

    story: Story
    related: tuple[str, ...]
    random_words: tuple[str, ...]
    xed_related: float
    xed_random: float


async def xed_many(judge: Judge, target: str, contexts: Sequence[str]) -> list[float]:
    """xed(target | c) for each context c, with one batched judge call."""
    requests = [ScoreRequest(target=target)] + [ScoreRequest(target, c) for c in contexts]
    scores = await judge.score(requests)
    base = scores[0].total
    return [base - s.total for s in scores[1:]]


async def related_vs_random(
    judge: Judge, stories: Sequence[Story], *, seed: int = 0, k: int = 5
) -> list[PrefixTrial]:
    """For each story, xed under `k` related absent words and under `k` random absent words."""
    rng = random.Random(seed)
    vocab = general_vocabulary()
    picks = []
    requests: list[ScoreRequest] = []
    for story in stories:
        related = tuple(rng.sample(story.related_absent(), k))
        pool = [w for w in vocab if w not in story.words]
        rand = tuple(rng.sample(pool, k))
        picks.append((related, rand))
        requests += [
            ScoreRequest(story.text),
            ScoreRequest(story.text, " ".join(related)),
            ScoreRequest(story.text, " ".join(rand)),
        ]
    totals = [s.total for s in await judge.score(requests)]
    trials = []
    for i, (story, (related, rand)) in enumerate(zip(stories, picks, strict=True)):
        base, rel, rnd = totals[3 * i : 3 * i + 3]
        trials.append(PrefixTrial(story, related, rand, base - rel, base - rnd))
    return trials


async def greedy_prefix(
    judge: Judge,
    story: Story,
    candidates: Sequence[str],
    *,
    max_words: int = 8,
    budget: int = 1200,
    patience: int = 2,
) -> tuple[list[str], float, int]:
    """Greedy search for the words whose prefix maximises xed(story | prefix).

    Each round tries appending every candidate absent from the story (one batched call) and
    keeps the best one, even when it does not beat the best prefix so far: a lone word can
    score worse than the pair it starts. The search stops at `max_words`, after `patience`
    rounds without a new best, or when `budget` judge scores are spent. Returns the best
    prefix's words, its xed (bits; 0.0 for the empty prefix) and the scores used.
    """
    words: list[str] = []
    best_words: list[str] = []
    best, used, stale = 0.0, 0, 0
    pool = [w for w in candidates if w not in story.words]
    while len(words) < max_words and used < budget and stale < patience:
        trial_words = [w for w in pool if w not in words][: budget - used - 1]
        if not trial_words:
            break
        values = await xed_many(judge, story.text, [" ".join([*words, w]) for w in trial_words])
        used += len(trial_words) + 1
        top = max(range(len(values)), key=values.__getitem__)
        words.append(trial_words[top])
        if values[top] > best:
            best, best_words, stale = values[top], list(words), 0
        else:
            stale += 1
    return best_words, best, used
