"""`random[?words=N][&seed=S]` — a baseline player that plays seeded random English words.

Each move is `N` words (default: a count from 1 to the request's `max_len`, drawn from the
same seed) picked from `WORDS`. The draw depends only on the context seed, the `seed`
parameter, the seat, the request's seed, line and attempt, and the register, mixed with
SHA-256 (never Python's salted `hash()`), so a move is the same in every process. Not on
the round: as an NPC it answers the same request the same way in every round.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import Mapping
from importlib.resources import files

from arena.errors import ConfigError
from arena.lang.limits import MOVE_WORDS_CEILING
from arena.plugins.plugin_types import PlayerContext
from arena.protocols.player import MoveRequest
from arena.specs import Spec

# The word list is data (one word a line), shipped as package data beside this module.
WORDS: tuple[str, ...] = tuple(
    files("arena.players.local").joinpath("random_words.txt").read_text(encoding="utf-8").split()
)

PARAMS = ("words", "seed")


def move_seed(*parts: object) -> int:
    """A 64-bit seed from `parts`, stable across processes and Python versions."""
    text = "\x1f".join(str(part) for part in parts)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


class RandomWordsPlayer:
    """Plays seeded random words; `words=None` draws the count per move."""

    def __init__(self, *, words: int | None, seed: int, role: str, name: str = "random"):
        self._words = words
        self._seed = seed
        self._role = role
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def _one(self, request: MoveRequest, register: str) -> str:
        rng = random.Random(
            move_seed(
                self._seed, self._role, request.seed, request.line, request.attempt, register,
            )
        )
        # Capped before anything is built: max_len comes from the game (or a remote arena).
        longest = min(max(1, request.max_len), MOVE_WORDS_CEILING)
        count = self._words if self._words is not None else rng.randint(1, longest)
        return " ".join(rng.choice(WORDS) for _ in range(min(count, MOVE_WORDS_CEILING)))

    def _all(self, request: MoveRequest) -> dict[str, str]:
        return {register: self._one(request, register) for register in request.registers}

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        # In a worker thread: the event loop keeps serving timeouts, signals and other seats.
        return await asyncio.to_thread(self._all, request)


def create_random_player(spec: Spec, ctx: PlayerContext) -> RandomWordsPlayer:
    """Factory for `random[?words=N][&seed=S]`."""
    spec.expect_params(PARAMS, "player")
    if spec.arg:
        raise ConfigError(
            f"Player spec '{spec.raw}': 'random' takes no ':' argument. "
            "Write e.g. 'random?words=5&seed=1'."
        )
    words = (
        spec.int_param("words", 0, minimum=1, maximum=MOVE_WORDS_CEILING)
        if "words" in spec.params else None
    )
    extra = spec.int_param("seed", 0)
    return RandomWordsPlayer(
        words=words, seed=move_seed(ctx.seed, extra), role=ctx.role, name=spec.raw
    )
