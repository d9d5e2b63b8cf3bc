"""The torch-free n-gram test judge: a real language model that follows XGL.md section 7."""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import ConfigError, JudgeError, UnknownNameError
from arena.judges.ngram import (
    ALPHABET,
    VOCAB,
    NgramJudge,
    create_ngram_judge,
    default_text,
    split_tokens,
)
from arena.lang.ast import Dialect
from arena.protocols.judge import GenerateRequest, Judge, ScoreRequest, TokenScores

REPO = Path(__file__).resolve().parents[2]

# Fluent English that is not in the training text.
FLUENT = (
    "My sister keeps three chickens in a small yard behind her house. Every evening she walks "
    "out with a bowl of grain, and the birds run to meet her. When the weather is bad, they "
    "hide under the steps and wait for the rain to stop."
)
SENTENCE = "The fox came back to the fence, but the chickens stayed safe in their box."
RELATED = "The dog barked at the fox by the fence, and the chickens hid in their box. "
UNRELATED = "Quarterly revenue exceeded projections owing to semiconductor demand in Asia. "

JUDGE = NgramJudge()

texts = st.text(max_size=60)


def bits_per_char(text: str, context: str = "") -> float:
    return JUDGE.score_one(ScoreRequest(text, context)).total / len(text)


# --- it is a real language model -------------------------------------------------------------


def test_is_a_judge() -> None:
    assert isinstance(JUDGE, Judge)


def test_fluent_english_is_cheaper_than_shuffled_or_random_letters() -> None:
    chars = list(FLUENT)
    random.Random(7).shuffle(chars)
    shuffled = "".join(chars)
    rng = random.Random(8)
    letters = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz ") for _ in FLUENT)
    fluent = bits_per_char(FLUENT)
    assert fluent < 3.0
    assert fluent + 1.0 < bits_per_char(shuffled)
    assert fluent + 1.0 < bits_per_char(letters)


@pytest.mark.parametrize("dialect", ["xgl", "xent"])
def test_a_phrase_in_the_context_is_cheaper_to_repeat(dialect: Dialect) -> None:
    alone = JUDGE.score_one(ScoreRequest(SENTENCE, "", dialect))
    primed = JUDGE.score_one(ScoreRequest(SENTENCE, SENTENCE + " ", dialect))
    xed = alone.total - primed.total
    assert xed > 0.5 * alone.total
    # Token by token, every repeated word after the first few characters got cheaper.
    assert sum(a > b for a, b in zip(alone.bits, primed.bits, strict=True)) > len(alone.bits) // 2


def test_related_context_beats_unrelated_context() -> None:
    related = JUDGE.score_one(ScoreRequest(SENTENCE, RELATED)).total
    unrelated = JUDGE.score_one(ScoreRequest(SENTENCE, UNRELATED)).total
    assert related + 10.0 < unrelated


@pytest.mark.parametrize("context", ["", "The river", "zq", "the cat sat. " * 50 + "the cat"])
def test_next_character_probabilities_sum_to_one(context: str) -> None:
    # Each single-character target is one token, scored under xgl, so 2^-bits is P(c | context).
    total = sum(2.0 ** -JUDGE.score_one(ScoreRequest(c, context)).total for c in ALPHABET)
    # Every out-of-alphabet character shares the escape symbol; "é" costs it plus 2 bytes.
    escape_bits = JUDGE.score_one(ScoreRequest("é", context)).total - 16.0
    assert math.isclose(total + 2.0**-escape_bits, 1.0, rel_tol=1e-9)


def test_custom_training_text_changes_the_model() -> None:
    custom = NgramJudge(order=3, text="ping pong ping pong ping pong\n\nping pong ping")
    target = " ping pong ping"
    fitted, default = custom.score_one(ScoreRequest(target)), JUDGE.score_one(ScoreRequest(target))
    assert fitted.total < default.total
    assert custom.info.revision != JUDGE.info.revision


# --- tokens and dialects (XGL.md section 7) --------------------------------------------------


@given(texts)
def test_pieces_concatenate_to_the_text(text: str) -> None:
    pieces = split_tokens(text)
    assert "".join(pieces) == text
    assert all(pieces)


def test_tokens_are_words_with_leading_whitespace() -> None:
    assert split_tokens("The cat, sat  \n") == ["The", " cat", ",", " sat", "  \n"]
    assert split_tokens("  (x)") == ["  (", "x", ")"]


async def test_tokenize_is_batched_split_tokens() -> None:
    assert await JUDGE.tokenize(["a b", "", " c."]) == [["a", " b"], [], [" c", "."]]


@settings(max_examples=60, deadline=None)
@given(target=texts.filter(lambda t: t != ""), context=texts)
def test_dialects_score_the_right_tokens_with_finite_positive_bits(
    target: str, context: str
) -> None:
    tokens = tuple(split_tokens(target))
    xgl = JUDGE.score_one(ScoreRequest(target, context, "xgl"))
    xent = JUDGE.score_one(ScoreRequest(target, context, "xent"))
    # The target's split ignores the context; xent never scores the first token.
    assert xgl.tokens == tokens
    assert xent.tokens == tokens[1:]
    assert len(xgl.bits) == len(tokens)
    assert len(xent.bits) == len(tokens) - 1
    for value in xgl.bits + xent.bits:
        assert math.isfinite(value) and value > 0.0
    # The unscored first token still conditions the rest identically in both dialects
    # once the start marker is out of reach.
    if len(context) > 20:
        assert xent.bits == pytest.approx(xgl.bits[1:], rel=1e-12)


@pytest.mark.parametrize("dialect", ["xgl", "xent"])
def test_empty_target_scores_nothing(dialect: Dialect) -> None:
    empty = JUDGE.score_one(ScoreRequest("", "some context", dialect))
    assert empty == TokenScores(tokens=(), bits=())
    assert empty.total == 0.0


def test_xgl_scores_the_first_token_against_the_start_of_text() -> None:
    # "The" opens many training paragraphs, so it is cheap right after the start marker
    # and dear right after a word without a space.
    at_start = JUDGE.score_one(ScoreRequest("The")).bits[0]
    glued = JUDGE.score_one(ScoreRequest("The", context="moon")).bits[0]
    assert at_start + 5.0 < glued


def test_unknown_dialect_is_named() -> None:
    with pytest.raises(UnknownNameError, match="xgl"):
        JUDGE.score_one(ScoreRequest("a", "", "xqt"))  # type: ignore[arg-type]


async def test_batched_scores_equal_one_by_one() -> None:
    requests = [
        ScoreRequest(SENTENCE, RELATED),
        ScoreRequest(FLUENT, "", "xent"),
        ScoreRequest(""),
        ScoreRequest(SENTENCE, SENTENCE),
        ScoreRequest("naïve café ☕", "x"),
    ]
    batched = await JUDGE.score(requests)
    single = [(await JUDGE.score([r]))[0] for r in reversed(requests)][::-1]
    assert batched == single
    assert batched[0] != batched[3]


# --- generation ------------------------------------------------------------------------------


async def test_same_seed_same_text_and_different_seeds_differ() -> None:
    reqs = [GenerateRequest("The village", 30, seed) for seed in range(6)]
    first = await JUDGE.generate(reqs)
    again = await NgramJudge().generate(list(reversed(reqs)))
    assert first == again[::-1]
    assert len(set(first)) == len(first)


@pytest.mark.parametrize("max_tokens", [1, 5, 40])
async def test_generation_has_about_max_tokens_and_ends_on_a_boundary(max_tokens: int) -> None:
    for seed in range(5):
        (text,) = await JUDGE.generate([GenerateRequest("", max_tokens, seed)])
        assert len(split_tokens(text)) == max_tokens
        assert text and not text[-1].isspace()
        assert set(text) <= set(ALPHABET)


async def test_zero_tokens_is_empty() -> None:
    assert await JUDGE.generate([GenerateRequest("x", 0, 1)]) == [""]


async def test_temperature_is_respected() -> None:
    greedy = await JUDGE.generate([GenerateRequest("The dog", 20, s, 0.0) for s in range(3)])
    assert len(set(greedy)) == 1
    cold = await JUDGE.generate([GenerateRequest("", 60, s, 0.3) for s in range(4)])
    hot = await JUDGE.generate([GenerateRequest("", 60, s, 2.0) for s in range(4)])
    cold_bpc = sum(JUDGE.score_one(ScoreRequest(t)).total / len(t) for t in cold)
    hot_bpc = sum(JUDGE.score_one(ScoreRequest(t)).total / len(t) for t in hot)
    assert all(len(split_tokens(t)) == 60 for t in cold + hot)
    assert cold_bpc + 4.0 < hot_bpc


async def test_bad_temperature_is_rejected() -> None:
    with pytest.raises(JudgeError, match="temperature"):
        await JUDGE.generate([GenerateRequest("", 5, 1, -1.0)])


# --- provenance, construction, determinism ---------------------------------------------------


def test_info_names_model_and_training_text() -> None:
    info = JUDGE.info
    assert info.name == "ngram"
    assert info.model == "char-ngram-5"
    assert info.revision == hashlib.sha256(default_text().encode()).hexdigest()[:12]
    assert info.dtype == "float64"
    assert info.vocab_size == len(VOCAB) == len(ALPHABET) + 1
    assert NgramJudge(order=3).info.model == "char-ngram-3"


def test_default_model_is_fitted_once() -> None:
    assert NgramJudge()._model is NgramJudge()._model


@pytest.mark.parametrize("order", [0, 11, True, "5"])
def test_bad_order_is_rejected(order: object) -> None:
    with pytest.raises(ConfigError, match="order"):
        NgramJudge(order=order)  # type: ignore[arg-type]


def test_factory_parses_order() -> None:
    assert create_ngram_judge({}).info.model == "char-ngram-5"
    assert create_ngram_judge({"order": " 3 "}).info.model == "char-ngram-3"
    for bad in ["abc", "0", "2.5", ""]:
        with pytest.raises(ConfigError, match="order"):
            create_ngram_judge({"order": bad})
    with pytest.raises(UnknownNameError, match="order"):
        create_ngram_judge({"ordr": "3"})


async def test_aclose_is_harmless() -> None:
    judge = NgramJudge()
    await judge.aclose()
    assert (await judge.tokenize(["a"])) == [["a"]]


PROBE = """
import asyncio, json
from arena.protocols.judge import GenerateRequest, ScoreRequest
from arena.judges.ngram import NgramJudge
j = NgramJudge()
scores = asyncio.run(j.score([ScoreRequest("The ducks swim, naïvely.", "A river. ", "xgl"),
                              ScoreRequest("The ducks swim.", "A river. ", "xent")]))
texts = asyncio.run(j.generate([GenerateRequest("The", 25, 11), GenerateRequest("", 25, 12, 0.7)]))
print(json.dumps({"bits": [list(s.bits) for s in scores], "texts": texts}))
"""


async def test_scores_and_samples_are_identical_in_another_process() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, cwd=REPO, capture_output=True, text=True, check=True
    )
    there = json.loads(out.stdout)
    scores = await JUDGE.score(
        [
            ScoreRequest("The ducks swim, naïvely.", "A river. ", "xgl"),
            ScoreRequest("The ducks swim.", "A river. ", "xent"),
        ]
    )
    texts = await JUDGE.generate([GenerateRequest("The", 25, 11), GenerateRequest("", 25, 12, 0.7)])
    assert there["bits"] == [list(s.bits) for s in scores]
    assert there["texts"] == texts
