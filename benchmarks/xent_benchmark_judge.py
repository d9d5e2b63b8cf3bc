"""What the published Xent benchmark's judge needs (README, "Running the published Xent
benchmark"): Qwen3-14B-Base in float32 without TF32, the numerics the reference ran with
(its judge loads the model in the default dtype and TF32 matmuls are off by default in
PyTorch), against bfloat16 for comparison.

The weights are not needed for time and memory: a model of Qwen3-14B-Base's published shape
(its config.json) is initialised at random on the GPU. For each dtype the script prints the
weights' memory, the peak memory, and the time of one forward pass of a sequence as the
reference runs it (one unbatched sequence, logits at every position) and of a batch of 8.

    python benchmarks/xent_benchmark_judge.py          # needs a CUDA GPU with ~70 GB free
"""

from __future__ import annotations

import sys
import time

import torch
from transformers import AutoModelForCausalLM, Qwen3Config

# Qwen/Qwen3-14B-Base config.json (hub, 2025): the shape that sets time and memory.
SHAPE = dict(
    hidden_size=5120, intermediate_size=17408, num_hidden_layers=40, num_attention_heads=40,
    num_key_value_heads=8, head_dim=128, vocab_size=151936, max_position_embeddings=32768,
    rope_theta=1_000_000.0, rms_norm_eps=1e-6, tie_word_embeddings=False,
)
LENGTHS = (256, 768)  # a story alone; two stories and a move (Two-Ways' longest requests)
REPEATS = 5


def timed(model: torch.nn.Module, batch: int, length: int) -> float:
    ids = torch.randint(0, SHAPE["vocab_size"], (batch, length), device="cuda")
    with torch.inference_mode():
        model(ids)  # warm-up
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(REPEATS):
            model(ids)
        torch.cuda.synchronize()
    return (time.perf_counter() - start) / REPEATS


def main() -> None:
    if not torch.cuda.is_available():
        sys.exit("This measurement needs a CUDA GPU.")
    torch.backends.cuda.matmul.allow_tf32 = False  # as the reference ran (PyTorch default)
    torch.backends.cudnn.allow_tf32 = False
    config = Qwen3Config(**SHAPE)
    rows = []
    with torch.device("cuda"):
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32).eval()
    for dtype in (torch.float32, torch.bfloat16):
        model = model.to(dtype)
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        weights = torch.cuda.memory_allocated() / 2**30
        for length in LENGTHS:
            single = timed(model, 1, length)
            batch = timed(model, 8, length)
            rows.append((str(dtype).removeprefix("torch."), length, weights, single, batch))
        peak = torch.cuda.max_memory_allocated() / 2**30
        rows = [(*r, peak) if len(r) == 5 else r for r in rows]
    print(f"GPU: {torch.cuda.get_device_name()}; torch {torch.__version__}; TF32 off")
    print(f"{'dtype':9} {'tokens':>6} {'weights GiB':>11} {'1 seq s':>8} {'8 seqs s':>8} "
          f"{'peak GiB':>8}")
    for dtype_name, length, weights, single, batch, peak in rows:
        print(f"{dtype_name:9} {length:6d} {weights:11.1f} {single:8.3f} {batch:8.3f} "
              f"{peak:8.1f}")
    float32_768 = next(r for r in rows if r[0] == "float32" and r[1] == 768)
    print(f"float32_forward_768_s={float32_768[3]:.3f}")


if __name__ == "__main__":
    main()
