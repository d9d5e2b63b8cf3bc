"""Adaptive pairing at work (tournament key ``pairing = "adaptive"``, issue 33): which of the
pending matches a run plays next, and placing new entrants.

Rounds (`arena.tournaments.running.rounds`): each round picks up to ``width`` matches (the
run's concurrency) with `arena.tournaments.ratings.adaptive.AdaptivePairing`, given every
match of the tournament stored so far; they are played, and the next round is picked once
they have all ended. So the picks are a pure function of what is stored and the
tournament's seed: any concurrency, the local and the Ray executor, and a resumed run pick
alike (a run cut in the middle of a round picks again from what that round stored).

Placement: when the tournament has stored matches and some entrants have none (a player
added since; the next run of a recurring tournament picks it up), the run places them: the
candidates are the pending matches that have a new entrant in a rated seat, the policy
weighs only the adjacent pairs that involve one, and the stopping rule ``placed``
(`arena.tournaments.ratings.stopping`) ends the run once they are known as well as the
others.

Every rule of the plans holds for any subset of them (seat rotation, maps kept apart for
seats that see different things of a map), so choosing among them keeps those rules.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from arena.storage import Store
from arena.tournaments.planning.pairings import MatchPlan
from arena.tournaments.ratings.adaptive import AdaptivePairing, AdaptiveSettings, candidates_of
from arena.tournaments.ratings.records import MatchRecord
from arena.tournaments.records.kept_matches import KeptMatches
from arena.tournaments.records.rating_store import load_inputs
from arena.tournaments.running.prepare import PreparedTournament
from arena.tournaments.running.rounds import Rounds


def newcomers_of(entrants: Sequence[str], records: Sequence[MatchRecord]) -> tuple[str, ...]:
    """The entrants with no stored match in a tournament that has some (none when it has
    none: a first run is not a placement)."""
    if not records:
        return ()
    seen = {seat.participant for record in records for seat in record.players}
    return tuple(name for name in entrants if name not in seen)


def placing(plans: Sequence[MatchPlan], newcomers: Sequence[str]) -> list[MatchPlan]:
    """The plans in which a new entrant plays a rated seat (the only ones a placement
    plays)."""
    wanted = set(newcomers)
    return [p for p in plans if any(s.main and s.participant in wanted for s in p.seats)]


class AdaptiveRounds(Rounds):
    """Picks the pending matches round by round with adaptive pairing (module docstring)."""

    def __init__(
        self,
        plans: Sequence[MatchPlan],
        pending: Sequence[MatchPlan],
        store: Store,
        tournament: str,
        *,
        width: int,
        seed: int,
        confidence: float,
        settle_top: int | None,
        newcomers: Sequence[str] = (),
    ) -> None:
        super().__init__(pending, width, newcomers)
        self._plans = {p.key: p for p in pending}
        settings = AdaptiveSettings(
            confidence=confidence, settle_top=settle_top, seed=seed, focus=tuple(newcomers)
        )
        # over every plan, so the stored ones are known by key (an eval map someone played is
        # worth joining) whichever run stored them; only `pending` may be picked
        self._policy = AdaptivePairing(candidates_of(plans), settings)
        self._closed = frozenset(p.key for p in plans if p.key not in self._plans)
        self._kept, self._tournament = KeptMatches(store), tournament

    def _records(self) -> list[MatchRecord]:
        """Every stored match of the tournament (only those stored since the last round are
        read: `KeptMatches`)."""
        return list(load_inputs(self._kept, [self._tournament], self._kept.records).records)

    async def next_round(self, width: int | None = None) -> list[MatchPlan]:
        """The next round's matches (at most ``width``, default the run's), best first
        (empty: every candidate is stored or tried)."""
        records = await asyncio.to_thread(self._records)
        wanted = self._width if width is None else min(width, self._width)
        keys = await asyncio.to_thread(
            self._policy.next, records, wanted, (), self._closed | self._tried
        )
        self._tried.update(keys)
        return [self._plans[k] for k in keys]


async def adaptive_rounds(
    tournament: PreparedTournament, pending: Sequence[MatchPlan], store: Store, *, width: int
) -> AdaptiveRounds | None:
    """The run's rounds when the tournament pairs adaptively (None: it plays its round robin
    in balanced order); a placement when entrants without a stored match join a tournament
    that has some."""
    config = tournament.config
    if config.pairing != "adaptive":
        return None
    name = config.name
    records = await asyncio.to_thread(lambda: load_inputs(store, [name]).records)
    newcomers = newcomers_of(tournament.entrants, records)
    return AdaptiveRounds(
        tournament.plans,
        placing(pending, newcomers) if newcomers else pending,
        store,
        name,
        width=width,
        seed=config.seed,
        confidence=config.confidence,
        settle_top=config.settle_top,
        newcomers=newcomers,
    )
