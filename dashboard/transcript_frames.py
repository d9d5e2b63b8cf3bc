"""A stored transcript as tables for the replay page: events, moves, round scores, reward
terms, and the game code with the current line marked. Pure functions of events."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from arena.events import Event, RewardTerm
from arena.transcript import render_event
from dashboard.seatview import seen_by

MARK = "▶"


def event_table(events: Sequence[Event], seat: str | None = None) -> pd.DataFrame:
    """One row per event: step, round, line, type, player, what happened; with `seat`, a
    ``seen`` column saying whether that seat received it."""
    frame = pd.DataFrame({
        "step": range(len(events)),
        "round": [e.round for e in events],
        "line": [e.line for e in events],
        "type": [e.type for e in events],
        "player": [e.player or "" for e in events],
        "what": [render_event(e) for e in events],
    })
    if seat is not None:
        frame["seen"] = [seen_by(e, seat) for e in events]
    return frame


def moves(events: Sequence[Event]) -> pd.DataFrame:
    """Every move: round, seat, register, move, cut."""
    rows = [
        {"round": e.round, "seat": e.player or "", "register": register, "move": value,
         "cut": register in e.cut_registers}
        for e in events if e.type == "elicit_response"
        for register, value in e.values.items()
    ]
    return pd.DataFrame(rows, columns=["round", "seat", "register", "move", "cut"])


def round_scores(events: Sequence[Event]) -> pd.DataFrame:
    """Score per round and seat (None for a forfeited round)."""
    rows = [{"round": e.round, "seat": role, "score": score}
            for e in events if e.type == "round_finished" for role, score in e.scores.items()]
    return pd.DataFrame(rows, columns=["round", "seat", "score"])


def rewards(events: Sequence[Event], round_number: int) -> list[tuple[str, float, bool,
                                                                      list[RewardTerm]]]:
    """(player, total, mirrored, terms) of every reward in the round."""
    return [(e.player or "", e.total, e.mirrored, list(e.terms))
            for e in events if e.type == "reward" and e.round == round_number]


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
