"""The bundled judge: shipped files, offline loading, the corpus it was trained on, and a
quick check that it is meaningful (related words help a story more than random words)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import statistics
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.errors import UnknownNameError
from arena.judges.hf.training.corpus import (
    HELDOUT_SEED,
    TRAIN_SEED,
    general_vocabulary,
    generate_corpus,
    generate_stories,
    heldout_stories,
    tag_words,
)
from arena.judges.hf.training.themes import THEMES

ROOT = Path(__file__).resolve().parents[2]
MAX_BYTES = 20 * 1024 * 1024


def _digest(docs: list[str]) -> str:
    return hashlib.sha256("\n".join(docs).encode()).hexdigest()


# ---------------------------------------------------------------- corpus (no torch)


def test_corpus_is_deterministic_across_processes() -> None:
    code = (
        "import hashlib; from arena.judges.hf.training.corpus import generate_corpus; "
        "print(hashlib.sha256('\\n'.join(generate_corpus(60, 5)).encode()).hexdigest())"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "123"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == _digest(generate_corpus(60, 5))
    assert _digest(generate_corpus(60, 6)) != _digest(generate_corpus(60, 5))


def test_corpus_has_prefix_like_formats_and_one_whitespace_convention() -> None:
    docs = generate_corpus(600, 3)
    for head in ("Tags: ", "Keywords: ", "Title: ", "Summary: ", "Note: "):
        assert any(d.startswith(head) for d in docs), head
    vocab = set(general_vocabulary())
    bare = [d for d in docs if d.split()[0] in vocab and d.split()[1] in vocab]
    assert len(bare) > 60  # bare word lists before a story, the shape of a game move
    assert any(d.endswith(("The end.", ".")) and " Tags: " in d for d in docs)  # suffix tags
    for d in docs:
        assert d == d.strip() and "  " not in d and "\n" not in d


def test_tags_mix_words_in_the_story_with_related_words_absent_from_it() -> None:
    import random

    present = absent = stray = 0
    for i, story in enumerate(generate_stories(100, 9)):
        tags = tag_words(story, random.Random(i), 6)
        theme_words = set(story.theme.vocabulary) | {story.main.name}
        assert len(set(tags) - theme_words) <= 1  # at most one stray off-topic word
        stray += len(set(tags) - theme_words)
        present += sum(t.lower() in story.words for t in tags)
        absent += sum(t.lower() not in story.words for t in tags)
    assert present > 100 and absent > 200
    assert 0 < stray < 30


def test_stories_carry_theme_vocabulary() -> None:
    for story in generate_stories(50, 11):
        assert len(story.related_present()) >= 3
        assert len(story.related_absent()) >= 8
        assert story.theme in THEMES


def test_heldout_stories_are_not_training_stories() -> None:
    train = {s.text for s in generate_stories(3000, TRAIN_SEED)}
    held = [s.text for s in heldout_stories(200)]
    assert sum(t in train for t in held) <= 2  # templates may collide, seeds never repeat
    with pytest.raises(ValueError, match="TRAIN_SEED"):
        heldout_stories(5, seed=TRAIN_SEED)
    assert HELDOUT_SEED != TRAIN_SEED


# ---------------------------------------------------------------- shipped checkpoint


def test_shipped_files_exist_within_size_limit() -> None:
    from arena.judges.hf.bundled_judge import BUNDLED_FILES, bundled_model_path

    path = bundled_model_path()
    for name in (*BUNDLED_FILES, "generation_config.json", "training_info.json"):
        assert (path / name).is_file(), name
    assert sum(f.stat().st_size for f in path.iterdir() if f.is_file()) <= MAX_BYTES


@pytest.mark.torch
def test_loads_offline_through_auto_classes(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("transformers")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from arena.judges.hf.bundled_judge import bundled_model_path

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = str(bundled_model_path())
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path)
    assert tok.bos_token == tok.eos_token == "<|endoftext|>"
    assert model.config.vocab_size == len(tok)
    assert model.config.n_positions >= 512
    # Words carry their leading space, as the judge's whitespace convention adds it.
    pieces = tok.convert_ids_to_tokens(tok(" Mira walked", add_special_tokens=False)["input_ids"])
    assert pieces == ["ĠMira", "Ġwalked"]


@pytest.mark.torch
def test_prefix_and_story_tokenise_like_the_training_document() -> None:
    pytest.importorskip("transformers")
    from transformers import AutoTokenizer

    from arena.judges.hf.bundled_judge import bundled_model_path

    tok = AutoTokenizer.from_pretrained(str(bundled_model_path()))

    def ids(text: str) -> list[int]:
        return list(tok(text, add_special_tokens=False)["input_ids"])

    for story in heldout_stories(20):
        prefix = f"Tags: {', '.join(story.related_absent()[:4])}."
        assert ids(" " + prefix) + ids(" " + story.text) == ids(f" {prefix} {story.text}")


def test_unknown_parameter_is_named() -> None:
    from arena.judges.hf.bundled_judge import create_bundled_judge

    with pytest.raises(UnknownNameError, match="devcie"):
        create_bundled_judge({"devcie": "cpu"})


# ---------------------------------------------------------------- meaningfulness


@pytest.fixture(scope="module")
def judge() -> Iterator[Any]:
    pytest.importorskip("torch")
    from arena.judges.hf.bundled_judge import create_bundled_judge

    j = create_bundled_judge({})
    yield j
    asyncio.run(j.aclose())


@pytest.mark.torch
async def test_related_words_help_more_than_random_words(judge: Any) -> None:
    from arena.judges.hf.training.meaning import related_vs_random

    trials = await related_vs_random(judge, heldout_stories(20), seed=3)
    related = statistics.fmean(t.xed_related for t in trials)
    rand = statistics.fmean(t.xed_random for t in trials)
    assert related > 0.0
    assert related > rand + 3.0


@pytest.mark.torch
async def test_generated_stories_are_seeded_and_on_topic(judge: Any) -> None:
    from arena.protocols.judge import GenerateRequest

    reqs = [GenerateRequest("owl lantern moss fern", max_tokens=40, seed=s) for s in (1, 1, 2)]
    a, b, c = await judge.generate(reqs)
    assert a == b and a != c
    words = set(a.lower().replace(".", " ").replace(",", " ").split())
    forest = set(next(t for t in THEMES if t.name == "forest").vocabulary)
    assert words & forest


@pytest.mark.torch
async def test_greedy_prefix_search_makes_a_story_more_predictable(judge: Any) -> None:
    import random

    from arena.judges.hf.training.meaning import greedy_prefix

    story = heldout_stories(5)[4]
    theme_words = story.related_absent()[:10]
    others = [w for w in general_vocabulary() if w not in story.theme.vocabulary]
    candidates = theme_words + random.Random(0).sample(others, 30)
    words, best, used = await greedy_prefix(judge, story, candidates, max_words=3, budget=150)
    assert best > 0.0 and used <= 150
    assert words and not set(words) & story.words
    assert sum(w in theme_words for w in words) > len(words) / 2
