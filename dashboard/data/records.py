"""Rating records (`arena.tournaments.ratings`) from the read model's scored seats, for the
pages that rate or compare matches (the ratings wing is the dashboard's to import, not
storage's)."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from arena.tournaments.ratings.records import MatchRecord, SeatRecord


def match_records(seats: pd.DataFrame, round_scores: bool = True) -> list[MatchRecord]:
    """Rating records (`arena.tournaments.ratings`) from `scored_seats` rows (ordered by match).
    `round_scores=False` leaves the per-round scores out (the ratings read match scores only;
    decoding them is a third of the time at 100 000 matches)."""
    if seats.empty:
        return []
    columns = [seats[c].tolist() for c in (
        "match", "game", "map_id", "mode", "rounds", "role", "participant", "main", "best",
        "forfeit", "round_scores_json")]
    records: list[MatchRecord] = []
    current: list[SeatRecord] = []
    head: tuple[Any, ...] = ()
    for match, game, map_id, mode, rounds, role, who, main, best, forfeit, scores in zip(
        *columns, strict=True
    ):
        if current and match != head[0]:
            records.append(_record(head, current))
            current = []
        head = (match, game, map_id, mode, rounds)
        missing = best is None or best != best  # NULL, or NaN once pandas holds it
        current.append(SeatRecord(
            role=role, participant=who, score=None if missing else float(best),
            forfeit=bool(forfeit) or missing,
            round_scores=tuple(json.loads(scores)) if round_scores else (),
            npc=not bool(main),
        ))
    records.append(_record(head, current))
    return records


def _record(head: tuple[Any, ...], seats: list[SeatRecord]) -> MatchRecord:
    match, game, map_id, mode, rounds = head
    return MatchRecord(
        match_id=str(match), game=game, map_id=str(map_id), seats=tuple(seats),
        mode="eval" if mode == "eval" else "head_to_head", rounds=int(rounds),
        order=float(match),
    )
