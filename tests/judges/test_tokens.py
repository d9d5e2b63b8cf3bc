"""Torch-free pieces of the judges: offsets -> pieces, batch planning, LRU, errors, imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.errors import ConfigError, MissingExtraError
from arena.judges.hf.batching import padded_cost, plan_batches
from arena.judges.hf.load import canonical_dtype
from arena.judges.hf.pieces import (
    byte_length_table,
    byte_level_alphabet,
    pieces_from_bytes,
    pieces_from_offsets,
)
from arena.judges.hf.tokens import adds_space

ROOT = Path(__file__).resolve().parents[2]


def test_pieces_follow_end_offsets_and_concatenate() -> None:
    text = "the cat sat"
    # trim_offsets style: the space-only token reports an empty span at 4
    offsets = [(0, 1), (1, 3), (4, 4), (4, 7), (8, 9), (9, 11)]
    pieces = pieces_from_offsets(text, offsets)
    assert pieces == ["t", "he", " ", "cat", " s", "at"]
    assert "".join(pieces) == text


def test_pieces_hide_an_added_prefix() -> None:
    # tokenised as " cat" (one added space); the space belongs to no piece
    assert pieces_from_offsets("cat", [(0, 2), (2, 4)], added_prefix=1) == ["c", "at"]
    # an empty first token (the lone space) stays empty instead of showing the space
    assert pieces_from_offsets("東x", [(0, 0), (1, 2), (1, 2), (2, 3)], added_prefix=1) == [
        "",
        "東",
        "",
        "x",
    ]


def test_byte_level_pieces_are_exact() -> None:
    table = byte_level_alphabet()
    assert len(table) == 256 and sorted(table.values()) == list(range(256))
    # " quickly" as tokens "Ġ", "q", "uickly": the lone space keeps its space
    assert pieces_from_bytes("quickly", [1, 1, 6], added_prefix=" ") == ["", "q", "uickly"]
    assert pieces_from_bytes(" quickly", [1, 1, 6]) == [" ", "q", "uickly"]
    # 東 is 3 bytes split over 2 tokens: the character goes to the token with its last byte
    assert pieces_from_bytes("a東", [1, 2, 1]) == ["a", "", "東"]
    assert pieces_from_bytes("abc", [1, 1]) is None  # lengths do not add up


def _pieces_byte_by_byte(text: str, lengths: list[int], prefix: str) -> list[str]:
    """The definition: a character goes to the token that holds its last byte."""
    owner: list[int] = []  # token of each byte
    for token, n in enumerate(lengths):
        owner += [token] * n
    pieces = [""] * len(lengths)
    at = 0
    for k, ch in enumerate(prefix + text):
        at += len(ch.encode("utf-8"))
        if k >= len(prefix):
            pieces[owner[at - 1]] += ch
    return pieces


@pytest.mark.parametrize("text", ["quickly and slowly", "a東b", "café naïve über 東京", "😀x"])
@pytest.mark.parametrize("prefix", ["", " "])
def test_fast_byte_pieces_follow_the_definition(text: str, prefix: str) -> None:
    import random

    size = len((prefix + text).encode("utf-8"))
    for seed in range(20):
        rng = random.Random(seed)
        cuts = sorted(rng.sample(range(1, size), min(size - 1, rng.randint(1, 6))))
        lengths = [b - a for a, b in zip([0, *cuts], [*cuts, size], strict=True)]
        assert pieces_from_bytes(text, lengths, prefix) == _pieces_byte_by_byte(
            text, lengths, prefix
        )
        assert pieces_from_bytes(text, [*lengths, 1], prefix) is None  # one byte too many


def test_byte_length_table_marks_non_byte_level_ids() -> None:
    table = byte_length_table({"Ġcat": 0, "a": 2, "▁dog": 3, "": 5})
    assert table == [4, -1, 1, -1, -1, -1]  # 1 and 4 unused, ▁ is not byte-level, "" empty


def test_whitespace_convention_is_xgl_only() -> None:
    assert adds_space("cat", "xgl")
    assert not adds_space(" cat", "xgl")
    assert not adds_space("\ncat", "xgl")
    assert not adds_space("", "xgl")
    assert not adds_space("cat", "xent")


def test_plan_batches_respects_budget_and_sorts() -> None:
    lengths = [5, 40, 7, 39, 6, 100, 41]
    batches = plan_batches(lengths, max_batch_tokens=90)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for b in batches:
        assert len(b) == 1 or padded_cost([lengths[i] for i in b]) <= 90
        assert [lengths[i] for i in b] == sorted((lengths[i] for i in b), reverse=True)
    assert [5] in batches  # longer than the budget: alone
    assert plan_batches([3, 3, 3, 3], 100, max_batch_size=2) == [[0, 1], [2, 3]]


def test_unknown_dtype_lists_options() -> None:
    with pytest.raises(ConfigError) as err:
        canonical_dtype("flaot16")
    msg = str(err.value)
    assert "flaot16" in msg and "Did you mean 'float16'" in msg
    for option in ("bfloat16", "float32", "auto"):
        assert option in msg
    assert canonical_dtype("BF16") == "bfloat16"


def test_missing_torch_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.judges.hf.judge import HFJudge

    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` fail
    with pytest.raises(MissingExtraError, match=r"Install it with: pip install torch==") as err:
        HFJudge.from_pretrained("gpt2")
    assert err.value.feature == "The HF judge" and "torch" in err.value.missing


def test_importing_the_judges_does_not_import_torch() -> None:
    code = (
        "import sys, arena.judges.hf.judge, arena.judges.pool.judge_pool, arena.judges.remote.client, "
        "arena.judges.remote.server; print('torch' in sys.modules, 'transformers' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.split() == ["False", "False"]
