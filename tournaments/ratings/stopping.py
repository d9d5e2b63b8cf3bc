"""Stopping rules: when a run has done enough, and why (a sentence stored with the run).

Pure functions of what a run knows after each stored match: the number of matches, what the
players spent (the ``usage`` their moves reported: tokens, and dollars from litellm's cost
map, `arena.players.llm.player`) and the board (leaderboard rows at the rules'
``confidence``). The first rule met stops the run; they are checked in a fixed order, the
hard limits first: ``budget_usd``, ``budget_tokens``, ``max_matches``, then ``placed``
and ``settled``.

- ``settled``: the best ``settle_top`` participants (default all) each have one rank left:
  their rank ranges (`arena.tournaments.ratings.bootstrap.rank_ranges`, from intervals at
  ``confidence``) are single ranks, so no interval among them overlaps another. An entrant
  with no rated match yet keeps every run unsettled, and so does a provisional row among
  them and the one below them (fewer comparisons than the board's ``min_comparisons``, 30 by
  default): the bootstrap of a dozen comparisons all won gives the same narrow interval in
  every resample, and a real eval run of 4 players "settled" after 4 maps that way. (The
  board also lets a provisional row rank anywhere, so one further down keeps the top's
  rank ranges open too.)
- ``placed`` (a run placing new entrants, `place`; adaptive pairing adds it when entrants
  without a match join a tournament that has run): every new entrant's rank range is no
  wider than the median of the others' (its rank is known as well as theirs; with settled
  incumbents, a single rank, which a newcomer tied with one of them may never get: its
  matches run out first).
- ``max_matches``, ``budget_tokens``, ``budget_usd``: reached when the stored matches, the
  tokens or the dollars are at least the limit. A match in flight finishes, so the final
  spend may pass a budget by what the matches in flight spend.
"""

from __future__ import annotations

import statistics
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from arena.tournaments.ratings.errors import RatingInputError
from arena.tournaments.ratings.leaderboard import LeaderboardRow, rank_settled
from arena.tournaments.ratings.spend import NOTHING_SPENT, Spend

if TYPE_CHECKING:
    from arena.tournaments.planning.config import TournamentConfig

StopRule = Literal["budget_usd", "budget_tokens", "max_matches", "placed", "settled"]


@dataclass(frozen=True)
class StopRules:
    """The tournament's stopping rules (its keys of the same names); all None: play every
    planned match."""

    stop_when: Literal["settled"] | None = None
    settle_top: int | None = None
    confidence: float = 0.95
    max_matches: int | None = None
    budget_tokens: int | None = None
    budget_usd: float | None = None
    place: tuple[str, ...] = ()  # new entrants to place (a placement run stops once placed)

    def __post_init__(self) -> None:
        if not 0.0 < self.confidence < 1.0:
            raise RatingInputError(
                f"confidence={self.confidence}; it must lie strictly between 0 and 1 "
                "(e.g. 0.95)."
            )

    @classmethod
    def of(cls, config: TournamentConfig, place: Sequence[str] = ()) -> StopRules:
        return cls(
            stop_when=config.stop_when,
            settle_top=config.settle_top,
            confidence=config.confidence,
            max_matches=config.max_matches,
            budget_tokens=config.budget_tokens,
            budget_usd=config.budget_usd,
            place=tuple(place),
        )

    @property
    def any(self) -> bool:
        return any(
            v is not None
            for v in (self.stop_when, self.max_matches, self.budget_tokens, self.budget_usd)
        ) or bool(self.place)

    @property
    def rates(self) -> bool:
        """Whether a rule needs the board (rated now and then during the run)."""
        return self.stop_when == "settled" or bool(self.place)


@dataclass(frozen=True)
class StopDecision:
    """Which rule stopped the run and why, in one sentence (stored with the run)."""

    rule: StopRule
    reason: str


def _ranked(rows: Sequence[LeaderboardRow]) -> list[LeaderboardRow]:
    return sorted(rows, key=lambda r: (-r.rating, r.participant))


def settled(
    rows: Sequence[LeaderboardRow],
    settle_top: int | None = None,
    entrants: Collection[str] = (),
) -> str | None:
    """Why the ranking is not settled yet (None: it is), for the best ``settle_top`` of
    ``rows`` (all when None); every one of ``entrants`` must be on the board."""
    missing = sorted(set(entrants) - {r.participant for r in rows})
    if missing:
        return f"{', '.join(missing)} ha{'s' if len(missing) == 1 else 've'} no rated match yet"
    ranked = _ranked(rows)
    top = ranked if settle_top is None else ranked[:settle_top]
    # a row still provisional may have an interval that says nothing yet (`rank_settled`);
    # the row below the top is vouched for too: the top's last rank is settled against it
    vouched = ranked if settle_top is None else ranked[: settle_top + 1]
    early = [r.participant for r in vouched if r.provisional]
    if early:
        return (
            f"{', '.join(early)} ha{'s' if len(early) == 1 else 've'} too few comparisons "
            "yet to be ranked (provisional)"
        )
    open_ = [r for r in top if not rank_settled(r)]
    if not open_:
        return None
    first = open_[0]
    return (
        f"{len(open_)} of the top {len(top)} still share ranks "
        f"(e.g. {first.participant}: ranks {first.rank_low}-{first.rank_high})"
    )


def placed(rows: Sequence[LeaderboardRow], newcomers: Collection[str]) -> str | None:
    """Why the new entrants are not placed yet (None: they are; module docstring)."""
    on_board = {r.participant: r for r in rows}
    missing = sorted(set(newcomers) - on_board.keys())
    if missing:
        return f"{', '.join(missing)} ha{'s' if len(missing) == 1 else 've'} no rated match yet"
    others = [r.rank_high - r.rank_low for r in rows if r.participant not in newcomers]
    typical = statistics.median(others) if others else 0
    for name in sorted(newcomers):
        row = on_board[name]
        if row.rank_high - row.rank_low > typical:
            return (
                f"{name} may still rank {row.rank_low}-{row.rank_high}, a wider range than "
                f"the others' median ({typical:g} rank(s) either way)"
            )
    return None


def check_stop(
    rules: StopRules,
    *,
    matches: int,
    spend: Spend = NOTHING_SPENT,
    board: Sequence[LeaderboardRow] | None = None,
    entrants: Collection[str] = (),
    rated: int | None = None,
) -> StopDecision | None:
    """The first rule met (module docstring), or None to go on. ``matches``: the
    tournament's stored matches; ``board``: its leaderboard at ``rules.confidence`` (None:
    not rated yet), rated from the first ``rated`` of them (default ``matches``: the
    count a settled or placed verdict names, so the verdict can be checked on exactly those
    matches); ``entrants``: who must be on the board before it can be settled."""
    if rules.budget_usd is not None and spend.cost_usd >= rules.budget_usd:
        return StopDecision(
            "budget_usd",
            f"budget_usd: players spent ${spend.cost_usd:.4f}, the budget is "
            f"${rules.budget_usd:.4f} (after {matches} matches)",
        )
    if rules.budget_tokens is not None and spend.tokens >= rules.budget_tokens:
        return StopDecision(
            "budget_tokens",
            f"budget_tokens: players used {spend.tokens:,.0f} tokens, the budget is "
            f"{rules.budget_tokens:,} (after {matches} matches)",
        )
    if rules.max_matches is not None and matches >= rules.max_matches:
        return StopDecision(
            "max_matches",
            f"max_matches: {matches} matches stored, the limit is {rules.max_matches}",
        )
    if board is None or not board:
        return None
    level = f"{rules.confidence:.0%}"
    matches = matches if rated is None else rated
    if rules.place and placed(board, rules.place) is None:
        where = {r.participant: r for r in board}
        shown = ", ".join(
            f"{n} at rank {where[n].rank_low}"
            + ("" if where[n].rank_low == where[n].rank_high else f"-{where[n].rank_high}")
            for n in rules.place
        )
        return StopDecision(
            "placed", f"placed: {shown} at {level} after {matches} matches"
        )
    if rules.stop_when != "settled":
        return None
    if settled(board, rules.settle_top, entrants) is not None:
        return None
    ranked = _ranked(board)
    top = len(ranked) if rules.settle_top is None else min(rules.settle_top, len(ranked))
    names = ", ".join(r.participant for r in ranked[:top])
    return StopDecision(
        "settled",
        f"settled: the {level} intervals of the top {top} no longer overlap after "
        f"{matches} matches ({names})",
    )
