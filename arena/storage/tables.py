"""The SQLModel tables of the arena database (schema version in `arena.storage.migrations`).

Everything a leaderboard number needs is here (SCORING.md): the tournament and run, the
game's exact code (hash and text), the map seed and its resolved texts, the play seed, the
seats with their participants' specs, every round score, the full event transcript and the
judge's provenance. JSON payloads are stored as TEXT so any SQLAlchemy backend works.

Timestamps are UTC (SQLite hands them back without a time zone).

Changing a table means a new schema version: add a migration to `migrations.MIGRATIONS`.
"""

# No `from __future__ import annotations`: SQLModel reads the annotations at class creation.

import secrets
from datetime import UTC, datetime

from sqlalchemy import BigInteger, Column, Table, Text, UniqueConstraint
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_seed_key_hex() -> str:
    """A fresh secret seed key (32 random bytes, as `arena.runtime.seeds` uses), in hex."""
    return secrets.token_hex(32)


def table_of(model: type[SQLModel]) -> Table:
    """The Core table of a model (for bulk inserts and DDL)."""
    found: Table = model.__table__  # type: ignore[attr-defined]
    return found


def _text(nullable: bool = False) -> "Column[str]":
    return Column(Text, nullable=nullable)


def _seed() -> "Column[int]":
    """Seeds are 63-bit (`arena.runtime.seeds.derive_seed`): BIGINT, not Postgres' INTEGER."""
    return Column(BigInteger, nullable=False)


class SchemaVersion(SQLModel, table=True):
    """One row: the schema version the database is at."""

    __tablename__ = "schema_version"

    id: int = Field(default=1, primary_key=True)
    version: int
    updated_at: datetime = Field(default_factory=utcnow)


class Tournament(SQLModel, table=True):
    __tablename__ = "tournaments"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    mode: str
    config_json: str = Field(sa_column=_text(), description="the latest config, as JSON")
    created_at: datetime = Field(default_factory=utcnow)
    seed_key: str | None = Field(
        default=None,
        sa_column=_text(nullable=True),
        description="secret hex key of every seed players receive (arena.runtime.seeds); "
        "never shown, exported or given to a player",
    )


class Run(SQLModel, table=True):
    """One invocation of `arena run` (resuming runs add rows, never rewrite old ones)."""

    __tablename__ = "runs"

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id", index=True)
    status: str = Field(
        description="running, done, incomplete, interrupted, failed or \"stopped: <why>\""
    )
    planned: int = Field(description="matches in the schedule")
    pending: int = Field(description="matches not yet stored as done when the run started")
    config_sha256: str
    arena_version: str = ""
    host: str = ""
    pid: int = 0
    started_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None


class Participant(SQLModel, table=True):
    """A named player spec. `spec` holds environment-variable names, never keys."""

    __tablename__ = "participants"
    __table_args__ = (UniqueConstraint("name", "spec", "plugin", "plugin_version"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True)
    spec: str
    plugin: str = ""
    plugin_version: str = ""
    model: str = Field(default="", description="the spec's arg, e.g. a model id")
    params_json: str = Field(default="{}", sa_column=_text())


class Game(SQLModel, table=True):
    __tablename__ = "games"
    __table_args__ = (UniqueConstraint("name", "version", "dialect", "code_sha256"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True)
    version: str
    dialect: str
    code_sha256: str
    filename: str = ""
    source: str = Field(sa_column=_text())


class GameMap(SQLModel, table=True):
    """A map: a game's story() sites resolved from a seed by a named story source."""

    __tablename__ = "maps"
    __table_args__ = (UniqueConstraint("game_id", "seed", "story_source"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seed: int = Field(sa_column=_seed())
    story_source: str
    stories_json: str = Field(sa_column=_text(), description='{"line:col": text}')
    created_at: datetime = Field(default_factory=utcnow)


class JudgeRecord(SQLModel, table=True):
    __tablename__ = "judges"
    __table_args__ = (UniqueConstraint("spec", "name", "model", "revision", "dtype"),)

    id: int | None = Field(default=None, primary_key=True)
    spec: str
    name: str
    model: str
    revision: str = ""
    dtype: str = ""
    vocab_size: int = 0


class Match(SQLModel, table=True):
    """A stored match: written whole in one transaction, so it is complete or absent."""

    __tablename__ = "matches"

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True, index=True, description="idempotent plan key (sha256)")
    tournament_id: int = Field(foreign_key="tournaments.id", index=True)
    run_id: int = Field(foreign_key="runs.id", index=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    map_id: int = Field(foreign_key="maps.id", index=True)
    judge_id: int = Field(foreign_key="judges.id")
    map_index: int
    play_seed: int = Field(sa_column=_seed())
    mode: str
    main_role: str | None = None
    rounds: int
    dialect: str
    status: str = Field(index=True, description="done or error")
    error: str | None = Field(default=None, sa_column=_text(nullable=True))
    event_count: int = 0
    started_at: datetime
    finished_at: datetime
    duration_s: float
    executor: str | None = Field(default=None, description="local, ray, ... (None: before v6)")
    judge_backend: str | None = Field(
        default=None, description="in-process, ray-actor, remote, ... (None: before v6)"
    )


class MatchClaim(SQLModel, table=True):
    """Which run is playing a match: several drivers on one database claim matches before
    playing them (`arena.storage.claims`), so none is played twice; a claim expires unless
    its run renews it, so a crashed driver's matches are taken over."""

    __tablename__ = "match_claims"

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True, index=True, description="the match's plan key")
    tournament_id: int = Field(foreign_key="tournaments.id", index=True)
    run_id: int | None = Field(default=None, description="the claiming run; None: free")
    expires_at: datetime


class Seat(SQLModel, table=True):
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("match_id", "role"),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="matches.id", index=True, ondelete="CASCADE")
    role: str
    participant_id: int = Field(foreign_key="participants.id", index=True)
    main: bool
    best: float | None = None
    forfeit: bool = False
    round_scores_json: str = Field(default="[]", sa_column=_text())
    # the player's spend on this seat (SeatResult; NULL: not measured)
    prompt_tokens: float | None = None
    completion_tokens: float | None = None
    cost_usd: float | None = None
    calls: float | None = None
    move_s: float | None = None


class MatchRound(SQLModel, table=True):
    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("match_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="matches.id", index=True, ondelete="CASCADE")
    number: int
    scores_json: str = Field(sa_column=_text(), description="role -> score (null: forfeit)")
    forfeited_by: str | None = None


class EventRecord(SQLModel, table=True):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("match_id", "seq"),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="matches.id", index=True, ondelete="CASCADE")
    seq: int
    round: int
    type: str
    payload: str = Field(sa_column=_text(), description="event.model_dump_json()")


class RatingSnapshot(SQLModel, table=True):
    __tablename__ = "rating_snapshots"

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int | None = Field(default=None, foreign_key="tournaments.id", index=True)
    method: str
    payload_json: str = Field(sa_column=_text())
    created_at: datetime = Field(default_factory=utcnow)


class Schedule(SQLModel, table=True):
    """A recurring tournament run (cron syntax, or every `interval_s` seconds), kept in our
    own table. `lease_owner`/`lease_until` mark the process running it now (schema v2)."""

    __tablename__ = "schedules"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    cron: str = Field(description="crontab text; empty when interval_s is set")
    tournament_file: str
    args_json: str = Field(default="{}", sa_column=_text())
    enabled: bool = True
    created_at: datetime = Field(default_factory=utcnow)
    last_run_at: datetime | None = None
    next_run_at: datetime | None = None
    interval_s: float | None = None
    lease_owner: str | None = None
    lease_until: datetime | None = None


class ScheduleRun(SQLModel, table=True):
    """One run of a schedule, started by the scheduler or `arena schedule run-now` (schema
    v2). Keyed by the schedule's name, so the history outlives a removed schedule."""

    __tablename__ = "schedule_runs"

    id: int | None = Field(default=None, primary_key=True)
    schedule: str = Field(index=True)
    owner: str = Field(description="host:pid:token of the process that ran it")
    trigger: str = Field(description="scheduled or manual")
    seed: int = Field(sa_column=_seed(), description="the tournament seed this run played")
    status: str = Field(description="running, done, incomplete, failed or interrupted")
    tournament_run_id: int | None = Field(default=None, foreign_key="runs.id")
    snapshot_id: int | None = Field(default=None, foreign_key="rating_snapshots.id")
    written: int = 0
    error: str | None = Field(default=None, sa_column=_text(nullable=True))
    started_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None


class LiveRun(SQLModel, table=True):
    """The heartbeat of a tournament run (schema v4): progress written by the executor at
    most once a second, so a dashboard in another process or on another machine can follow
    it. `updated_at` far in the past while `status` is running means the process is gone."""

    __tablename__ = "live_runs"

    run_id: int = Field(primary_key=True, foreign_key="runs.id")
    tournament_id: int = Field(foreign_key="tournaments.id", index=True)
    status: str = Field(description="running, done, incomplete, interrupted or failed")
    total: int = Field(description="matches in the schedule")
    done_before: int = Field(description="matches already stored when the run started")
    done: int = Field(default=0, description="matches stored by this run")
    errors: int = 0
    forfeits: int = Field(default=0, description="seats that forfeited in this run's matches")
    in_flight: int = 0
    matches_per_min: float = Field(default=0.0, description="over this run's wall time")
    eta_s: float | None = Field(default=None, description="remaining / rate; None before any")
    host: str = ""
    pid: int = 0
    started_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    phase: str | None = Field(
        default=None, description="preparing (making maps) or playing (schema v8; NULL before)"
    )
    maps_done: int | None = Field(default=None, description="maps made so far (v8)")
    maps_total: int | None = Field(default=None, description="maps this run must make (v8)")


class LiveMatch(SQLModel, table=True):
    """A match being played now (schema v4); its row goes when it is stored."""

    __tablename__ = "live_matches"
    __table_args__ = (UniqueConstraint("run_id", "key"),)

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="runs.id", index=True)
    key: str = Field(description="the match's plan key (its stored row will have it)")
    game: str
    seats_json: str = Field(sa_column=_text(), description='[{"role", "participant"}]')
    round: int = Field(default=0, description="the round being played (0: not started)")
    rounds: int
    started_at: datetime = Field(default_factory=utcnow)
    events_json: str | None = Field(
        default=None, sa_column=_text(nullable=True),
        description="its latest events so far, redacted and bounded (schema v9; NULL before)",
    )


class LiveJudge(SQLModel, table=True):
    """The judge pool's health during a run (schema v4), beside its heartbeat."""

    __tablename__ = "live_judges"

    run_id: int = Field(primary_key=True, foreign_key="runs.id")
    queue_depth: int = 0
    mean_batch_size: float = 0.0
    cache_hit_rate: float = 0.0
    tokens_per_s: float = 0.0
    requests: int = 0
    batches: int = 0
    stats_json: str = Field(default="{}", sa_column=_text(), description="all pool metrics")
    updated_at: datetime = Field(default_factory=utcnow)


class LiveScheduler(SQLModel, table=True):
    """The heartbeat of an `arena scheduler` process (schema v4); next fire times are in
    `schedules.next_run_at`."""

    __tablename__ = "live_schedulers"

    owner: str = Field(primary_key=True, description="host:pid:token")
    status: str = Field(description="running or stopped")
    schedules: int = Field(default=0, description="enabled schedules it runs")
    running: int = Field(default=0, description="schedule runs in flight")
    started_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


# --- The game space (schema v7): fine-tuning verdicts, transfer values, grown scopes. ---
#
# A fine-tuning setting is identified by `setting_sha256`: the hash of the player spec, the
# fine-tuner spec, the token budget, the evaluation maps, the seed and the judge spec, so a
# value measured once is reused (the transfer oracle's cache) and never mixed across settings.


class FineTuneVerdict(SQLModel, table=True):
    """S_G(M) before and after fine-tuning M on G (Def. 35), for one setting."""

    __tablename__ = "finetune_verdicts"
    __table_args__ = (UniqueConstraint("setting_sha256", "game_sha256"),)

    id: int | None = Field(default=None, primary_key=True)
    setting_sha256: str = Field(index=True)
    setting_json: str = Field(sa_column=_text(), description="player, fine-tuner, budget, ...")
    game: str
    game_sha256: str
    score_before: float
    score_after: float
    gain_low: float = Field(description="bootstrap interval of S_G(F[M]) - S_G(M) over maps")
    gain_high: float
    playable: bool = Field(description="Def. 35: the gain's interval lies above zero")
    tokens: int = Field(default=0, description="tokens the fine-tuning processed")
    model_path: str | None = Field(default=None, description="where the tuned model was kept")
    scores_json: str = Field(
        default="{}", sa_column=_text(),
        description='S_G per evaluation map: {"before": [...], "after": [...]} (paired)',
    )
    created_at: datetime = Field(default_factory=utcnow)


class TransferValue(SQLModel, table=True):
    """V_G1(G2) of Def. 37 for one setting, with its bootstrap interval over maps."""

    __tablename__ = "transfer_values"
    __table_args__ = (UniqueConstraint("setting_sha256", "source_sha256", "target_sha256"),)

    id: int | None = Field(default=None, primary_key=True)
    setting_sha256: str = Field(index=True)
    source: str = Field(description="G1, the game fine-tuned on")
    source_sha256: str
    target: str = Field(description="G2, the game evaluated")
    target_sha256: str
    value: float | None = Field(
        default=None, description="None: undefined (G1's gain interval is not above 0)"
    )
    low: float | None = None
    high: float | None = None
    reason: str = Field(default="", description="why the value is undefined")
    target_before: float = Field(description="S_G2(M)")
    target_after: float = Field(description="S_G2(F_G1[M])")
    scores_json: str = Field(
        default="{}", sa_column=_text(),
        description='S_G2 per evaluation map: {"before": [...], "after": [...]} (paired)',
    )
    created_at: datetime = Field(default_factory=utcnow)


class Scope(SQLModel, table=True):
    """A scope grown by Algorithm 1 (`arena scope grow`); its games are `scope_games`."""

    __tablename__ = "scopes"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    params_json: str = Field(sa_column=_text(), description="alphas, sampler, rounds, budget")
    setting_sha256: str = Field(description="the fine-tuning setting of its transfer values")
    status: str = Field(default="growing", description="growing, done or interrupted")
    round: int = Field(default=0, description="k of the round in progress")
    state_json: str = Field(default="{}", sa_column=_text(), description="resume point")
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class ScopeGame(SQLModel, table=True):
    """A game in a scope's archive: the initial ones (round 0), each accepted G_* (with the
    round that accepted it and its gamma) and each rejected candidate (accepted = False)."""

    __tablename__ = "scope_games"
    __table_args__ = (UniqueConstraint("scope_id", "sha256"),)

    id: int | None = Field(default=None, primary_key=True)
    scope_id: int = Field(foreign_key="scopes.id", index=True)
    name: str
    sha256: str
    filename: str
    source: str = Field(sa_column=_text())
    parent: str | None = None
    round: int = 0
    accepted: bool = True
    gamma: float | None = Field(default=None, description="max over the scope of V_G~(G_*)")
    lineage_json: str = Field(default="{}", sa_column=_text())
    verdicts_json: str = Field(default="{}", sa_column=_text(), description="pipeline stages")
    created_at: datetime = Field(default_factory=utcnow)
