"""One participant's stored facts for its page: the specs it played under (secrets
redacted) and what its recent moves cost (tokens, money, calls, time), read from the
`elicit_response` events its players reported usage on.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
from sqlalchemy import Engine, and_, func, select
from sqlmodel import col

from arena.events import ElicitResponse
from arena.redaction import redact, redact_params
from arena.storage.event_codec import decode_events
from arena.storage.read_model.filters import Filters
from arena.storage.read_model.frames import joined_matches, match_conditions, read_frame
from arena.storage.tables import EventRecord, Match, Participant, Seat, Tournament

PERSON_SPEC = "human:web"  # a person's seat: `human:web?name=...` (arena.players.people.web)
USAGE_MATCHES = 200  # the most recent matches whose moves are read for usage
USAGE_COLUMNS = ["match", "role", "moves", "prompt_tokens", "completion_tokens", "cost_usd",
                 "calls", "duration_s", "match_moves"]


def participant_specs(engine: Engine, name: str) -> pd.DataFrame:
    """Each spec `name` played under: spec, plugin, plugin_version, model, params (all
    redacted: a key never shows), matches, first and last match."""
    query = (
        select(
            col(Participant.spec), col(Participant.plugin), col(Participant.plugin_version),
            col(Participant.model), col(Participant.params_json),
            func.count(col(Seat.id)).label("matches"),
            func.min(col(Match.finished_at)).label("first_match_at"),
            func.max(col(Match.finished_at)).label("last_match_at"),
        )
        .select_from(Participant)
        .outerjoin(Seat, col(Seat.participant_id) == col(Participant.id))
        .outerjoin(Match, col(Match.id) == col(Seat.match_id))
        .where(col(Participant.name) == name)
        .group_by(col(Participant.id))
        .order_by(col(Participant.id))
    )
    frame = read_frame(engine, query)
    if not len(frame):
        return frame.drop(columns=["params_json"]).assign(params=pd.Series(dtype=str))
    frame["spec"] = [redact(str(s)) for s in frame["spec"]]
    frame["model"] = [redact(str(m)) for m in frame["model"]]
    frame["params"] = [_params_text(p) for p in frame.pop("params_json")]
    return frame


def people(engine: Engine, tournament: str | None) -> list[str]:
    """The tournament's participants who are people (their player is `human:web`, on the
    play page), sorted: the Leaderboard marks them (None: every tournament's)."""
    query = (
        select(col(Participant.name)).distinct()
        .join(Seat, col(Seat.participant_id) == col(Participant.id))
        .join(Match, col(Match.id) == col(Seat.match_id))
        .join(Tournament, col(Tournament.id) == col(Match.tournament_id))
        .where(*([col(Tournament.name) == tournament] if tournament else []),
               col(Participant.spec).startswith(PERSON_SPEC, autoescape=True))
        .order_by(col(Participant.name))
    )
    with engine.connect() as conn:
        return [str(name) for name in conn.execute(query).scalars()]


def _params_text(text: Any) -> str:
    try:
        params = json.loads(str(text or "{}"))
    except ValueError:
        return redact(str(text))
    if not isinstance(params, dict):
        return redact(str(text))
    shown = redact_params({str(k): str(v) for k, v in params.items()})
    return ", ".join(f"{k}={v}" for k, v in sorted(shown.items()))


def participant_usage(engine: Engine, filters: Filters, name: str,
                      limit: int = USAGE_MATCHES) -> pd.DataFrame:
    """Per recent done match of `name` (rated seats, newest first, at most `limit`): its
    moves and the usage its player reported on them (prompt and completion tokens, cost in
    USD, calls; 0 when the player reports none), the match's duration and all seats' moves
    (time per move is only known per match)."""
    seats = joined_matches(
        select(col(Match.id).label("match"), col(Seat.role), col(Match.duration_s))
        .select_from(Match)
        .join(Seat, col(Seat.match_id) == col(Match.id))
        .join(Participant, col(Participant.id) == col(Seat.participant_id))
    ).where(and_(col(Match.status) == "done", col(Seat.main), col(Participant.name) == name,
                 *match_conditions(filters))).order_by(col(Match.id).desc()).limit(limit)
    mine = read_frame(engine, seats)
    if not len(mine):
        return pd.DataFrame(columns=USAGE_COLUMNS)
    roles = {(int(m), str(r)) for m, r in zip(mine["match"], mine["role"], strict=True)}
    totals: dict[tuple[int, str], dict[str, float]] = {}
    match_moves: dict[int, int] = {}
    ids = sorted({m for m, _ in roles})
    payloads: dict[int, list[str]] = {}
    with engine.connect() as conn:
        for start in range(0, len(ids), 500):  # under every backend's bound-parameter limit
            rows = conn.execute(
                select(col(EventRecord.match_id), col(EventRecord.payload))
                .where(col(EventRecord.match_id).in_(ids[start:start + 500]))
                .order_by(col(EventRecord.match_id), col(EventRecord.seq)))
            for match_id, payload in rows:
                payloads.setdefault(int(match_id), []).append(str(payload))
    for match_id, texts in payloads.items():  # whole transcripts: payloads share strings
        for event in decode_events(texts):
            if not isinstance(event, ElicitResponse):
                continue
            match_moves[match_id] = match_moves.get(match_id, 0) + 1
            key = (match_id, str(event.player))
            if key not in roles:
                continue
            sums = totals.setdefault(key, {"moves": 0.0})
            sums["moves"] += 1
            for field, value in (event.usage or {}).items():
                sums[field] = sums.get(field, 0.0) + float(value)
    out = []
    for row in mine.itertuples():
        sums = totals.get((int(row.match), str(row.role)), {})
        out.append({"match": int(row.match), "role": row.role,
                    "moves": int(sums.get("moves", 0)),
                    **{f: sums.get(f, 0.0) for f in USAGE_COLUMNS[3:7]},
                    "duration_s": float(row.duration_s),
                    "match_moves": match_moves.get(int(row.match), 0)})
    return pd.DataFrame(out, columns=USAGE_COLUMNS)
