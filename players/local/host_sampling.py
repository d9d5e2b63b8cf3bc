"""The hf player's token draw, made on the host so that a seed means the same moves on
every device.

`model.generate(do_sample=True)` draws with the global generator of the device the logits
live on, and CUDA's stream of random numbers is not the CPU's: the same seed gave other
moves on a GPU, so a fine-tuning run (and the transfer values built on it) changed with the
device. `HostDraw` is the last custom logits processor: it draws the next token on the CPU
with its own seeded generator and leaves only that token possible, so `generate`'s own draw
has one choice. It draws from the distribution `generate` would sample: softmax of the
logits over the temperature, restricted to the model's generation-config top-k and then
top-p (transformers applies these after custom processors, so they are applied here).
"""

from __future__ import annotations

from typing import Any


def truncated(logits: Any, top_k: int | None, top_p: float | None) -> Any:
    """`logits` (already over the temperature) with the tokens that top-k and then top-p
    leave out set to -inf: the distribution the draw samples from. Differentiable in the
    tokens kept (the learner's log p, `arena.players.finetune.reinforce`, is taken under it)."""
    import torch

    work = logits.detach().float()
    if top_k is not None and 0 < top_k < work.shape[-1]:
        kth = torch.topk(work, top_k, dim=-1).values[..., -1:]
        work = work.masked_fill(work < kth, float("-inf"))
    if top_p is not None and top_p < 1.0:  # keep the smallest set whose mass reaches top_p
        ordered, order = torch.sort(work, descending=False, dim=-1)
        cumulative = ordered.softmax(dim=-1).cumsum(dim=-1)
        drop = cumulative <= 1 - top_p
        drop[..., -1:] = False  # the most likely token always stays
        work = work.masked_fill(drop.scatter(-1, order, drop), float("-inf"))
    return logits.masked_fill(torch.isneginf(work), float("-inf"))


def draw_limits(model: Any) -> tuple[int | None, float | None]:
    """(top_k, top_p) of `model`'s generation config: what `generate` samples under."""
    config = getattr(model, "generation_config", None)
    top_k = getattr(config, "top_k", None)
    top_p = getattr(config, "top_p", None)
    return (top_k if top_k and top_k > 0 else None,
            top_p if top_p is not None and top_p < 1.0 else None)


class HostDraw:
    """Logits processor: one host-side draw per step from a generator seeded with `seed`."""

    def __init__(
        self, temperature: float, seed: int, top_k: int | None = None, top_p: float | None = None
    ) -> None:
        import torch

        self._torch = torch
        self._temperature = temperature
        self._top_k = top_k if top_k and top_k > 0 else None
        self._top_p = top_p if top_p is not None and top_p < 1.0 else None
        self._generator = torch.Generator().manual_seed(seed)

    def probabilities(self, scores: Any) -> Any:
        """The sampling distribution of each row (float32, on the CPU)."""
        logits = scores.detach().float().cpu() / self._temperature
        return self._torch.softmax(truncated(logits, self._top_k, self._top_p), dim=-1)

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        torch = self._torch
        picked = torch.multinomial(self.probabilities(scores), 1, generator=self._generator)
        forced = torch.full_like(scores, float("-inf"))
        return forced.scatter_(1, picked.to(scores.device), 0.0)


def draw_seed(torch: Any) -> int:
    """A seed for one generation from torch's CPU generator (seeded per move by the player)."""
    return int(torch.randint(0, 2**62, (1,)).item())


def host_draw(model: Any, temperature: float, torch: Any) -> HostDraw:
    """The draw for one generation of `model`, with its generation config's top-k / top-p."""
    top_k, top_p = draw_limits(model)
    return HostDraw(temperature, draw_seed(torch), top_k=top_k, top_p=top_p)
