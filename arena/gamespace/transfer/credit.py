"""Credit assignment for fine-tuning: the reward each elicit of one role earned in a round.

The paper's F learns "on rewards associated with the choices of M at every elicit call"
(§4.3.2). A round's events say which rewards the role received and when; this module turns
them into one number per answered elicit, in the order the role answered them:

- ``credit="elicit"`` (default): an elicit earns the rewards the role receives after it and
  before its own next elicit (what that choice was rewarded for, the immediate reward).
- ``credit="togo"``: an elicit earns every reward the role receives after it in the round
  (REINFORCE's reward-to-go; it also credits later consequences of the choice).

Rewards the role receives before its first elicit depend on no choice and are left out.
An answer that made an `ensure` fail is marked `failed`: it earned no reward of its own, and
the fine-tuner gives it a penalty (a forfeit for too many failures follows such answers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from arena import events as ev

Credit = Literal["elicit", "togo"]
CREDITS: tuple[str, ...] = ("elicit", "togo")


@dataclass
class ElicitCredit:
    """One answered elicit of the role: the reward credited to it and whether it failed."""

    line: int
    reward: float = 0.0
    failed: bool = False


def elicit_credits(
    events: Sequence[ev.Event], role: str, credit: Credit = "elicit"
) -> list[ElicitCredit]:
    """One `ElicitCredit` per `elicit_response` of `role` in `events`, in order.

    Events of several rounds may be passed: credit never crosses a round boundary."""
    credits: list[ElicitCredit] = []
    open_from = 0  # first elicit of the current round still collecting rewards
    for event in events:
        if isinstance(event, ev.RoundStarted):
            open_from = len(credits)
        if event.player != role:
            continue
        if isinstance(event, ev.ElicitResponse):
            credits.append(ElicitCredit(event.line))
            if credit == "elicit":
                open_from = len(credits) - 1
        elif isinstance(event, ev.Reward) and len(credits) > open_from:
            for item in credits[open_from:]:
                item.reward += event.total
        elif isinstance(event, ev.FailedEnsure) and len(credits) > open_from:
            credits[-1].failed = True
    return credits
