"""The fine-tuning mechanism F of Def. 35 and 37 (paper §4.2.3, §4.3): a plugin hook.

A fine-tuner takes a player model M (a player spec such as ``hf:bundled``), a game G and a
token budget T, plays G, learns from the rewards of its own moves and returns the spec of
the tuned player F_G^T[M]. Fine-tuners register through the `arena_finetuners` hook (the
built-in is REINFORCE with a baseline, `arena.players.reinforce`, beside the hf player whose
moves it learns).

S_G(M), the expected score of a model at G, is measured by `arena.gamespace.evaluate`:
the same seeded maps for M and for F_G^T[M], so before/after differences are paired.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # match_setup imports the registry, which imports this protocol
    from arena.match_setup import LoadedGame
    from arena.protocols.judge import Judge
    from arena.registry import Registry


@dataclass(frozen=True)
class FineTuneRequest:
    """What a fine-tuner is asked to do.

    Attributes:
        player: the spec of the model M to tune (e.g. ``hf:bundled?temperature=1``).
        game: the game G it plays while learning.
        judge: the judge that scores its moves (rewards come from it).
        budget_tokens: T, the tokens the tuning may process (prompts and generations).
        seed: makes the run reproducible (training maps, sampling, initialisation).
        out_dir: an empty folder where the tuned model is written.
        registry: builds the players of the game's other roles (None: the installed
            plugins, loaded when a game has other roles).
        max_steps: stop after this many optimiser steps even when tokens are left (None:
            the token budget alone decides).
    """

    player: str
    game: LoadedGame
    judge: Judge
    budget_tokens: int
    seed: int
    out_dir: Path
    registry: Registry | None = None
    max_steps: int | None = None


@dataclass(frozen=True)
class FineTuneResult:
    """A tuned model and how it was made.

    Attributes:
        player: the spec of the tuned player, F_G^T[M] (e.g. ``hf:/path/to/out_dir``).
        tokens: the tokens actually processed (at most the budget, plus one step).
        steps: optimiser steps taken.
        wall_s: seconds the tuning took.
        rewards: the mean reward of each step, in order (the learning curve).
    """

    player: str
    tokens: int
    steps: int
    wall_s: float
    rewards: tuple[float, ...] = ()


@runtime_checkable
class FineTuner(Protocol):
    """Fine-tunes a player model on a game within a token budget."""

    async def finetune(self, request: FineTuneRequest) -> FineTuneResult:
        """Tune `request.player` on `request.game`; the result names the tuned player."""
        ...


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
