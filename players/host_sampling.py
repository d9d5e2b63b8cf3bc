"""The hf player's token draw, made on the host so that a seed means the same moves on
every device.

`model.generate(do_sample=True)` draws with the global generator of the device the logits
live on, and CUDA's stream of random numbers is not the CPU's: the same seed gave other
moves on a GPU, so a fine-tuning run (and the transfer values built on it) changed with the
device. `HostDraw` is the last custom logits processor: it draws the next token from
softmax(logits / temperature) on the CPU with its own seeded generator and leaves only that
token possible, so `generate`'s own draw has one choice. The distribution is exactly
softmax(logits / temperature), the one REINFORCE takes log p under; the model's
generation-config top-k / top-p are thereby not applied (the spec's temperature is the only
sampling setting).
"""

from __future__ import annotations

from typing import Any


class HostDraw:
    """Logits processor: one host-side draw per step from a generator seeded with `seed`."""

    def __init__(self, temperature: float, seed: int) -> None:
        import torch

        self._torch = torch
        self._temperature = temperature
        self._generator = torch.Generator().manual_seed(seed)

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        torch = self._torch
        probs = torch.softmax(scores.detach().float().cpu() / self._temperature, dim=-1)
        picked = torch.multinomial(probs, 1, generator=self._generator)
        forced = torch.full_like(scores, float("-inf"))
        return forced.scatter_(1, picked.to(scores.device), 0.0)


def draw_seed(torch: Any) -> int:
    """A seed for one generation from torch's CPU generator (seeded per move by the player)."""
    return int(torch.randint(0, 2**62, (1,)).item())
