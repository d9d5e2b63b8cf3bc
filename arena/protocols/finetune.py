"""The fine-tuning contract (the mechanism F of Def. 35 and 37, paper §4.2.3, §4.3).

A fine-tuner takes a player model M (a player spec such as ``hf:bundled``), a game G and a
token budget T, plays G, learns from the rewards of its own moves and returns the spec of
the tuned player F_G^T[M]. Fine-tuners register through the `arena_finetuners` hook (the
built-in is REINFORCE with a baseline, `arena.players.finetune.reinforce`).

The request is plain data: the game travels as its text (the `GameView` every player sees;
`arena.match_setup.game_from_view` loads it again), and the fine-tuner builds the players of
the other roles with the registry its factory was given (`factory(spec, registry)`). The
judge is lent, not described: it is the caller's running judge (often a pool on a GPU),
whose rewards the tuned player must learn, so a second copy is never loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from arena.protocols.judge import Judge
from arena.protocols.player import GameView


@dataclass(frozen=True)
class FineTuneRequest:
    """What a fine-tuner is asked to do.

    Attributes:
        player: the spec of the model M to tune (e.g. ``hf:bundled?temperature=1``).
        game: the game G it plays while learning (its text, name, dialect and version).
        judge: the judge that scores its moves (rewards come from it).
        budget_tokens: T, the tokens the tuning may process (prompts and generations).
        seed: makes the run reproducible (training maps, sampling, initialisation).
        out_dir: an empty folder where the tuned model is written.
        max_steps: stop after this many optimiser steps even when tokens are left (None:
            the token budget alone decides).
        show_code: False: the players see their information set without the program's
            text while learning (`arena.runtime.code_hidden`), as they will when measured.
    """

    player: str
    game: GameView
    judge: Judge
    budget_tokens: int
    seed: int
    out_dir: Path
    max_steps: int | None = None
    show_code: bool = True


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
