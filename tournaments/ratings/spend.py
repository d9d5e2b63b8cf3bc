"""What players spent, and what a ranking cost (issue 33 item 4).

A move's spend is the usage its player reported (`ElicitResponse.usage`: tokens, dollars
from litellm's cost map, model calls; nothing for a player that reports none) and the
seconds the player took on it (measured by the runtime, kept out of the events so that
transcripts stay reproducible). Each stored seat carries its totals; a participant's cost
is the sum over its rated seats of the board's matches, and the cost *per settled rank*
divides the board's whole spend by the participants whose rank is settled (one rank left
at the board's confidence, not provisional: `rank_settled`): what each rank a person can act
on has cost.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.events import ElicitResponse, Event
from arena.tournaments.ratings.leaderboard import LeaderboardRow, rank_settled


@dataclass(frozen=True)
class Spend:
    """What players reported spending: tokens, dollars, model calls."""

    prompt_tokens: float = 0.0
    completion_tokens: float = 0.0
    cost_usd: float = 0.0
    calls: float = 0.0

    @property
    def tokens(self) -> float:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Spend) -> Spend:
        return Spend(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cost_usd + other.cost_usd,
            self.calls + other.calls,
        )

    @classmethod
    def of_usage(cls, usage: Mapping[str, float] | None) -> Spend:
        """A move's `ElicitResponse.usage` (None: the player reports nothing)."""
        if not usage:
            return cls()
        return cls(
            float(usage.get("prompt_tokens", 0.0)),
            float(usage.get("completion_tokens", 0.0)),
            float(usage.get("cost_usd", 0.0)),
            float(usage.get("calls", 0.0)),
        )


NOTHING_SPENT = Spend()


def spend_by_role(events: Iterable[Event]) -> dict[str, Spend]:
    """Each role's reported spend over a match's moves (the events name the role)."""
    spent: dict[str, Spend] = {}
    for event in events:
        if isinstance(event, ElicitResponse) and event.player is not None:
            spent[event.player] = spent.get(event.player, Spend()) + Spend.of_usage(event.usage)
    return spent


@dataclass(frozen=True)
class ParticipantCost:
    """A participant's spend over its rated seats: ``matches`` seats, ``measured`` of them
    with a spend on record (an imported result has none)."""

    participant: str
    matches: int
    measured: int
    spend: Spend = Spend()
    move_s: float = 0.0

    def __add__(self, other: ParticipantCost) -> ParticipantCost:
        return ParticipantCost(
            self.participant, self.matches + other.matches, self.measured + other.measured,
            self.spend + other.spend, self.move_s + other.move_s,
        )

    def as_dict(self) -> dict[str, float | int | None]:
        """Totals and per-match means; None where nothing was measured."""
        n = self.measured
        if not n:
            return {"matches": self.matches, "measured": 0, "tokens": None, "usd": None,
                    "move_s": None, "calls": None, "tokens_per_match": None,
                    "usd_per_match": None, "move_s_per_match": None}
        return {
            "matches": self.matches, "measured": n, "tokens": self.spend.tokens,
            "usd": self.spend.cost_usd, "move_s": self.move_s, "calls": self.spend.calls,
            "tokens_per_match": self.spend.tokens / n, "usd_per_match": self.spend.cost_usd / n,
            "move_s_per_match": self.move_s / n,
        }


def participant_costs(
    rows: Iterable[tuple[str, int, int, float, float, float, float, float]],
) -> dict[str, ParticipantCost]:
    """Costs from storage's per-participant sums (`arena.storage.queries.seat_spend`: name,
    seats, measured seats, prompt and completion tokens, dollars, calls, seconds), summed
    over the rows of several tournaments."""
    costs: dict[str, ParticipantCost] = {}
    for who, n, measured, prompt, completion, usd, calls, seconds in rows:
        cost = ParticipantCost(who, n, measured, Spend(prompt, completion, usd, calls), seconds)
        costs[who] = costs[who] + cost if who in costs else cost
    return costs


@dataclass(frozen=True)
class SettledCost:
    """The board's whole spend per settled rank (None when no rank is settled, or nothing
    was measured)."""

    settled: int
    tokens: float | None
    usd: float | None
    move_s: float | None

    def sentence(self) -> str:
        """The figures in words, for the Leaderboard's caption."""
        if self.settled == 0 or self.move_s is None:
            return ("Cost per settled rank: no rank is settled yet." if self.settled == 0 else
                    "Cost per settled rank: no spend is on record (imported results).")
        paid = (f"{self.tokens or 0:,.0f} tokens, ${self.usd or 0:.4f} and "
                if self.tokens or self.usd else "")  # programs report no tokens
        ranks = f"{self.settled} rank{'s' if self.settled != 1 else ''} settled"
        return (
            f"Cost per settled rank ({ranks}): {paid}{self.move_s:.1f} s of the players' "
            "time on moves: the whole board's spend divided by its settled ranks."
        )

    def as_dict(self) -> dict[str, float | int | None]:
        return {"settled_ranks": self.settled, "tokens_per_settled_rank": self.tokens,
                "usd_per_settled_rank": self.usd, "move_s_per_settled_rank": self.move_s}


def settled_cost(
    rows: Sequence[LeaderboardRow], costs: Mapping[str, ParticipantCost]
) -> SettledCost:
    """What the board's settled ranks cost each (module docstring)."""
    settled = sum(rank_settled(r) for r in rows)
    on_board = [costs[r.participant] for r in rows if r.participant in costs]
    if not settled or not any(c.measured for c in on_board):
        return SettledCost(settled, None, None, None)
    tokens = sum(c.spend.tokens for c in on_board)
    usd = sum(c.spend.cost_usd for c in on_board)
    seconds = sum(c.move_s for c in on_board)
    return SettledCost(settled, tokens / settled, usd / settled, seconds / settled)
