"""A run's stopping rules at work (issue 33): the engine asks before each match whether the
run has done enough (`arena.tournaments.ratings.stopping`), and a run that has stops taking
new matches; the matches in flight finish and are stored.

What it counts: the tournament's done matches (those stored before this run included, so a
resumed run stops at once when `max_matches` is met; this run's as they finish, the
writer storing them in batches), and what this run's players reported
spending (`ElicitResponse.usage`): a budget is per run, as a recurring tournament's nightly
run spends its own. `stop_when = "settled"` rates the stored matches as `arena ratings`
does (the one record builder, the default 1 000 resamples, at the file's `confidence`)
once every `entrants` new matches (a tenth more in a long run), in a thread; new matches
wait for that verdict, the matches in flight go on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from arena.events import ElicitResponse, Event
from arena.storage import MATCH_DONE, FinishedMatch, Store
from arena.tournaments.ratings.leaderboard import LeaderboardRow
from arena.tournaments.ratings.service import RatingOptions, compute_ratings
from arena.tournaments.ratings.spend import Spend
from arena.tournaments.ratings.stopping import StopDecision, StopRules, check_stop
from arena.tournaments.records.kept_matches import KeptMatches
from arena.tournaments.records.rating_store import load_inputs


class StopWatch:
    """Counts a run's matches and spend, rates it now and then, and says when to stop."""

    def __init__(
        self, rules: StopRules, store: Store, tournament: str, entrants: Sequence[str],
        stored_before: int,
    ) -> None:
        self.rules = rules
        self._kept, self._tournament, self._entrants = (
            KeptMatches(store), tournament, tuple(entrants))
        self._matches = stored_before  # done: stored before this run, or played in it
        self._started = stored_before  # done or in flight: what `max_matches` counts
        self._spend = Spend()
        self._rated_at: int | None = None  # matches when the board was last computed
        self._step = max(1, len(self._entrants))
        self._rating = asyncio.Lock()
        self.decision: StopDecision | None = None

    def on_event(self, event: Event) -> None:
        if isinstance(event, ElicitResponse) and event.usage:
            self._spend += Spend.of_usage(event.usage)

    def played(self, match: FinishedMatch) -> None:
        if match.status == MATCH_DONE:
            self._matches += 1

    async def should_stop(self) -> bool:
        """Whether the run has done enough (else the caller plays its match); rates the
        board first when it is due. A match waits for a board being rated (the matches in
        flight go on): starting it blind could spend what the verdict would have saved."""
        return await self.allow(1) == 0

    async def allow(self, wanted: int) -> int:
        """How many of ``wanted`` new matches may start now (0: the run has done enough),
        counted as started: a round of adaptive pairing asks once for the whole round, so
        its verdicts fall between rounds whatever the timing of its matches."""
        if self.decision is not None:
            return 0
        async with self._rating:
            if self.decision is not None:
                return 0
            board, rated = None, None
            if self._due():
                self._rated_at = self._matches
                board, rated = await asyncio.to_thread(self._board)
            limit = self.rules.max_matches
            if limit is not None and self._started >= limit:  # the in-flight ones finish
                self.decision = check_stop(self.rules, matches=self._started)
            else:
                self.decision = check_stop(self.rules, matches=self._matches,
                                           spend=self._spend, board=board,
                                           entrants=self._entrants, rated=rated)
            if self.decision is not None:
                return 0
            granted = wanted if limit is None else min(wanted, limit - self._started)
            self._started += granted  # the caller plays them
            return granted

    def _due(self) -> bool:
        """Rated again after `entrants` new matches, or a tenth more once the run is large
        (so a long run rates its board some tens of times, not once per few matches)."""
        if not self.rules.rates or self._matches == 0:
            return False
        if self._rated_at is None:
            return True
        return self._matches - self._rated_at >= max(self._step, self._rated_at // 10)

    def _board(self) -> tuple[list[LeaderboardRow], int]:
        """The board of the matches stored now, and how many they are (the writer stores
        in batches, so they may be fewer than this run has counted as played)."""
        inputs = load_inputs(self._kept, [self._tournament], self._kept.records)
        options = RatingOptions(confidence=self.rules.confidence)  # the board's own
        # `min_comparisons`: a provisional row keeps the ranking unsettled
        return list(compute_ratings(inputs, options).rows), len(inputs.records)
