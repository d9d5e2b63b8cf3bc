"""A reference-style scorer: what a naive implementation of the paper's judge does.

Every request gets its own batch-of-one forward pass over the whole sequence with the full
logits (LM head on every position), synchronously on the event loop, with no cache: a
constant term such as a story's unconditioned cross-entropy is recomputed every time it is
asked for, and an `xed` costs two passes because the runtime sends two requests. Token ids
come from `HFJudge.encode_requests`, so its numbers are comparable with the HF judge's.
It runs the model as transformers builds it: a copy of the judge's model with the
activations the judge fuses (`arena.judges.hf.load.fuse_activations`) put back.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

from arena.judges.hf.judge import HFJudge
from arena.judges.hf.load import stock_activations
from arena.protocols.judge import GenerateRequest, JudgeInfo, ScoreRequest, TokenScores

LN2 = math.log(2.0)


class ReferenceScorer:
    """A `Judge` scoring with the model of `judge`, one request per forward pass."""

    def __init__(self, judge: HFJudge, device: str = "cpu") -> None:
        self._judge = judge
        self._device = device
        self._model = stock_activations(judge.model)
        keys = ("batches", "positions", "padded", "padded_sq", "scored", "head_rows", "busy_s")
        self._stats = dict.fromkeys(keys, 0.0)

    @property
    def info(self) -> JudgeInfo:
        return self._judge.info

    def forward_stats(self) -> dict[str, float]:
        """Same keys as `HFJudge.forward_stats`, plus `head_rows` (rows through the LM head:
        every position here)."""
        return dict(self._stats)

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        # No await before returning: the event loop is blocked while the model runs, as in
        # a reference implementation that calls the model inline.
        out: list[TokenScores] = []
        for enc in self._judge.encode_requests(requests):
            if enc.n_scored == 0:
                out.append(TokenScores(tokens=(), bits=()))
                continue
            bits = self._forward_one(enc.input_ids, enc.first_scored)
            out.append(TokenScores(tokens=enc.scored_pieces, bits=tuple(bits)))
        return out

    def _forward_one(self, ids: Sequence[int], first_scored: int) -> list[float]:
        import torch

        start = time.perf_counter()
        with torch.inference_mode():
            x = torch.tensor([list(ids)], dtype=torch.long, device=self._device)
            ones = torch.ones_like(x)  # no padding; saying so silences a transformers warning
            logits = self._model(input_ids=x, attention_mask=ones, use_cache=False)
            logits = logits.logits[0].float()
            logprobs = torch.log_softmax(logits, dim=-1)  # every position, as naive code does
            # Position p predicts token p + 1.
            rows = torch.arange(first_scored - 1, len(ids) - 1, device=self._device)
            picked = logprobs[rows, x[0, rows + 1]]
            bits = (-picked.double() / LN2).cpu().tolist()
        n = len(ids)
        self._stats["batches"] += 1
        self._stats["positions"] += n
        self._stats["padded"] += n
        self._stats["padded_sq"] += n * n
        self._stats["head_rows"] += n
        self._stats["scored"] += len(bits)
        self._stats["busy_s"] += time.perf_counter() - start
        return [float(b) for b in bits]

    async def tokenize(self, texts: Sequence[str], dialect: str = "xgl") -> list[list[str]]:
        return await self._judge.tokenize(texts, dialect)

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        return await self._judge.generate(requests)

    async def aclose(self) -> None:
        """The model belongs to the HF judge; closing it is the caller's business."""
