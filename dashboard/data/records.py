"""Rating records (`arena.tournaments.ratings`) from the read model's scored seats, for the
pages that refit or compare a selection of matches (the ratings wing is the dashboard's to
import, not storage's). The records are made by `arena.tournaments.records.from_store`'s
`match_record_of` and `seat_record_of`, as for `arena ratings`: the same ids, versions and
forfeit rule, whichever way the rows were read."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from arena.tournaments.ratings.records import MatchRecord, SeatRecord
from arena.tournaments.records.from_store import match_record_of, seat_record_of

COLUMNS = ("match", "key", "game", "game_version", "map_id", "mode", "rounds", "role",
           "participant", "main", "best", "forfeit", "round_scores_json")


def match_records(seats: pd.DataFrame, round_scores: bool = True) -> list[MatchRecord]:
    """Rating records from `scored_seats` rows (ordered by match). `round_scores=False`
    leaves the per-round scores out (the ratings read match scores only; decoding them is a
    third of the time at 100 000 matches)."""
    if seats.empty:
        return []
    columns = [seats[c].tolist() for c in COLUMNS]
    records: list[MatchRecord] = []
    current: list[SeatRecord] = []
    head: tuple[Any, ...] = ()
    for (match, key, game, version, map_id, mode, rounds, role, who, main, best, forfeit,
         scores) in zip(*columns, strict=True):
        if current and match != head[0]:
            records.append(_record(head, current))
            current = []
        head = (match, key, game, version, map_id, mode, rounds)
        missing = best is None or best != best  # NULL, or NaN once pandas holds it
        current.append(seat_record_of(
            role, who, bool(main), None if missing else float(best), bool(forfeit),
            json.loads(scores) if round_scores else (),
        ))
    records.append(_record(head, current))
    return records


def _record(head: tuple[Any, ...], seats: list[SeatRecord]) -> MatchRecord:
    match, key, game, version, map_id, mode, rounds = head
    return match_record_of(str(key), game, str(version), map_id, mode, int(rounds),
                           int(match), seats)
