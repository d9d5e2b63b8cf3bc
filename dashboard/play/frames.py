"""What the play page receives, built in one place and only from a seat's information set.

A move request becomes a frame from the `MoveRequest` the runtime built for the seat
(XGL.md section 4: public registers, what was revealed, its own history with its rewards as
received) minus the seat seed. Rewards and round results come from the match's events, but
only through `seatview.received_terms` (the terms exactly as the seat received them: per-token
values over text it saw, one rounded total otherwise) and the seat's own round score. No
other event, register or seat reaches a frame. Frames are JSON; the page shows every string
in them as text (`textContent`), never as markup.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from arena.dashboard.reading import clip_bits, shade
from arena.dashboard.seatview import received_terms
from arena.events import Event
from arena.human_desk import PendingMove
from arena.protocols.player import MoveRequest

_REQUEST = TypeAdapter(MoveRequest)
Frame = dict[str, Any]


def queue_frame(moves: list[PendingMove]) -> Frame:
    """The person's waiting moves, oldest first (game, seat, round: nothing hidden)."""
    return {
        "type": "queue",
        "moves": [
            {"id": m.id, "game": m.request.game.name, "role": m.request.role,
             "round": m.request.round, "rounds": m.request.rounds, "line": m.request.line}
            for m in moves
        ],
    }


def request_frame(move: PendingMove) -> Frame:
    """One request as the page shows it: the seat's information set, nothing else."""
    data = _REQUEST.dump_python(move.request, mode="json")
    data.pop("seed", None)  # for a program's own randomness; a person needs none
    data["rules"] = [
        line.lstrip("#").strip() for line in move.request.game.header.splitlines()
    ]
    return {"type": "request", "id": move.id, "request": data}


def seat_frame(event: Event, role: str, match: int, best: float | None) -> Frame | None:
    """The frame a human seat in `role` gets for `event`, or None: its rewards as received,
    its own score when a round ends, its own forfeit."""
    if event.type == "reward" and event.player == role:
        terms = [t.model_dump() for t in received_terms(event)]
        seen = [b * t["coefficient"] for t in terms for b in t["bits"]]
        clip = clip_bits(seen)
        for term in terms:  # the dashboard's heat-map colours: gain blue, loss red
            term["shades"] = [shade(term["coefficient"] * b, clip) for b in term["bits"]]
        return {"type": "feedback", "match": match, "role": role, "round": event.round,
                "line": event.line, "total": sum(t["total"] for t in terms), "terms": terms,
                "clip": clip}
    if event.type == "round_finished" and role in event.scores:
        return {"type": "round", "match": match, "role": role, "round": event.round,
                "score": event.scores[role], "best": best}
    if event.type == "forfeit" and event.player == role:
        return {"type": "forfeit", "match": match, "role": role, "round": event.round,
                "reason": event.reason}
    return None
