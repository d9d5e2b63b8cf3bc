"""Writing finished matches: the match rows, their seats, rounds and events, batched.

Called inside one write transaction (`Store.save_matches`), so a batch of matches is
stored whole or not at all. One statement per table per batch keeps the cost per match
low (many matches finish at once in a large tournament).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from arena.storage import tables as t
from arena.storage.event_codec import encode_events
from arena.storage.records import MATCH_DONE, FinishedMatch

MATCHES = t.table_of(t.Match)
SEATS = t.table_of(t.Seat)
ROUNDS = t.table_of(t.MatchRound)
EVENTS = t.table_of(t.EventRecord)
_CHUNK = 500  # stay under the database's limit on bound parameters


def _existing(conn: Connection, keys: Sequence[str]) -> dict[str, tuple[int, str]]:
    found: dict[str, tuple[int, str]] = {}
    for start in range(0, len(keys), _CHUNK):
        query = select(MATCHES.c.key, MATCHES.c.id, MATCHES.c.status).where(
            MATCHES.c.key.in_(keys[start : start + _CHUNK])
        )
        found.update({str(k): (int(i), str(s)) for k, i, s in conn.execute(query)})
    return found


def _match_row(match: FinishedMatch) -> dict[str, Any]:
    return {
        "key": match.key,
        "tournament_id": match.tournament_id,
        "run_id": match.run_id,
        "game_id": match.game_id,
        "map_id": match.map_id,
        "judge_id": match.judge_id,
        "map_index": match.map_index,
        "play_seed": match.play_seed,
        "mode": match.mode,
        "main_role": match.main_role,
        "rounds": match.rounds,
        "dialect": match.dialect,
        "status": match.status,
        "error": match.error,
        "event_count": len(match.events),
        "started_at": match.started_at,
        "finished_at": match.finished_at,
        "duration_s": (match.finished_at - match.started_at).total_seconds(),
        "executor": match.executor,
        "judge_backend": match.judge_backend,
    }


def _insert_ids(conn: Connection, rows: list[dict[str, Any]]) -> list[int]:
    """Insert match rows, returning their ids in order."""
    if conn.dialect.insert_executemany_returning_sort_by_parameter_order:
        statement = MATCHES.insert().returning(MATCHES.c.id, sort_by_parameter_order=True)
        return [int(i) for i in conn.execute(statement, rows).scalars()]
    ids = []
    for row in rows:  # backends without multi-row RETURNING
        key = conn.execute(MATCHES.insert(), row).inserted_primary_key
        assert key is not None
        ids.append(int(key[0]))
    return ids


def insert_matches(conn: Connection, matches: Sequence[FinishedMatch]) -> list[bool]:
    """Insert the matches; per match, False when its key is already stored as done (or
    comes twice in `matches`). A stored error under the same key is replaced."""
    existing = _existing(conn, [m.key for m in matches])
    fresh: list[FinishedMatch] = []
    written: list[bool] = []
    for match in matches:
        old = existing.get(match.key)
        if old is not None and old[1] == MATCH_DONE:
            written.append(False)
            continue
        if old is not None:
            for child in (EVENTS, ROUNDS, SEATS):
                conn.execute(child.delete().where(child.c.match_id == old[0]))
            conn.execute(MATCHES.delete().where(MATCHES.c.id == old[0]))
        existing[match.key] = (0, MATCH_DONE)
        fresh.append(match)
        written.append(True)
    if not fresh:
        return written
    ids = _insert_ids(conn, [_match_row(m) for m in fresh])
    seats, rounds, events = [], [], []
    for match_id, match in zip(ids, fresh, strict=True):
        seats += [
            {
                "match_id": match_id,
                "role": s.role,
                "participant_id": s.participant_id,
                "main": s.main,
                "best": s.best,
                "forfeit": s.forfeit,
                "round_scores_json": json.dumps(list(s.round_scores)),
                "prompt_tokens": s.prompt_tokens,
                "completion_tokens": s.completion_tokens,
                "cost_usd": s.cost_usd,
                "calls": s.calls,
                "move_s": s.move_s,
            }
            for s in match.seats
        ]
        payloads = encode_events(match.events)
        for seq, (e, payload) in enumerate(zip(match.events, payloads, strict=True)):
            events.append(
                {
                    "match_id": match_id,
                    "seq": seq,
                    "round": e.round,
                    "type": e.type,
                    "payload": payload,
                }
            )
            if e.type == "round_finished":
                rounds.append(
                    {
                        "match_id": match_id,
                        "number": e.round,
                        "scores_json": json.dumps(e.scores, sort_keys=True),
                        "forfeited_by": e.forfeited_by,
                    }
                )
    for table, rows in ((SEATS, seats), (ROUNDS, rounds), (EVENTS, events)):
        if rows:
            conn.execute(table.insert(), rows)
    return written
