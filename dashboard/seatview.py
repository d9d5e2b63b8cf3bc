"""What one seat of a match saw (its information set, XGL.md section 4), from the stored
transcript: the events that reached it and its rewards exactly as the runtime gave them
(`Reward.seat_view`, written by `arena.runtime.feedback`), so the replay "as a seat" shows
that seat's information set and nothing else; plus a check that no hidden text leaked into
what it saw."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from arena.events import Event, Reward, SeatRewardTerm
from arena.runtime.feedback import FEEDBACK_RESOLUTION_BITS
from arena.transcript import render_event

MIN_LEAK_CHARS = 8  # shorter hidden values match by chance (a word, a space)
_OWN_EVENTS = ("elicit_request", "elicit_response", "reveal", "reward", "failed_ensure", "forfeit")
_PUBLIC_EVENTS = ("round_started", "round_finished")
_DECIMALS = len(f"{FEEDBACK_RESOLUTION_BITS:f}".rstrip("0").split(".")[1])


def seen_by(event: Event, seat: str) -> bool:
    """Whether `seat` received `event` (its requests, reveals, own moves and rewards, and the
    round boundaries); assigns, other seats' events and judge stats are hidden from it."""
    if event.type in _PUBLIC_EVENTS:
        return True
    return event.type in _OWN_EVENTS and event.player == seat


def signed_sources(terms: Sequence[Any]) -> str:
    """`xed(s|t) - 2*xed(t|s)`: sources with their coefficients (as the runtime writes them)."""
    text = ""
    for term in terms:
        factor = f"{abs(term.coefficient)}*" if abs(term.coefficient) != 1 else ""
        sign = "-" if term.coefficient < 0 else "+"
        text += (f"{'-' if sign == '-' else ''}{factor}{term.source}" if not text
                 else f" {sign} {factor}{term.source}")
    return text


def referee_terms(event: Reward) -> list[SeatRewardTerm]:
    """Every term of the reward in full (the referee's view)."""
    return [SeatRewardTerm(source=t.source, coefficient=t.coefficient, tokens=t.tokens,
                           bits=t.bits, total=t.total) for t in event.terms]


def received_terms(event: Reward) -> list[SeatRewardTerm]:
    """The reward's terms as its seat received them. A transcript stored before the runtime
    recorded seat views gives only the total, rounded as hidden totals are: which terms the
    seat could read per token is not known from it, so none is shown."""
    if event.seat_view is not None:
        return list(event.seat_view)
    return [SeatRewardTerm(source=signed_sources(event.terms), coefficient=1, tokens=[],
                           bits=[], total=round(event.total, _DECIMALS), hidden=True)]


def received_total(event: Reward) -> float:
    """The reward as its seat knows it (exact unless part of it scored hidden text)."""
    return float(sum(t.total for t in received_terms(event)))


def seat_events(events: Sequence[Event], seat: str) -> list[Event]:
    """The events `seat` received, in order."""
    return [e for e in events if seen_by(e, seat)]


def known_scores(events: Sequence[Event], seat: str) -> pd.DataFrame:
    """The seat's own score per round as it knows it (round, seat, score): the sum of its
    rewards as received; None for a round it forfeited."""
    rows = []
    for e in events:
        if e.type != "round_finished" or seat not in e.scores:
            continue
        rewards = [received_total(r) for r in events
                   if r.type == "reward" and r.round == e.round and r.player == seat]
        score = None if e.scores[seat] is None else float(sum(rewards))
        rows.append({"round": e.round, "seat": seat, "score": score})
    return pd.DataFrame(rows, columns=["round", "seat", "score"])


def _terms_text(terms: Sequence[SeatRewardTerm]) -> str:
    hidden = " (over text it never saw: total only)"
    return "; ".join(f"{t.source} = {t.total:+.3f}{hidden if t.hidden else ''}" for t in terms)


def render_for(event: Event, seat: str) -> str:
    """One line for an event `seat` received, as it received it (rewards as given, a round's
    end with its own score only)."""
    where = f"[round {event.round}, line {event.line}]"
    if event.type == "reward":
        terms = received_terms(event)
        return (f"{where} {seat} rewarded {sum(t.total for t in terms):+.3f} bits: "
                f"{_terms_text(terms)}")
    if event.type == "round_finished":
        return f"[round {event.round}] round finished"
    return render_event(event)


def as_received(event: Event, seat: str) -> dict[str, Any]:
    """The event's fields as `seat` received them (for the step-by-step view)."""
    if event.type == "reward":
        terms = received_terms(event)
        return {"round": event.round, "line": event.line, "player": event.player,
                "type": "reward", "total": sum(t.total for t in terms),
                "terms": [t.model_dump() for t in terms]}
    if event.type == "round_finished":
        return {"round": event.round, "line": event.line, "type": "round_finished"}
    return event.model_dump()


def seen_texts(events: Sequence[Event], seat: str) -> list[tuple[int, str, str]]:
    """(round, where, text) of every text `seat` was shown: its registers and reveals."""
    out: list[tuple[int, str, str]] = []
    for e in events:
        if e.player != seat:
            continue
        if e.type == "elicit_request":
            out += [(e.round, f"register {k}", v) for k, v in e.registers.items()]
        elif e.type == "reveal":
            out += [(e.round, f"reveal {k}", v) for k, v in e.values.items()]
    return out


@dataclass(frozen=True)
class Leak:
    """Text of a register `seat` was never shown, found inside something it was shown."""

    round: int
    register: str
    where: str
    text: str


def hidden_values(events: Sequence[Event], seat: str) -> dict[tuple[int, str], str]:
    """(round, register) -> value of every assigned or played register whose name `seat`
    never saw in that round (in its requests' registers or as its own move)."""
    shown: set[tuple[int, str]] = set()
    for e in events:
        if e.player == seat and e.type == "elicit_request":
            shown |= {(e.round, k) for k in e.registers} | {(e.round, k) for k in e.targets}
    hidden: dict[tuple[int, str], str] = {}
    for e in events:
        if e.type == "assign":
            items = [(k, v) for k, v in e.values.items() if isinstance(v, str)]
        elif e.type == "elicit_response" and e.player != seat:
            items = list(e.values.items())
        else:
            continue
        for k, v in items:
            if (e.round, k) not in shown:
                hidden[(e.round, k)] = v
    return hidden


def leaks(events: Sequence[Event], seat: str) -> list[Leak]:
    """Hidden register texts (at least MIN_LEAK_CHARS long) that appear verbatim in what
    `seat` saw in the same round. A reveal of a hidden register is by design, not a leak,
    so revealed texts are compared only with registers other than the revealed one."""
    found: list[Leak] = []
    texts = seen_texts(events, seat)
    for (rnd, register), value in hidden_values(events, seat).items():
        needle = value.strip()
        if len(needle) < MIN_LEAK_CHARS:
            continue
        for where_round, where, text in texts:
            if where_round == rnd and needle in text and not where.endswith(f" {register}"):
                found.append(Leak(rnd, register, where, needle))
    revealed = {(e.round, v) for e in events if e.type == "reveal" and e.player == seat
                for v in e.values.values()}
    return [leak for leak in found if (leak.round, leak.text) not in revealed]
