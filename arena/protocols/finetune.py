"""The fine-tuning contract (the mechanism F of Def. 35 and 37, paper §4.2.3, §4.3).

A fine-tuner takes a player model M (a player spec such as ``hf:bundled``), a game G and a
token budget T, plays G, learns from the rewards of its own moves and returns the spec of
the tuned player F_G^T[M]. Fine-tuners register through the `arena_finetuners` hook (the
built-in is REINFORCE with a baseline, `arena.players.reinforce`).

Not yet plain data: the request carries the loaded game, the judge and a registry (for the
players of the other roles), so this contract names two higher layers for the type checker
only (tests/meta/test_architecture.py lists that debt).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from arena.protocols.judge import Judge

if TYPE_CHECKING:  # type-only: the registry imports this contract
    from arena.match_setup import LoadedGame
    from arena.plugins.registry import Registry


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
