"""Playing a run in rounds, so that a stopping rule that rates the board decides between
rounds, on exactly the matches of the rounds before.

A round hands out up to ``width`` matches (the run's concurrency), plays them, waits until
they are all stored, and only then asks the rules whether the next round may start
(`StopWatch.allow`). Asked before each match instead, the rules would rate whatever the
writer had stored by then, so the same outcomes stopped a round robin after 50, 58 or 63
matches from one run to the next; in rounds they stop it after the same matches every
time. The price: a round waits for its slowest match.

`OrderedRounds` hands out the pending matches in their order (a round robin's balanced
order); `AdaptiveRounds` (`adaptive_rounds`) picks them with adaptive pairing.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

from arena.tournaments.planning.pairings import MatchPlan


class Rounds(ABC):
    """A run's pending matches, handed out round by round (module docstring)."""

    def __init__(self, pending: Sequence[MatchPlan], width: int,
                 newcomers: Sequence[str] = ()) -> None:
        self.candidates = list(pending)
        self.newcomers = tuple(newcomers)  # entrants being placed (adaptive runs)
        self._width = max(1, width)
        self._tried: set[str] = set()  # handed out this run: stored, or not to be retried

    @abstractmethod
    async def next_round(self, width: int | None = None) -> list[MatchPlan]:
        """The next round's matches (at most ``width``, default the run's); empty when
        every candidate was handed out."""

    @property
    def handed_out(self) -> int:
        """How many matches this run was given to play."""
        return len(self._tried)

    async def play(
        self,
        play: Callable[[MatchPlan], Coroutine[Any, Any, None]],
        stored: Callable[[], Awaitable[None]],
        allow: Callable[[int], Awaitable[int]],
    ) -> None:
        """Round after round until no candidate is left or the stopping rules allow no
        more (``allow(n)``: how many of n may start, `StopWatch.allow`, asked once per round
        so a verdict falls between rounds); ``stored()`` waits until the round's matches are
        in the database, so the next round (and the next verdict) sees them."""
        while (room := await allow(self._width)) > 0:
            picks = await self.next_round(room)
            if not picks:
                return
            async with asyncio.TaskGroup() as group:
                for plan in picks:
                    group.create_task(play(plan))
            await stored()


class OrderedRounds(Rounds):
    """The pending matches in their order, ``width`` a round: a round robin whose stopping
    rule rates the board."""

    async def next_round(self, width: int | None = None) -> list[MatchPlan]:
        wanted = self._width if width is None else min(width, self._width)
        start = len(self._tried)  # handed out in order: the first ones
        picks = self.candidates[start:start + wanted]
        self._tried.update(p.key for p in picks)
        return picks
