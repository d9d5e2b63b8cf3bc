"""Typed runtime events. Every step of a match is one event; a match's events are its full
transcript (stored, replayed on the dashboard, passed to plugins' `on_event` hook).

Events are pydantic models discriminated by `type`, so they round-trip through JSON.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    round: int = Field(description="1-based round number (0 for match-level events)")
    line: int = Field(description="1-based program line (0 when not tied to a line)")
    player: str | None = Field(default=None, description="the player concerned, if any")


class RoundStarted(_Event):
    type: Literal["round_started"] = "round_started"


class ElicitRequest(_Event):
    type: Literal["elicit_request"] = "elicit_request"
    registers: dict[str, str] = Field(description="exactly the register values the player sees")
    targets: list[str] = Field(description="registers the player must fill")
    max_len: int
    attempt: int = 1


class ElicitResponse(_Event):
    type: Literal["elicit_response"] = "elicit_response"
    values: dict[str, str] = Field(description="register -> move as stored (after cutting)")
    cut: bool = Field(description="whether any move was cut to max_len tokens")
    cut_registers: list[str] = Field(default_factory=list)
    usage: dict[str, float] | None = Field(
        default=None, description="tokens, cost and calls the player spent on this move"
    )


class Assign(_Event):
    type: Literal["assign"] = "assign"
    values: dict[str, str | list[str]]


class Reveal(_Event):
    type: Literal["reveal"] = "reveal"
    values: dict[str, str] = Field(description="label (source text) -> revealed string")


class RewardTerm(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str = Field(description="the term's source text, e.g. 'xed(s|t)'")
    kind: Literal["xent", "xed", "nex", "dex"]
    coefficient: int = Field(description="sign and integer multiplier applied to the term")
    target: str
    context: str
    tokens: list[str]
    bits: list[float] = Field(description="per-token value of the term (before coefficient)")
    total: float = Field(description="coefficient * sum(bits)")


class SeatRewardTerm(BaseModel):
    """One term of a reward as the rewarded seat received it (`arena.runtime.feedback`):
    per-token values only over text it saw, the terms over hidden text as one rounded total
    with no tokens (`hidden`). Stored so a replay "as the seat" shows exactly this."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str
    coefficient: int
    tokens: list[str]
    bits: list[float]
    total: float
    hidden: bool = False


class Reward(_Event):
    type: Literal["reward"] = "reward"
    total: float = Field(description="bits received by `player`")
    terms: list[RewardTerm]
    mirrored: bool = Field(default=False, description="zero-sum mirror of the partner's reward")
    seat_view: list[SeatRewardTerm] | None = Field(
        default=None,
        description="the terms as `player` received them (None: stored before seat views)",
    )


class FailedEnsure(_Event):
    type: Literal["failed_ensure"] = "failed_ensure"
    condition: str
    failures: int = Field(description="failures of this player so far this round")
    budget: int


class Forfeit(_Event):
    type: Literal["forfeit"] = "forfeit"
    reason: str


class NoResult(_Event):
    """The match ends with no result (XGL.md section 9): an ensure line failed more often
    than its dialect allows, or a player could not be asked (`NoResultError`). No round
    finishes after it; the match is stored as having no result."""

    type: Literal["no_result"] = "no_result"
    reason: str


class RuntimeErrorEvent(_Event):
    type: Literal["runtime_error"] = "runtime_error"
    message: str


class RoundFinished(_Event):
    type: Literal["round_finished"] = "round_finished"
    scores: dict[str, float | None] = Field(description="role -> round score (None: forfeit)")
    forfeited_by: str | None = None


class JudgeStats(_Event):
    type: Literal["judge_stats"] = "judge_stats"
    stats: dict[str, float]


Event = Annotated[
    RoundStarted
    | ElicitRequest
    | ElicitResponse
    | Assign
    | Reveal
    | Reward
    | FailedEnsure
    | Forfeit
    | NoResult
    | RuntimeErrorEvent
    | RoundFinished
    | JudgeStats,
    Field(discriminator="type"),
]

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
EVENT_TYPES: tuple[str, ...] = (
    "round_started",
    "elicit_request",
    "elicit_response",
    "assign",
    "reveal",
    "reward",
    "failed_ensure",
    "forfeit",
    "no_result",
    "runtime_error",
    "round_finished",
    "judge_stats",
)


def event_from_json(data: str | bytes) -> Event:
    """Parse one event from its JSON form (the inverse of `event.model_dump_json()`)."""
    return EVENT_ADAPTER.validate_json(data)
