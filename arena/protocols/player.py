"""The player protocol and what a player receives: exactly its information set.

A `MoveRequest` is built by the runtime for one seat at one elicit. It holds the game's
public description, the registers the player may see, what was revealed to it, its own
history, and nothing else (XGL.md section 4). Players never get a handle on the runtime.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable


@dataclass(frozen=True)
class GameView:
    """What every player knows about the game: its code and metadata."""

    name: str
    code: str
    dialect: str  # its name, version included: xgl, xent, xent@2025-09 (arena.lang.dialects)
    header: str = ""
    version: str = ""


@dataclass(frozen=True)
class RevealedValue:
    """A value shown to the player by `reveal`, as it was at that moment."""

    label: str  # the expression's source text, e.g. "s2 + t2"
    value: str
    line: int


@dataclass(frozen=True)
class RewardTermView:
    """One xent term of a reward as the rewarded player sees it (`arena.runtime.feedback`).

    When the term scores or conditions on text the player has not seen, `hidden` is true:
    `bits` and `tokens` are empty and `total` (rounded to 0.01 bits) is the combined total
    of every such term of the reward, whose sources `source` lists with their signs.
    """

    source: str  # e.g. "xed(s|t)"
    coefficient: int
    bits: tuple[float, ...]  # per-token values before the coefficient
    tokens: tuple[str, ...]
    total: float  # coefficient included
    hidden: bool = False
    # The tokens as the judge decodes each alone (U+FFFD for part of a character), where
    # that differs from `tokens`. Left out of repr: move seeds hash the request's repr, and
    # this view of `tokens` adds nothing to the information set.
    shown: tuple[str, ...] | None = field(default=None, repr=False)


@dataclass(frozen=True)
class HistoryItem:
    """One entry of a player's own history within a round."""

    kind: Literal["move", "reward", "failed_ensure", "reveal"]
    line: int
    moves: Mapping[str, str] = field(default_factory=dict)  # kind == "move"
    cut: tuple[str, ...] = ()  # registers whose move was cut to max_len
    reward: float = 0.0  # kind == "reward"
    terms: tuple[RewardTermView, ...] = ()
    condition: str = ""  # kind == "failed_ensure": the failed condition's source
    reveal: RevealedValue | None = None  # kind == "reveal"


@dataclass(frozen=True)
class RoundMemory:
    """A finished round as the main character saw it (NPCs get none)."""

    round: int
    history: tuple[HistoryItem, ...]
    score: float | None  # None when the round was forfeited


@dataclass(frozen=True)
class MoveRequest:
    """Everything one player may know when asked for a move."""

    game: GameView
    role: str
    round: int  # NPCs (memoryless) always get round 1 of 1
    rounds: int
    line: int
    registers: tuple[str, ...]  # the registers to fill, in order
    max_len: int  # judge tokens per move; longer moves are cut
    visible: Mapping[str, str]  # register -> current value the player may see
    reveals: tuple[RevealedValue, ...]
    history: tuple[HistoryItem, ...]  # this round, in order
    previous_rounds: tuple[RoundMemory, ...] = ()
    attempt: int = 1  # > 1 after failed ensures
    failed_condition: str = ""  # the condition that sent the player back here, if any
    omniscient: bool = False
    # For the player's own randomness: keyed with the organiser's secret (XGL.md section 8)
    # and a function of this request's information, not of the round.
    seed: int = 0


@runtime_checkable
class Player(Protocol):
    """A participant's agent. `move` returns one string per requested register.

    Optionally a player exposes `usage` (an object with `as_dict()` of cumulative numbers
    such as prompt_tokens, completion_tokens, cost_usd, calls); the runtime records what
    each move spent in its `elicit_response` event.
    """

    @property
    def name(self) -> str: ...

    async def move(self, request: MoveRequest) -> Mapping[str, str]: ...
