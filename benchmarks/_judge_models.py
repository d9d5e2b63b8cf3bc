"""The models `judge_bench.py` scores with, and what it measures them by: the judges
(bundled, a random GPT-2 small, a checkpoint folder), their shapes, the FLOP formula of
`judge_bench`'s docstring (checked against torch's FlopCounterMode) and the matmul peak of
their layer shapes.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from arena.judges.hf.forward import (
    attention_width,
    base_and_head,
    body_weights,
    score_batch,
    score_packed,
)
from arena.judges.hf.judge import HFJudge
from arena.judges.hf.packing import plan_rows, trie_size
from arena.protocols.judge import JudgeInfo, ScoreRequest
from benchmarks._judge_workloads import story_text
from benchmarks._model_shapes import make_model


def model_shape(model: Any) -> dict[str, int]:
    """n_layer, d_model, vocab and N_body (weights of the body's matrix multiplies)."""
    _, head = base_and_head(model)
    config = model.config.get_text_config()
    return {
        "n_layer": int(config.num_hidden_layers),
        "d_model": int(config.hidden_size),
        "vocab": int(head.weight.shape[0]),
        "n_body": body_weights(model),
    }


def model_flops(
    shape: Mapping[str, int], stats: Mapping[str, float], head_rows: float, attention: bool = True
) -> float:
    """The module docstring's formula over a run's forward statistics."""
    linear = 2.0 * shape["n_body"] * stats["padded"]
    quadratic = 4.0 * shape["n_layer"] * shape["d_model"] * stats["padded_sq"]
    head = 2.0 * shape["d_model"] * shape["vocab"] * head_rows
    return linear + head + (quadratic if attention else 0.0)


def counted_flops_check(judge: HFJudge, shape: Mapping[str, int], device: str) -> str:
    """Formula vs torch's FlopCounterMode on a padded batch and on the same batch packed
    with shared prefixes (the pool's forward passes), and attention's share of the FLOPs."""
    from torch.utils.flop_counter import FlopCounterMode

    story = story_text(1, 45)
    reqs = [ScoreRequest(f"quiet harbour {k}", story, "xgl") for k in range(6)]
    reqs += [ScoreRequest(story, "lantern " * k, "xgl") for k in (1, 4)]
    enc = judge.encode_requests(reqs)
    seqs = [e.input_ids for e in enc]
    scored = sum(e.n_scored for e in enc)
    width = max(e.length for e in enc)
    rows = plan_rows(seqs, judge.max_batch_tokens, attention_width(judge.model))
    packed_width = max(sum(trie_size(seqs, c) for c in row) for row in rows)
    out = []
    for packed, n_rows, w in ((False, len(enc), width), (True, len(rows), packed_width)):
        stats = {"padded": n_rows * w, "padded_sq": n_rows * w * w}
        counter = FlopCounterMode(display=False)
        with counter:
            if packed:
                score_packed(judge.model, enc, rows, device, 0)
            else:
                score_batch(judge.model, enc, device, 0)
        # FlopCounterMode does not count CPU SDPA kernels: compare without attention.
        ratio = model_flops(shape, stats, scored, attention=False) / counter.get_total_flops()
        share = 1 - model_flops(shape, stats, scored, attention=False) / model_flops(
            shape, stats, scored
        )
        kind = "packed" if packed else "padded"
        out.append(f"{ratio:.3f} on a {kind} {n_rows}x{w} batch (+{share:.0%} attention)")
    return "formula without attention / FlopCounterMode = " + ", ".join(out)


def matmul_peak(d_model: int, tokens: int, device: str, repeats: int = 5) -> float:
    """Best float32 matmul GFLOP/s over the model's layer shapes (same thread count)."""
    best = 0.0
    for k, n in ((d_model, 3 * d_model), (d_model, 4 * d_model), (4 * d_model, d_model)):
        a = torch.randn(tokens, k, device=device)
        b = torch.randn(k, n, device=device)
        c = torch.matmul(a, b)  # warm-up
        for _ in range(repeats):
            sync(device)
            start = time.perf_counter()
            torch.matmul(a, b, out=c)
            sync(device)
            best = max(best, 2.0 * tokens * k * n / (time.perf_counter() - start) / 1e9)
    return best


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def bundled_judge(
    device: str, max_batch_tokens: int, lanes: int | None = None, dtype: str = "float32"
) -> HFJudge:
    from arena.judges.hf.bundled_judge import bundled_model_path

    return HFJudge.from_pretrained(
        str(bundled_model_path()),
        device=device,
        name="bundled",
        max_batch_tokens=max_batch_tokens,
        lanes=lanes,
        dtype=dtype,
    )


def bench_tokenizer() -> Any:
    """The bundled judge's tokenizer, or a small BPE trained here (no downloads)."""
    from arena.judges.hf.bundled_judge import bundled_model_path

    try:
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(str(bundled_model_path()))
    except Exception:  # checkpoint missing: train a tokenizer on the corpus
        from arena.judges.hf.training.corpus import generate_corpus
        from arena.judges.hf.training.train import train_tokenizer

        return train_tokenizer(generate_corpus(3000, seed=5), 3000)


def gpt2_small_judge(
    device: str, max_batch_tokens: int, lanes: int | None = None, dtype: str = "float32"
) -> HFJudge:
    """GPT-2 small's shape (12 layers, d 768, vocab 50257: 124M parameters), random init."""
    lm = make_model("gpt2-small", getattr(torch, dtype), device)
    info = JudgeInfo(
        name="gpt2-small-random",
        model="GPT-2 small shape, random init (seed 0)",
        revision="seed0",
        dtype=dtype,
        vocab_size=int(lm.config.vocab_size),
    )
    return HFJudge(
        [(lm, device)], bench_tokenizer(), info, max_batch_tokens=max_batch_tokens, lanes=lanes
    )


def make_judge(
    name: str, device: str, max_batch_tokens: int, lanes: int | None = None,
    dtype: str = "float32",
) -> HFJudge:
    """The benchmark's judge `name` (bundled, gpt2-small or a checkpoint folder) in `dtype`."""
    if name == "bundled":
        return bundled_judge(device, max_batch_tokens, lanes, dtype)
    if name == "gpt2-small":
        return gpt2_small_judge(device, max_batch_tokens, lanes, dtype)
    if Path(name).is_dir():
        return HFJudge.from_pretrained(
            name,
            device=device,
            name=Path(name).name,
            max_batch_tokens=max_batch_tokens,
            lanes=lanes,
            dtype=dtype,
        )
    raise SystemExit(f"Unknown model {name!r}: use bundled, gpt2-small or a checkpoint folder.")
