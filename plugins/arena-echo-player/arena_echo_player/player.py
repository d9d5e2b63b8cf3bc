"""`echo[?words=N&seed=S]` — plays words taken from what the player can see.

The words come from the request's visible registers and reveals (its information set, so
nothing hidden), read as one sequence; each move is `words` consecutive words (default:
`max_len`) starting at an offset drawn from the seat seed, the request seed and the
attempt, so a retry after a failed ensure plays something else. With nothing to see it
plays "echo".
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping

from arena import ConfigError, MoveRequest, PlayerContext, Spec

_WORD = re.compile(r"[A-Za-z0-9']+")


def _offset(*parts: object) -> int:
    # SHA-256 rather than hash(): the same move in every process.
    text = "\x1f".join(map(str, parts)).encode("utf-8")
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big")


class EchoPlayer:
    """Repeats visible words; a minimal, complete implementation of the Player protocol."""

    def __init__(self, *, words: int | None, seed: int, name: str = "echo") -> None:
        self._words = words
        self._seed = seed
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        texts = [request.visible[r] for r in sorted(request.visible)]
        texts += [revealed.value for revealed in request.reveals]
        pool = _WORD.findall(" ".join(texts)) or ["echo"]
        count = max(1, self._words or request.max_len)
        moves = {}
        for register in request.registers:
            start = _offset(self._seed, request.seed, request.attempt, register) % len(pool)
            moves[register] = " ".join(pool[(start + i) % len(pool)] for i in range(count))
        return moves


def create_echo_player(spec: Spec, ctx: PlayerContext) -> EchoPlayer:
    """Factory for `echo[?words=N&seed=S]`; the arena calls it once per seat per match."""
    spec.expect_params({"words", "seed"}, "player")
    if spec.arg:
        raise ConfigError(f"Player spec '{spec.raw}': 'echo' takes no ':' argument.")
    words = spec.int_param("words", 0, minimum=1) if "words" in spec.params else None
    seed = _offset(ctx.seed, ctx.role, spec.int_param("seed", 0))
    return EchoPlayer(words=words, seed=seed, name=spec.raw)
