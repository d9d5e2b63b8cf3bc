"""Random-initialised model shapes the benchmarks share (no hub needed).

`make_model` builds GPT-2 small's shape (124M) or a ~1.1B Llama shape (TinyLlama's), or their
two-layer versions for a CPU; `save_random_player` writes one as a local `hf:` folder with the
bundled tokenizer, so the fine-tuning benchmark can tune a 124M model as a user would.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import torch

from arena.judges.hf.bundled_judge import bundled_model_path

# name -> (family, layers, d_model, heads, kv heads, ffn, vocab)
SHAPES: dict[str, tuple[str, int, int, int, int, int, int]] = {
    "gpt2-small": ("gpt2", 12, 768, 12, 12, 3072, 50257),
    "llama-1b": ("llama", 22, 2048, 32, 4, 5632, 32000),
    "gpt2-tiny": ("gpt2", 2, 256, 4, 4, 1024, 8192),
    "llama-tiny": ("llama", 2, 256, 8, 2, 688, 8192),
}


def random_model(name: str, vocab: int | None = None) -> Any:
    """A random-initialised causal LM of shape `name` (seed 0), on the CPU in float32."""
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

    family, layers, d, heads, kv, ffn, shape_vocab = SHAPES[name]
    torch.manual_seed(0)
    if family == "gpt2":
        config: Any = GPT2Config(
            n_layer=layers, n_embd=d, n_head=heads, n_inner=ffn,
            vocab_size=vocab or shape_vocab, n_positions=2048, bos_token_id=0, eos_token_id=0,
        )
        return GPT2LMHeadModel(config)
    config = LlamaConfig(
        num_hidden_layers=layers, hidden_size=d, num_attention_heads=heads,
        num_key_value_heads=kv, intermediate_size=ffn, vocab_size=vocab or shape_vocab,
        max_position_embeddings=2048, bos_token_id=0, eos_token_id=0,
    )
    return LlamaForCausalLM(config)


def make_model(name: str, dtype: torch.dtype, device: str) -> Any:
    """Shape `name` (or `bundled`, the trained checkpoint) in eval mode on `device`."""
    if name == "bundled":  # the trained checkpoint: its bits gaps are those of a real judge
        from transformers import AutoModelForCausalLM

        model: Any = AutoModelForCausalLM.from_pretrained(str(bundled_model_path()))
    else:
        model = random_model(name)
    return model.to(dtype=dtype, device=device).train(False).requires_grad_(False)


def save_random_player(name: str, folder: Path) -> Path:
    """Shape `name` with the bundled tokenizer's vocabulary, saved as an `hf:` model folder."""
    from transformers import AutoTokenizer

    bundled = bundled_model_path()
    tokenizer = AutoTokenizer.from_pretrained(str(bundled))
    model = random_model(name, vocab=len(tokenizer))
    model.generation_config.pad_token_id = 0
    model.save_pretrained(str(folder))
    for file in bundled.iterdir():
        if file.name.startswith("tokenizer"):
            shutil.copy(file, folder / file.name)
    return folder
