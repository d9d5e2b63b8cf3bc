"""What a seat may learn from its own reward (XGL.md section 4).

A reward's per-token values are as good as the text they score: the judge is public, so
at each position the one vocabulary token whose value matches the reported bits is the
token. A seat therefore gets the per-token breakdown of a term only when it knows every
value the term's target and context were computed from (`arena.lang.flow`): the values'
sources decide, never their text. Its own moves, the public registers, a bare register or
`story()` revealed to it, and values computed only from those are known; a story it never
saw stays hidden even once its own moves cover the story's alphabet and could spell it.
The other terms of that reward reach it as one combined total, rounded to
`FEEDBACK_RESOLUTION_BITS`:

- one total instead of one per term: several terms over the same hidden text (censored
  message scores its story six times in one reward) would each be a separate measurement
  of that text; the seat needs its reward, not a decomposition of the hidden part;
- rounded: an exact float total of a short hidden text can be decoded by enumerating the
  judge's vocabulary (two tokens of a 5k vocabulary are 25M sums, each distinct at float
  precision, while thousands share every 0.01-bit bin). One hidden token is still exposed
  by its total at any useful resolution, as it would be by the score itself: game authors
  should not reward a seat on a hidden one-token text unless that is the game.

Omniscient seats see everything anyway and get every term in full. Rewards are separate
events of the game (a guessing loop rewards every guess), so they are never merged.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from arena.lang.flow import Flow
from arena.lang.values import XentSum, XentTerm
from arena.protocols.player import RewardTermView

FEEDBACK_RESOLUTION_BITS = 0.01
_DECIMALS = 2  # log10(1 / FEEDBACK_RESOLUTION_BITS)


def term_is_seen(term: XentTerm, flow: Flow, seat: str, given: Collection[str]) -> bool:
    """Does `seat`, given the labels `given`, know every value `term` scores (target) or
    conditions on (context)? A term of unknown origin is never seen."""
    return term.sources is not None and flow.knows(seat, given, term.sources)


def full_view(term: XentTerm) -> RewardTermView:
    return RewardTermView(
        source=term.source,
        coefficient=term.coefficient,
        bits=term.bits,
        tokens=term.tokens,
        total=term.total,
        shown=term.shown,
    )


def hidden_view(terms: Sequence[XentTerm]) -> RewardTermView:
    """Terms touching hidden text, as one rounded total without any per-token value."""
    return RewardTermView(
        source=signed_sources(terms),
        coefficient=1,
        bits=(),
        tokens=(),
        total=round(sum(t.total for t in terms), _DECIMALS),
        hidden=True,
    )


def signed_sources(terms: Sequence[XentTerm]) -> str:
    """`xed(s | t) - 2*xed(t | s)`: the terms' sources with their coefficients."""
    text = ""
    for term in terms:
        magnitude = abs(term.coefficient)
        factor = f"{magnitude}*" if magnitude != 1 else ""
        sign = "-" if term.coefficient < 0 else "+"
        if not text:
            text = f"{'-' if sign == '-' else ''}{factor}{term.source}"
        else:
            text += f" {sign} {factor}{term.source}"
    return text


def reward_feedback(
    amount: XentSum, flow: Flow, seat: str, given: Collection[str] | None
) -> tuple[float, tuple[RewardTermView, ...]]:
    """The reward total and term views `seat` receives; `given=None` for omniscient seats."""
    if given is None:
        return amount.total, tuple(full_view(t) for t in amount.terms)
    shown = {id(t): term_is_seen(t, flow, seat, given) for t in amount.terms}
    seen = [t for t in amount.terms if shown[id(t)]]
    hidden = [t for t in amount.terms if not shown[id(t)]]
    views = [full_view(t) for t in seen]
    if hidden:
        views.append(hidden_view(hidden))
    return float(sum(v.total for v in views)), tuple(views)
