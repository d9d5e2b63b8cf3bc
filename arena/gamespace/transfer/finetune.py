"""The fine-tuning mechanism F of Def. 35 and 37 (paper §4.2.3, §4.3): a plugin hook whose
contract (`FineTuner`, `FineTuneRequest`, `FineTuneResult`) is `arena.protocols.finetune`.

A fine-tuner takes a player model M (a player spec such as ``hf:bundled``), a game G and a
token budget T, plays G, learns from the rewards of its own moves and returns the spec of
the tuned player F_G^T[M]. Fine-tuners register through the `arena_finetuners` hook (the
built-in is REINFORCE with a baseline, `arena.players.finetune.reinforce`, beside the hf player
whose
moves it learns).

S_G(M), the expected score of a model at G, is measured by `arena.gamespace.transfer.evaluate`:
the same seeded maps for M and for F_G^T[M], so before/after differences are paired.
"""

from __future__ import annotations

MIN_STEPS = 8  # fewer optimiser steps than this rarely learn anything (issue 19, measured
# in benchmarks/gamespace_calibration.py --steps): the warning threshold of `steps_warning`


def steps_warning(game: str, steps: int, tokens: int, budget_tokens: int) -> str | None:
    """One sentence when a fine-tuning took fewer than `MIN_STEPS` optimiser steps (what
    the budget bought), with the token budget that would buy them; None otherwise."""
    if steps >= MIN_STEPS:
        return None
    per_step = tokens / max(steps, 1)
    wanted = int(per_step * MIN_STEPS * 1.1) + 1
    return (
        f"Warning: fine-tuning on {game} took {steps} optimiser step(s) within "
        f"{budget_tokens} tokens (about {per_step:.0f} tokens a step), fewer than the "
        f"{MIN_STEPS} steps learning needs; give --budget-tokens {wanted} or more."
    )
