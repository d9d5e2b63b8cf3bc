"""What one seat of a match saw (its information set, XGL.md section 4), from the stored
transcript: which events reached it, and whether hidden text leaked into what it saw."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.events import Event

MIN_LEAK_CHARS = 8  # shorter hidden values match by chance (a word, a space)
_OWN_EVENTS = ("elicit_request", "elicit_response", "reveal", "reward", "failed_ensure", "forfeit")
_PUBLIC_EVENTS = ("round_started", "round_finished")


def seen_by(event: Event, seat: str) -> bool:
    """Whether `seat` received `event` (its requests, reveals, own moves and rewards, and the
    round boundaries); assigns, other seats' events and judge stats are hidden from it."""
    if event.type in _PUBLIC_EVENTS:
        return True
    return event.type in _OWN_EVENTS and event.player == seat


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
