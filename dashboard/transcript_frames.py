"""A stored transcript as tables for the replay page: events, moves, round scores, reward
terms, and the game code with the current line marked. Pure functions of events."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from arena.dashboard.seatview import received_terms, referee_terms, render_for, seen_by
from arena.events import Event, SeatRewardTerm
from arena.transcript import render_event

MARK = "▶"


def event_table(events: Sequence[Event], seat: str | None = None) -> pd.DataFrame:
    """One row per event: step, round, line, type, player, what happened. With `seat`, only
    the events that seat received, as it received them (`arena.dashboard.seatview`)."""
    if seat is not None:
        events = [e for e in events if seen_by(e, seat)]
    return pd.DataFrame({
        "step": range(len(events)),
        "round": [e.round for e in events],
        "line": [e.line for e in events],
        "type": [e.type for e in events],
        "player": [e.player or "" for e in events],
        "what": [render_event(e) if seat is None else render_for(e, seat) for e in events],
    })


def moves(events: Sequence[Event], seat: str | None = None) -> pd.DataFrame:
    """Every move (with `seat`: that seat's own moves): round, seat, register, move, cut."""
    rows = [
        {"round": e.round, "seat": e.player or "", "register": register, "move": value,
         "cut": register in e.cut_registers}
        for e in events if e.type == "elicit_response" and seat in (None, e.player)
        for register, value in e.values.items()
    ]
    return pd.DataFrame(rows, columns=["round", "seat", "register", "move", "cut"])


def round_scores(events: Sequence[Event]) -> pd.DataFrame:
    """Score per round and seat (None for a forfeited round)."""
    rows = [{"round": e.round, "seat": role, "score": score}
            for e in events if e.type == "round_finished" for role, score in e.scores.items()]
    return pd.DataFrame(rows, columns=["round", "seat", "score"])


def rewards(events: Sequence[Event], round_number: int, seat: str | None = None
            ) -> list[tuple[str, float, bool, list[SeatRewardTerm]]]:
    """(player, total, mirrored, terms) of every reward in the round: in full for the
    referee; with `seat`, only that seat's rewards, exactly as it received them."""
    out = []
    for e in events:
        if e.type != "reward" or e.round != round_number or seat not in (None, e.player):
            continue
        terms = referee_terms(e) if seat is None else received_terms(e)
        out.append((e.player or "", float(sum(t.total for t in terms)), e.mirrored, terms))
    return out


def marked_code(code: str, line: int) -> str:
    """The game code with line numbers and `MARK` on `line` (0: no line marked)."""
    lines = code.splitlines() or [""]
    width = len(str(len(lines)))
    return "\n".join(
        f"{MARK if i == line else ' '} {i:>{width}}  {text}" for i, text in enumerate(lines, 1)
    )


def aligned_moves(ours: Sequence[Event], theirs: Sequence[Event], seat: str, other_seat: str,
                  names: tuple[str, str]) -> pd.DataFrame:
    """Two matches' moves side by side by round and register (the diff view)."""
    a = moves(ours)
    b = moves(theirs)
    a = a[a["seat"] == seat][["round", "register", "move"]].rename(columns={"move": names[0]})
    b = b[b["seat"] == other_seat][["round", "register", "move"]].rename(
        columns={"move": names[1]})
    return a.merge(b, on=["round", "register"], how="outer").sort_values(["round", "register"])
