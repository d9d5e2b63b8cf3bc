"""Packed rows with shared prefixes: the layout rules, and the HF judge's scores with them."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from arena.judges.hf.batching import choose_width, pack_rows, packed_cost, plan_packed_batches
from arena.judges.hf.packing import cluster_by_prefix, layout_row, pad_row, plan_rows, trie_size
from arena.protocols.judge import ScoreRequest

SEQS = [
    [1, 2, 3, 4, 5],
    [1, 2, 3, 9],
    [1, 2, 3, 4, 5, 6, 7],  # extends the first
    [8, 8],
    [1, 2, 3, 4, 5],  # a duplicate
    [7, 1, 2],
]


def random_seqs(seed: int, n: int = 30) -> list[list[int]]:
    rng = random.Random(seed)
    prefixes = [[rng.randrange(50) for _ in range(rng.randint(1, 12))] for _ in range(4)]
    return [
        rng.choice(prefixes)[: rng.randint(0, 12)]
        + [rng.randrange(50) for _ in range(rng.randint(1, 8))]
        for _ in range(n)
    ]


def visible_from(layout: Any, query: int) -> set[int]:
    return {j for j in range(len(layout.tokens)) if j <= query < layout.ends[j]}


@pytest.mark.parametrize("seed", range(20))
def test_every_sequence_sees_exactly_its_own_tokens_in_order(seed: int) -> None:
    seqs = random_seqs(seed)
    rows = plan_rows(seqs, max_tokens=64, attention_width=500.0)
    placed = sorted(i for row in rows for cluster in row for i in cluster)
    assert placed == list(range(len(seqs)))
    for row in rows:
        layout = pad_row(layout_row(seqs, row), 80, pad_id=0)
        for i in (i for cluster in row for i in cluster):
            path = layout.paths[i]
            assert [layout.tokens[j] for j in path] == seqs[i]
            assert [layout.positions[j] for j in path] == list(range(len(seqs[i])))
            for depth, j in enumerate(path):  # causal: each token sees its own prefix only
                assert visible_from(layout, j) == set(path[: depth + 1])
        for j in range(len(layout_row(seqs, row).tokens), 80):  # padding sees itself
            assert visible_from(layout, j) == {j}


def test_shared_prefixes_are_laid_out_once() -> None:
    [cluster] = cluster_by_prefix(SEQS, cap=100)
    # 1 2 3 | 4 5 | 6 7 | 9, then 7 1 2 and 8 8 on their own: 8 + 3 + 2 tokens
    assert trie_size(SEQS, cluster) == 13
    layout = layout_row(SEQS, [cluster])
    assert len(layout.tokens) == 13 and layout.paths[0] == layout.paths[4]
    assert cluster_by_prefix(SEQS, cap=8) == [[0, 4, 2, 1], [5, 3]]


def test_clusters_respect_the_cap() -> None:
    seqs = random_seqs(3, 60)
    for cap in (12, 20, 40):
        for cluster in cluster_by_prefix(seqs, cap):
            assert len(cluster) == 1 or trie_size(seqs, cluster) <= cap


def test_packed_batches_respect_the_budget() -> None:
    rng = random.Random(1)
    for _ in range(300):
        lengths = [rng.randint(1, 60) for _ in range(rng.randint(1, 40))]
        budget = rng.randint(1, 300)
        batches = plan_packed_batches(lengths, budget, max_batch_size=rng.randint(1, 30))
        assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
        for b in batches:
            assert len(b) == 1 or packed_cost([lengths[i] for i in b]) <= budget


def test_a_wider_row_can_close_the_gaps() -> None:
    lengths = [100, 55, 55, 55, 55]
    assert len(pack_rows(lengths, 100)) == 5  # no two 55s share a 100-wide row
    width = choose_width(lengths, max_tokens=8192)
    assert 110 <= width <= 200
    assert len(pack_rows(lengths, width)) * width < 5 * 100


# ---------------------------------------------------------------- on a real (tiny) model

pytorch = pytest.mark.torch

STORY = "The old lighthouse keeper walked down to the harbour every morning before dawn."
REQUESTS = [
    ScoreRequest("red boats", STORY),
    ScoreRequest("quiet harbour", STORY),
    ScoreRequest(STORY, ""),
    ScoreRequest(STORY, "red boats"),
    ScoreRequest("red boats", STORY, "xent"),
    ScoreRequest(" and then the storm came", STORY + " red boats", "xent"),
    ScoreRequest("lantern", ""),
]


@pytorch
async def test_packed_scores_equal_padded_scores(tiny_model_dir: Path, torch_device: str) -> None:
    from arena.judges.hf.judge import HFJudge

    kw: dict[str, Any] = {"device": torch_device, "tf32": False}
    packed = HFJudge.from_pretrained(str(tiny_model_dir), packing=True, **kw)
    padded = HFJudge.from_pretrained(str(tiny_model_dir), packing=False, **kw)
    got = await packed.score(REQUESTS * 2)
    want = await padded.score(REQUESTS * 2)
    assert packed.packs_sequences and not padded.packs_sequences
    for g, w in zip(got, want, strict=True):
        assert g.tokens == w.tokens
        assert all(abs(x - y) < 1e-4 for x, y in zip(g.bits, w.bits, strict=True))
    stats = packed.forward_stats()
    assert stats["positions"] < stats["requested"]  # the story ran once for several requests
    assert padded.forward_stats()["positions"] == padded.forward_stats()["requested"]
    await packed.aclose()
    await padded.aclose()


@pytorch
def test_self_test_accepts_gpt2_and_rejects_a_model_that_ignores_positions(
    tiny_model_dir: Path,
) -> None:
    import torch
    from transformers import AutoModelForCausalLM

    from arena.judges.hf.forward import packing_works

    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    assert packing_works(model, "cpu")

    class NoPositions(torch.nn.Module):
        """A causal LM whose body drops position ids and masks (numbers its tokens itself)."""

        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner
            self.config = inner.config

        def get_output_embeddings(self) -> Any:
            return self.inner.get_output_embeddings()

        def get_decoder(self) -> Any:
            body = self.inner.transformer

            class Body(torch.nn.Module):
                def __init__(self) -> None:
                    super().__init__()
                    self.body = body

                def forward(self, input_ids: Any, **_: Any) -> Any:
                    return self.body(input_ids=input_ids, use_cache=False)

            return Body()

    assert not packing_works(NoPositions(model), "cpu")
