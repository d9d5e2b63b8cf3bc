"""Plain records going into and coming out of storage, so callers never see SQL or rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from arena.events import Event

MATCH_DONE = "done"
MATCH_ERROR = "error"
# Played, and by the game's rules without a result (XGL.md section 9: an ensure line over its
# budget in dialect xent, a provider that could not be reached): absent from every score,
# counted as such, played again on resume like an error. Its reason is in `error`.
MATCH_NO_RESULT = "no_result"


@dataclass(frozen=True)
class ParticipantInfo:
    """A participant as stored: its spec names environment variables, never keys."""

    name: str
    spec: str
    plugin: str = ""
    plugin_version: str = ""
    model: str = ""
    params: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class GameInfo:
    name: str
    version: str
    dialect: str
    code_sha256: str
    source: str
    filename: str = ""


@dataclass(frozen=True)
class JudgeProvenance:
    """The judge behind every score of a match (from `JudgeInfo` plus the spec used)."""

    spec: str
    name: str
    model: str
    revision: str = ""
    dtype: str = ""
    vocab_size: int = 0


@dataclass(frozen=True)
class SeatResult:
    role: str
    participant_id: int
    main: bool
    best: float | None
    forfeit: bool
    round_scores: tuple[float | None, ...]
    # what the seat's player spent (None: not measured, e.g. an imported result): the usage
    # its moves reported (tokens, dollars, model calls) and the seconds it took on them
    prompt_tokens: float | None = None
    completion_tokens: float | None = None
    cost_usd: float | None = None
    calls: float | None = None
    move_s: float | None = None


@dataclass(frozen=True)
class FinishedMatch:
    """Everything written for one match, in one transaction."""

    key: str
    tournament_id: int
    run_id: int
    game_id: int
    map_id: int
    judge_id: int
    map_index: int
    play_seed: int
    mode: str
    main_role: str | None
    rounds: int
    dialect: str
    status: str  # MATCH_DONE, MATCH_ERROR or MATCH_NO_RESULT
    error: str | None
    started_at: datetime
    finished_at: datetime
    seats: tuple[SeatResult, ...]
    events: Sequence[Event]
    executor: str = "local"  # provenance: what played it ...
    judge_backend: str = "in-process"  # ... and where its judge ran


@dataclass(frozen=True)
class StoredSeat:
    role: str
    participant: str
    spec: str
    main: bool
    best: float | None
    forfeit: bool
    round_scores: tuple[float | None, ...]


@dataclass(frozen=True)
class StoredMatch:
    """A stored match with everything needed to trace a leaderboard number to it."""

    id: int
    key: str
    tournament: str
    run_id: int
    game: str
    game_version: str
    code_sha256: str
    dialect: str
    map_id: int
    map_index: int
    map_seed: int
    play_seed: int
    mode: str
    main_role: str | None
    rounds: int
    status: str
    error: str | None
    event_count: int
    judge_model: str
    judge_revision: str
    judge_dtype: str
    finished_at: datetime
    seats: tuple[StoredSeat, ...]
    executor: str | None = None  # None: stored before schema v6
    judge_backend: str | None = None
