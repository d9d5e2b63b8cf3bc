"""A tiny random-initialised GPT-2 and a byte-level BPE tokenizer trained here, saved with
`save_pretrained` and loaded back through the real `from_pretrained` path (no downloads)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

_LINES = [
    "the a cat dog bird sat ran flew on under over mat tree house red blue green small big",
    "quickly slowly and but then never always river stone light night morning café naïve",
    "über 東京 garden window",
]
WORDS = " ".join(_LINES).split()


def sentences(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(3, 12))]
        out.append(" ".join(words).capitalize() + rng.choice([".", "!", "?", ","]))
    return out


def build_tiny_model(folder: Path, *, seed: int = 0) -> Path:
    """Train the tokenizer, build the random GPT-2, save both into `folder`."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=True)
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(sentences(400, seed), trainer)
    hf_tok: Any = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=tok, bos_token="<|endoftext|>", eos_token="<|endoftext|>"
    )
    hf_tok.save_pretrained(folder)
    eot = int(hf_tok.convert_tokens_to_ids("<|endoftext|>"))
    config = GPT2Config(
        n_layer=2,
        n_embd=64,
        n_head=2,
        n_positions=128,
        vocab_size=len(hf_tok),
        bos_token_id=eot,
        eos_token_id=eot,
        initializer_range=0.2,  # large enough that outputs depend on the context
    )
    torch.manual_seed(seed)
    GPT2LMHeadModel(config).save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    return build_tiny_model(tmp_path_factory.mktemp("tiny-judge"))


@pytest.fixture
async def hf_judge(tiny_model_dir: Path, torch_device: str) -> AsyncIterator[object]:
    from arena.judges.hf.judge import HFJudge

    # tf32=False: on a GPU the tests compare float32 numbers to 1e-4 bits.
    judge = HFJudge.from_pretrained(str(tiny_model_dir), device=torch_device, tf32=False)
    yield judge
    await judge.aclose()
