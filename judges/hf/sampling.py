"""Seeded sampling in blocks: many stories drawn at once, each exactly as it is drawn alone.

A forward pass's numerics depend on the shapes it runs at: on this project's CPU (MKL) the
logits of a row drawn with fewer than about ten others differ in the last bits from the
same row drawn in a larger batch, because the library picks another kernel. So a sample is
always drawn in a block of exactly `SAMPLE_ROWS` rows, whatever company it has: a lone
request fills the rest of its block with copies of itself, whose tokens are thrown away.
Rows of one block share their prompt length (no padding, so no row sees another's mask),
and a row's tokens depend only on its own prompt, seed and temperature: the kernels of a
fixed shape compute each row alone (checked by `tests/judges/test_sampling.py`, and on
GPT-2 small's shape by `benchmarks/map_prep_bench.py`).

On a CPU each block runs on a lane with one torch thread (`SAMPLE_THREADS`): a kernel's
result also depends on how many threads split it, and one thread per block makes stories
the same on any number of cores (of the same instruction set); several blocks run at once
on several lanes.

The draw itself is the judge's rule since the first release: a fresh CPU generator per
request and inverse-CDF sampling in float64 on the CPU, one row at a time, so no device's
sampling kernel takes part.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.judges.hf.forward import base_and_head, post_head

# Rows of every sampling block: a story's identity (changing it changes every story drawn
# afterwards, like changing the model). 16 rows cost the bundled judge about what one does
# (its steps are Python overhead), and fill MKL's large-batch kernel.
SAMPLE_ROWS = 16
# torch threads of a CPU sampling lane (see the module docstring).
SAMPLE_THREADS = 1


@dataclass(frozen=True)
class SampleRow:
    """One sample to draw: token ids to continue (BOS first), how many, under which seed."""

    prompt_ids: tuple[int, ...]
    max_tokens: int
    seed: int
    temperature: float = 1.0


def plan_blocks(rows: Sequence[SampleRow], width: int = SAMPLE_ROWS) -> list[list[int]]:
    """Indices of `rows` in blocks of at most `width` rows sharing a prompt length, in the
    order of each length's first row (first come, first drawn), rows in their given order."""
    groups: dict[int, list[int]] = {}
    for i, row in enumerate(rows):
        groups.setdefault(len(row.prompt_ids), []).append(i)
    return [g[k : k + width] for g in groups.values() for k in range(0, len(g), width)]


class BlockForward:
    """The forward side of one block: the next-token logits (float64, on the CPU) of 1 to
    `width` rows of one prompt length, run as `width` rows (the rest copies of the first,
    their logits returned too: [width, vocab]) with a KV cache. `next_logits()` runs the
    prompts; `next_logits(tokens)` feeds each real row its next token."""

    def __init__(
        self, model: Any, prompts: Sequence[Sequence[int]], device: str, width: int = SAMPLE_ROWS
    ) -> None:
        if not prompts or len(prompts) > width or len({len(p) for p in prompts}) != 1:
            raise ValueError(f"a sampling block takes 1 to {width} rows of one prompt length")
        self._model, self._device, self._width, self._rows = model, device, width, len(prompts)
        self._prompts = [list(p) for p in prompts] + [list(prompts[0])] * (width - len(prompts))
        self._base, self._head = base_and_head(model)
        self._cache_arg = _cache_argument(self._base)
        self._cache: Any = None
        self._length = 0

    def next_logits(self, tokens: Sequence[int] | None = None) -> Any:
        import torch

        if tokens is None:
            rows = self._prompts
        else:
            rows = [[t] for t in tokens] + [[tokens[0]]] * (self._width - self._rows)
        ids = torch.tensor(rows, dtype=torch.long, device=self._device)
        self._length += ids.shape[1]
        # All ones (no padding), said so transformers never guesses padding from a BOS id.
        mask = torch.ones((self._width, self._length), dtype=torch.long, device=self._device)
        with torch.inference_mode():
            result = self._base(
                input_ids=ids, attention_mask=mask, use_cache=True,
                **{self._cache_arg: self._cache},
            )
            cache = getattr(result, self._cache_arg, None)
            self._cache = cache if cache is not None else result.past_key_values  # 4.x name
            hidden = result.last_hidden_state if hasattr(result, "last_hidden_state") else result[0]
            logits = post_head(self._model.config, self._head(hidden[:, -1]))
            return logits.double().cpu()


def sample_block(
    model: Any,
    rows: Sequence[SampleRow],
    *,
    banned: Sequence[int],
    vocab_limit: int,
    device: str,
    width: int = SAMPLE_ROWS,
) -> list[list[int]]:
    """The token ids of each row (1 to `width` rows of one prompt length), drawn in one
    block of `width` rows; the tokens of a row depend on that row alone."""
    import torch

    forward = BlockForward(model, [r.prompt_ids for r in rows], device, width)
    gens = []
    for r in rows:
        gen = torch.Generator(device="cpu")
        gen.manual_seed(r.seed % (1 << 64))
        gens.append(gen)
    banned_ids = torch.tensor(sorted(banned), dtype=torch.long)
    # Temperatures per row of the block (fillers and greedy rows divide by 1).
    temps = torch.tensor([r.temperature if r.temperature > 0 else 1.0 for r in rows]
                         + [1.0] * (width - len(rows)), dtype=torch.float64)[:, None]
    out: list[list[int]] = [[] for _ in rows]
    tokens: list[int] | None = None
    with torch.inference_mode():
        for step in range(max(r.max_tokens for r in rows)):
            logits = forward.next_logits(tokens)
            drawn = _draw(logits, rows, gens, step, banned_ids, vocab_limit, temps)
            for i, token in drawn.items():
                out[i].append(token)
            # a finished row runs on, on its last token
            tokens = [o[-1] if o else r.prompt_ids[-1] for o, r in zip(out, rows, strict=True)]
    return out


def _draw(logits: Any, rows: Sequence[SampleRow], gens: Sequence[Any], step: int,
          banned: Any, vocab_limit: int, temps: Any) -> dict[int, int]:
    """The next token of each row still drawing at `step`, from the block's float64 logits
    [width, vocab] (special ids and ids past the tokenizer's vocabulary never drawn):
    argmax at temperature 0, else inverse-CDF with the row's own generator. The whole
    block is computed at once (a fixed shape, like its forward pass)."""
    import torch

    logits[:, banned] = -math.inf
    logits[:, vocab_limit:] = -math.inf
    probs = torch.softmax(logits / temps, dim=1)
    cdf = torch.cumsum(probs, dim=1)
    live = [i for i, r in enumerate(rows) if step < r.max_tokens]
    u = torch.zeros(logits.shape[0], dtype=torch.float64)
    for i in live:
        if rows[i].temperature > 0:
            u[i] = torch.rand((), generator=gens[i], dtype=torch.float64)
    picks = torch.searchsorted(cdf, (u * cdf[:, -1])[:, None], right=True)[:, 0].tolist()
    drawn: dict[int, int] = {}
    last = logits.shape[1] - 1
    for i in live:
        if rows[i].temperature <= 0:
            drawn[i] = int(torch.argmax(logits[i]))
            continue
        token = min(picks[i], last)
        while probs[i, token] == 0 and token > 0:  # never land on a banned id
            token -= 1
        drawn[i] = token
    return drawn


def _cache_argument(base: Any) -> str:
    """The body's keyword for its KV cache: `cache` (transformers 5.x) or `past_key_values`."""
    return "cache" if "cache" in inspect.signature(base.forward).parameters else "past_key_values"
