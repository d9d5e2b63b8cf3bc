"""What the play page receives, built in one place and only from a seat's information set.

A move request becomes a frame from the `MoveRequest` the runtime built for the seat
(XGL.md section 4: public registers, what was revealed, its own history with its rewards as
received) minus the seat seed, plus the rules as a person reads them and why a move broke
one (`rules.py`, from the same information set). A queue item adds only what the server
chose itself (its match number, the other seats' players, the time left), never anything
of the map. Rewards and round results come from the match's events, but only through the
terms exactly as the seat received them (the runtime's `Reward.seat_view`: per-token values
over text it saw, one rounded total otherwise) and the seat's own round score. No other
event, register or seat reaches a frame. Frames are JSON; the page shows every string in
them as text (`textContent`), never as markup.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter

from arena.events import Event, Reward, SeatRewardTerm
from arena.heat_scale import clip_bits, shade
from arena.protocols.player import MoveRequest
from arena.runtime.feedback import FEEDBACK_RESOLUTION_BITS
from arena.tournaments.play.desk import PendingMove
from arena.tournaments.play.rules import explain_failure, game_rules

_REQUEST = TypeAdapter(MoveRequest)
Frame = dict[str, Any]


def queue_item(move: PendingMove, now: float | None = None) -> Frame:
    """One waiting move as the queue lists it: game, seat, the other seats, round k/N,
    line, try, time left (nothing hidden, nothing of the map but whether it is new)."""
    request, note = move.request, move.note
    left = move.seconds_left(now)
    return {
        "id": move.id, "match": note.number or None, "tournament": note.tournament,
        "game": request.game.name, "role": request.role, "opponents": dict(note.opponents),
        "map": "new" if note.new_map else "", "round": request.round, "rounds": request.rounds,
        "line": request.line, "attempt": request.attempt,
        "seconds_left": None if left is None else round(left),
    }


def queue_frame(moves: list[PendingMove]) -> Frame:
    """The person's waiting moves, oldest first, one item each."""
    return {"type": "queue", "moves": [queue_item(m) for m in moves]}


def request_frame(move: PendingMove) -> Frame:
    """One request as the page shows it: the seat's information set, nothing else."""
    request = move.request
    data = _REQUEST.dump_python(request, mode="json")
    data.pop("seed", None)  # for a program's own randomness; a person needs none
    rules = game_rules(request.game.header, request.game.code, None, request.rounds,
                       request.game.name)
    data["rules"] = rules.as_dict()
    data["failed_why"] = explain_failure(request)
    return {"type": "request", "id": move.id, "item": queue_item(move), "request": data}


def received(event: Reward) -> list[SeatRewardTerm]:
    """The reward's terms as its seat received them (the runtime writes them with every
    live reward; a reward without them gives only its total, rounded as hidden ones are)."""
    if event.seat_view is not None:
        return list(event.seat_view)
    total = round(event.total / FEEDBACK_RESOLUTION_BITS) * FEEDBACK_RESOLUTION_BITS
    return [SeatRewardTerm(source="reward", coefficient=1, tokens=[], bits=[], total=total,
                           hidden=True)]


def seat_frame(event: Event, role: str, card: str, best: float | None) -> Frame | None:
    """The frame a human seat in `role` gets for `event`, or None: its rewards as received,
    its own score when a round ends, its own failed rule and forfeit. `card` names the
    page's card of this seat's match (its best score stays with it)."""
    if isinstance(event, Reward) and event.player == role:
        terms = [t.model_dump() for t in received(event)]
        seen = [b * t["coefficient"] for t in terms for b in t["bits"]]
        clip = clip_bits(seen)
        for term in terms:  # the dashboard's heat-map colours: gain blue, loss red
            term["shades"] = [shade(term["coefficient"] * b, clip) for b in term["bits"]]
        return {"type": "feedback", "card": card, "role": role, "round": event.round,
                "line": event.line, "total": sum(t["total"] for t in terms), "terms": terms,
                "clip": clip}
    if event.type == "round_finished" and role in event.scores:
        return {"type": "round", "card": card, "role": role, "round": event.round,
                "score": event.scores[role], "best": best}
    if event.type == "failed_ensure" and event.player == role:
        return {"type": "failed", "card": card, "role": role, "round": event.round,
                "line": event.line, "failures": event.failures, "budget": event.budget}
    if event.type == "forfeit" and event.player == role:
        return {"type": "forfeit", "card": card, "role": role, "round": event.round,
                "reason": event.reason}
    return None


def rating_frame(tournament: str, participant: str, rows: list[Mapping[str, Any]],
                 leaderboard: str = "") -> Frame:
    """A person's place on the ladder from a rating snapshot's rows (the one board): their
    rating, interval, comparisons and rank among the rated."""
    mine = next((r for r in rows if r.get("participant") == participant), None)
    frame: Frame = {"type": "rating", "tournament": tournament, "participant": participant,
                    "rated": len(rows), "leaderboard": leaderboard}
    if mine is not None:
        frame.update({key: mine.get(key) for key in (
            "rating", "ci_low", "ci_high", "n_comparisons", "rank_low", "rank_high",
            "provisional")})
        frame["rank"] = 1 + sum(r.get("rating", 0) > mine.get("rating", 0) for r in rows)
    return frame
