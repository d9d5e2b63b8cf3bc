"""The tournament file: TOML, validated with pydantic, every mistake reported at once.

Example::

    name = "demo"
    mode = "eval"            # or "head_to_head"
    judge = "ngram"          # judge spec
    stories = "judge"        # map texts: "judge" (sampled from the judge) or a story source spec
    base = "random"          # base participant for normalisation
    normalisation = "catch-up"   # or "narms" (paper Def. 42) or "reference"; for narms a
                             # table: normalisation = { method = "narms", theta = 0.5, m = 2 }
    seed = 0
    untrusted_entrants = false   # true: entrants play built-in players or remote: agents only
    rounds = 1               # default rounds per match; games may override
    maps = 2                 # default map slots per game (a game whose roles see different
                             # things of a map plays a slot on several maps: README)
    npc = "random"           # NPC participant for every non-main role (eval mode)
    pairing = "adaptive"     # or "round_robin" (the default): the planned matches that
                             # shrink the ranking's uncertainty most go first, and a new
                             # entrant plays only what places it (README)
    stop_when = "settled"    # stop once the intervals of the best `settle_top` (default all)
    settle_top = 3           # no longer overlap at `confidence` (default 0.95); or stop at
    max_matches = 500        # a number of matches, or a budget of the players' tokens or
    budget_usd = 2.5         # dollars (budget_tokens, budget_usd): the first rule met stops

    [concurrency]
    global = 8               # matches in flight
    providers = { litellm = 4 }   # matches in flight per player kind (spec name)

    executor = "local"       # or "ray" (pip install 'xent-arena[ray]'); `arena run --executor`
    [ray]                    # only for executor = "ray" (docs/deployment.md)
    address = "auto"         # the cluster to join; unset: a local one is started
    max_in_flight = 64       # matches submitted at once (default: concurrency.global)

    [limits]                 # resource limits of every game (arena.lang.limits); defaults
    max_value_chars = 1000000 # the defaults suit every bundled game; raise one only if needed

    [[participants]]
    name = "random"
    player = "random?words=3"

    [[participants]]
    name = "gpt"
    player = "litellm:openai/gpt-4o-mini?api_key_env=OPENAI_API_KEY"

    [[games]]                # or, instead of [[games]] tables: games = "scope:NAME", the
                             # games of a scope grown by `arena scope grow`, read from --db
    game = "condense"        # a registered game name, or a path relative to this file
    dialect = "xgl"
    rounds = 3
    npc = { bob = "random" } # per-role NPCs for this game

Specs name environment variables for keys (`api_key_env=NAME`); a literal key is refused.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from arena.errors import ArenaError, did_you_mean
from arena.lang.dialects import DIALECT_NAMES, dialect_rules
from arena.lang.limits import LIMIT_NAMES, ResourceLimits
from arena.redaction import is_secret_param, looks_like_key
from arena.specs import NAME_RE, parse_spec
from arena.tournaments.planning.config_errors import (
    Problem,
    TournamentConfigError,
    from_validation_error,
    key_path,
)
from arena.tournaments.planning.plugin_problems import JUDGE_STORIES, registry_problems
from arena.tournaments.planning.scope_games import DatabaseRef, expand

if TYPE_CHECKING:
    from arena.plugins.registry import Registry

Mode = Literal["eval", "head_to_head"]
MAX_FILE_BYTES = 4 * 2**20  # far above any real tournament file; reading stays bounded
# Maxima of the sizes a tournament file sets: far above any real tournament, low enough
# that planning and playing stay within memory (maps = 10^12 once exhausted it).
MAX_MAPS = 10_000
MAX_ROUNDS = 1_000
MAX_ENTRIES = 1_000  # participants, and games
MAX_MATCHES = 1_000_000
MAX_CONCURRENCY = 10_000
MAX_BUDGET_TOKENS = 10**15
MAX_BUDGET_USD = 1e9
SETTLE_KEYS = ("settle_top", "confidence")  # mean something only with stop_when = "settled"


def check_spec(text: str) -> str:
    """A valid spec without literal secrets, else ValueError (for pydantic to collect)."""
    try:
        spec = parse_spec(text)
    except ArenaError as error:
        raise ValueError(str(error).splitlines()[0]) from None
    secret = [k for k in spec.params if is_secret_param(k)]
    if secret or looks_like_key(text):
        what = f"parameter '{secret[0]}'" if secret else "a value that looks like an API key"
        raise ValueError(
            f"contains {what}. Never write keys in tournament files: export the key in an "
            "environment variable and name it, e.g. api_key_env=OPENAI_API_KEY"
        )
    return text


def _npc_setting(value: object) -> object:
    ok = value is None or isinstance(value, str) or (
        isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    )
    if not ok:
        raise ValueError(
            'must be a participant name (npc = "random") or a table role = participant '
            '(npc = { bob = "random" })'
        )
    return value


def _dialect_name(value: str | None) -> str | None:
    """A dialect name as the language spells it (`xent@2025-09`), else ValueError."""
    if value is None:
        return None
    rules = dialect_rules(value)
    if rules is None:
        raise ValueError(
            f"'{value}' is no dialect.{did_you_mean(value, DIALECT_NAMES)} Write one of them "
            "(a config imported by `arena import` names its own)"
        )
    return rules.name


class _Strict(BaseModel):
    # nan and inf are valid TOML but no setting means them: refused like any bad number.
    model_config = ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True, allow_inf_nan=False
    )


class ParticipantConfig(_Strict):
    name: str = Field(pattern=NAME_RE.pattern, description="unique name, e.g. 'gpt4o'")
    player: str = Field(description="player spec, e.g. 'random?words=3'")
    npc_only: bool = Field(default=False, description="plays NPC seats only, never rated")

    _spec = field_validator("player")(check_spec)


class GameConfig(_Strict):
    game: str = Field(min_length=1, description="registered game name or file path")
    name: str | None = Field(default=None, pattern=NAME_RE.pattern, description="label")
    dialect: str | None = None  # xgl, xent or a version of xent (arena.lang.dialects)
    rounds: int | None = Field(default=None, ge=1, le=MAX_ROUNDS)
    maps: int | None = Field(default=None, ge=1, le=MAX_MAPS)
    npc: str | dict[str, str] | None = None
    max_matches: int | None = Field(
        default=None, ge=1, le=MAX_MATCHES, description="head-to-head budget"
    )

    _npc = field_validator("npc", mode="before")(_npc_setting)
    _dialect = field_validator("dialect")(_dialect_name)

    @property
    def label(self) -> str:
        """The game's name in this tournament: `name`, else the file stem or game name."""
        return self.name or Path(self.game).stem


class ConcurrencyConfig(_Strict):
    global_: int = Field(
        default=8, ge=1, le=MAX_CONCURRENCY, alias="global", description="matches in flight"
    )
    providers: dict[str, int] = Field(default_factory=dict)

    @field_validator("providers")
    @classmethod
    def _positive(cls, value: dict[str, int]) -> dict[str, int]:
        bad = [k for k, v in value.items() if not 1 <= v <= MAX_CONCURRENCY]
        if bad:
            raise ValueError(
                f"limits must be from 1 to {MAX_CONCURRENCY} (see {', '.join(bad)})"
            )
        return value


class RayConfig(_Strict):
    """The `[ray]` table: used when `executor = "ray"` (see docs/deployment.md)."""

    address: str | None = Field(
        default=None, description="cluster to join, e.g. 'ray://head:10001' or 'auto'"
    )
    max_in_flight: int | None = Field(
        default=None, ge=1, le=MAX_CONCURRENCY,
        description="matches submitted at once (default: concurrency)",
    )
    judges: int | None = Field(
        default=None, ge=1, le=MAX_ENTRIES,
        description="judge actors (default: one per GPU, at least one)",
    )
    judge_gpus: float | None = Field(
        default=None, ge=0, le=MAX_ENTRIES,
        description="GPUs per judge actor (default: 1 if the cluster has any)",
    )
    judge_resources: dict[str, float] = Field(
        default_factory=dict, description="custom resources each judge actor requires"
    )
    match_retries: int = Field(
        default=3, ge=0, le=100,
        description="replays after a transient player error or a lost worker",
    )
    match_cpus: float = Field(
        default=1.0, gt=0, le=MAX_ENTRIES,
        description="CPUs each match task reserves (below 1: several per core)",
    )


NORMALISATIONS = ("catch-up", "narms", "reference", "benchmark")
# benchmark: the published Xent benchmark's leaderboard score (ratings/normalisation_benchmark)
Normalisation = Literal["catch-up", "narms", "reference", "benchmark"]


class NormalisationConfig(_Strict):
    """How `arena scores` normalises this tournament (SCORING.md section 3)."""

    method: Normalisation = Field(
        default="catch-up", description="catch-up, narms (paper Definition 42) or reference"
    )
    theta: float = Field(default=1.0, gt=0, description="narms: bits between levels")
    m: int = Field(default=2, ge=1, le=MAX_ROUNDS, description="narms: number of levels")


LIMIT_CEILING = 2**62  # the largest value of a [limits] entry: "no limit", yet storable


def _limit_sizes(value: object) -> object:
    if isinstance(value, Mapping):
        big = [k for k, v in value.items() if isinstance(v, int) and v > LIMIT_CEILING]
        if big:
            raise ValueError(
                f"{big[0]} must be at most {LIMIT_CEILING} (2^62, already no limit at all); "
                f"write e.g. {big[0]} = 1000000000"
            )
    return value


def _normalisation_setting(value: object) -> object:
    return {"method": value} if isinstance(value, str) else value


class TournamentConfig(_Strict):
    name: str = Field(pattern=NAME_RE.pattern)
    mode: Mode = "eval"
    judge: str = "ngram"
    stories: str = JUDGE_STORIES
    base: str | None = None
    normalisation: NormalisationConfig = Field(default_factory=NormalisationConfig)
    seed: int = Field(default=0, ge=-(2**63), le=2**63 - 1)  # stored as a 64-bit integer
    untrusted_entrants: bool = False
    rounds: int = Field(default=1, ge=1, le=MAX_ROUNDS)
    maps: int = Field(default=1, ge=1, le=MAX_MAPS)
    npc: str | dict[str, str] | None = None
    move_timeout: float = Field(default=300.0, gt=0, le=86_400)
    move_retries: int = Field(default=2, ge=0, le=100)
    # None: each game's dialect decides (10 per player in xgl; per ensure line in xent).
    ensure_budget: int | None = Field(default=None, ge=0, le=1_000_000)
    instruction_budget: int = Field(default=10_000, ge=1, le=1_000_000_000)
    limits: ResourceLimits = Field(default_factory=ResourceLimits)
    concurrency: ConcurrencyConfig = Field(default_factory=ConcurrencyConfig)
    executor: str = Field(default="local", description="'local' or 'ray' (or a plugin's)")
    ray: RayConfig = Field(default_factory=RayConfig)
    participants: list[ParticipantConfig] = Field(min_length=1, max_length=MAX_ENTRIES)
    games: list[GameConfig] = Field(min_length=1, max_length=MAX_ENTRIES)
    # which planned match next (arena.tournaments.ratings.adaptive)
    pairing: Literal["round_robin", "adaptive"] = Field(
        default="round_robin",
        description="round_robin: every planned match, in balanced order; adaptive: the "
        "planned matches that shrink the ranking's uncertainty most first, new entrants "
        "placed with only the matches that place them",
    )
    # when a run has done enough (arena.tournaments.ratings.stopping); `stop_problems`
    stop_when: Literal["settled"] | None = Field(
        default=None, description="settled: stop once the ranking's intervals stop overlapping"
    )
    settle_top: int | None = Field(
        default=None, ge=1, le=MAX_ENTRIES, description="settled: only the best N (default all)"
    )
    confidence: float = Field(default=0.95, description="settled: the intervals' confidence")
    max_matches: int | None = Field(
        default=None, ge=1, le=MAX_MATCHES, description="stop once this many are stored"
    )
    budget_tokens: int | None = Field(
        default=None, ge=1, le=MAX_BUDGET_TOKENS, description="stop once players used this many"
    )
    budget_usd: float | None = Field(
        default=None, gt=0, le=MAX_BUDGET_USD,
        description="stop once players spent this much (litellm's prices)",
    )

    _base_dir: Path = PrivateAttr(default_factory=Path.cwd)
    # games = "scope:NAME": each scope game's (text, file name) by label, from the database
    _texts: dict[str, tuple[str, str]] = PrivateAttr(default_factory=dict)
    _npc = field_validator("npc", mode="before")(_npc_setting)
    _norm = field_validator("normalisation", mode="before")(_normalisation_setting)
    _limits = field_validator("limits", mode="before")(_limit_sizes)
    _specs = field_validator("judge", "stories")(check_spec)

    @field_validator("confidence")
    @classmethod
    def _confidence(cls, value: float) -> float:
        if not 0.5 <= value <= 0.999:
            raise ValueError(
                "is the share of intervals that should hold the true rating: a number from "
                "0.5 to 0.999; write e.g. confidence = 0.95"
            )
        return value

    @property
    def base_dir(self) -> Path:
        """The directory relative game paths are resolved from (the file's directory)."""
        return self._base_dir

    def game_text(self, label: str) -> tuple[str, str] | None:
        """(text, file name) of a game that came from a scope (`games = "scope:NAME"`)."""
        return self._texts.get(label)

    def participant(self, name: str) -> ParticipantConfig:
        for p in self.participants:
            if p.name == name:
                return p
        raise KeyError(name)

    def npcs_for(self, game: GameConfig) -> dict[str, str] | str | None:
        """The NPC setting of a game: its own, else the tournament's."""
        return game.npc if game.npc is not None else self.npc

    def to_toml(self, comments: Sequence[str] = ()) -> str:
        """The tournament file of this config: the settings that were given (defaults
        left out), written by a TOML writer, so that no value can add a line or a table;
        `comments` (fixed text of the caller, one line each) go first as `#` lines."""
        import tomli_w

        for line in comments:
            if "\n" in line or "\r" in line:
                raise ValueError("a comment of a tournament file is one line")
        data = self.model_dump(mode="json", by_alias=True, exclude_unset=True)
        head = "".join(f"# {line}\n" if line else "#\n" for line in comments)
        return head + ("\n" if head else "") + tomli_w.dumps(data)


FIELDS: dict[str, tuple[str, ...]] = {
    "": tuple(f.alias or n for n, f in TournamentConfig.model_fields.items()),
    "games": tuple(GameConfig.model_fields),
    "participants": tuple(ParticipantConfig.model_fields),
    "concurrency": tuple(f.alias or n for n, f in ConcurrencyConfig.model_fields.items()),
    "limits": LIMIT_NAMES,
    "ray": tuple(RayConfig.model_fields),
}


def parse_tournament(
    data: Mapping[str, Any],
    source: str = "tournament file",
    base_dir: Path | None = None,
    registry: Registry | None = None,
    db: DatabaseRef = None,
) -> TournamentConfig:
    """Validate a parsed tournament document; raises `TournamentConfigError` with every
    problem (field errors and cross-references) at once. With `registry`, a document that
    has field errors is also checked against the installed plugins (names, spec options,
    games), so the one listing holds everything to fix; a valid one is checked that way
    by `arena.tournaments.running.prepare`. `games = "scope:NAME"` reads the scope's games from `db`
    (a URL, None for the default database, or an open `Store`)."""
    problems: list[Problem] = []
    config: TournamentConfig | None = None
    try:
        expanded, from_scope = expand(data, db)
    except ArenaError as error:
        raise TournamentConfigError(
            source, [Problem("games", str(error), data.get("games"))]
        ) from None
    try:
        config = TournamentConfig.model_validate(expanded)
    except ValidationError as error:
        problems += from_validation_error(error, data, FIELDS)
    problems += reference_problems(data)
    if config is not None:
        problems += size_problems(config) + stop_problems(config)
    if (problems or config is None) and registry is not None:
        problems += registry_problems(data, registry, base_dir or Path.cwd())
    if problems or config is None:
        raise TournamentConfigError(source, problems)
    config._base_dir = base_dir or Path.cwd()
    config._texts = from_scope.texts if from_scope is not None else {}
    return config


def load_tournament(
    path: str | Path, registry: Registry | None = None, db: DatabaseRef = None
) -> TournamentConfig:
    """Read and validate a tournament file; game paths are relative to its directory.
    `registry`, `db`: see `parse_tournament`."""
    file = Path(path)
    try:
        if file.is_file() and file.stat().st_size > MAX_FILE_BYTES:
            raise TournamentConfigError(
                str(file),
                [Problem("(file)", f"is larger than {MAX_FILE_BYTES // 2**20} MiB; a "
                         "tournament file is a short TOML document", show_value=False)],
            )
        data_bytes = file.read_bytes()
    except OSError as error:
        raise TournamentConfigError(
            str(file), [Problem("(file)", f"cannot be read: {error.strerror}", str(file))]
        ) from None
    try:
        text = data_bytes.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise TournamentConfigError(
            str(file),
            [Problem("(file)", f"is not UTF-8 text (byte {error.start} cannot be decoded); "
                     "save it as UTF-8", show_value=False)],
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise TournamentConfigError(
            str(file), [Problem("(syntax)", f"is not valid TOML: {error}", show_value=False)]
        ) from None
    return parse_tournament(data, str(file), file.resolve().parent, registry, db)


def least_matches(config: TournamentConfig) -> int:
    """A lower bound on the matches the file plans, known before any game is loaded: every
    entrant plays at least one role of every game on every map (eval), or at least every
    ordered pair meets on every map, unless max_matches caps it (head-to-head)."""
    n = sum(not p.npc_only for p in config.participants)
    total = 0
    for game in config.games:
        maps = game.maps or config.maps
        if config.mode == "eval":
            total += maps * n
        else:
            total += game.max_matches or maps * n * (n - 1)
    return total


def size_problems(config: TournamentConfig) -> list[Problem]:
    """A tournament too big to plan: refused at load, before planning runs out of memory."""
    least = least_matches(config)
    if least <= MAX_MATCHES:
        return []
    return [
        Problem(
            "(size)",
            f"plans at least {least:,} matches, over the maximum of {MAX_MATCHES:,}; lower "
            "maps, or the number of games or participants, or split the tournament",
            show_value=False,
        )
    ]


def stop_problems(config: TournamentConfig) -> list[Problem]:
    """Stopping keys that cannot work together: settle_top or confidence without
    stop_when = "settled", a settle_top above the number of entrants."""
    problems = []
    if config.stop_when != "settled":
        for key in SETTLE_KEYS:
            if key in config.model_fields_set:
                problems.append(Problem(
                    key,
                    'applies only when the run stops once settled; add stop_when = "settled" '
                    f"or remove {key}",
                    getattr(config, key),
                ))
    entrants = sum(not p.npc_only for p in config.participants)
    if config.settle_top is not None and config.settle_top > entrants:
        problems.append(Problem(
            "settle_top",
            f"is more than the {entrants} rated participant(s); write at most "
            f"settle_top = {entrants}, or leave it out to settle them all",
            config.settle_top,
        ))
    return problems


def reference_problems(data: Mapping[str, Any]) -> list[Problem]:
    """Names that must refer to participants, and names that must be unique."""
    problems: list[Problem] = []
    raw = data.get("participants")
    people = [p for p in raw if isinstance(p, Mapping)] if isinstance(raw, list) else []
    names = [p.get("name") for p in people]
    known = {n for n in names if isinstance(n, str)}
    seen: set[str] = set()
    for i, name in enumerate(names):
        if isinstance(name, str) and name in seen:
            problems.append(
                Problem(
                    key_path(("participants", i, "name"), data),
                    "this name is already taken by another participant; rename one of them",
                    name,
                )
            )
        if isinstance(name, str):
            seen.add(name)

    def check(loc: tuple[int | str, ...], value: object) -> None:
        if isinstance(value, str) and value not in known:
            problems.append(
                Problem(
                    key_path(loc, data),
                    f"unknown participant '{value}'.{did_you_mean(value, known)} "
                    "Add it under [[participants]] or fix the name.",
                    value,
                )
            )

    def check_npc(loc: tuple[int | str, ...], setting: object) -> None:
        if isinstance(setting, Mapping):
            for role, who in setting.items():
                check((*loc, str(role)), who)
        else:
            check(loc, setting)

    check(("base",), data.get("base"))
    check_npc(("npc",), data.get("npc"))
    games = data.get("games")
    labels: dict[str, int] = {}
    for i, game in enumerate(games if isinstance(games, list) else []):
        if not isinstance(game, Mapping):
            continue
        check_npc(("games", i, "npc"), game.get("npc"))
        target = game.get("game")
        label = game.get("name") or (Path(target).stem if isinstance(target, str) else None)
        if isinstance(label, str) and label in labels:
            problems.append(
                Problem(
                    key_path(("games", i, "game"), data),
                    f"the game '{label}' is already games[{labels[label]}]; give one of them "
                    'another label with name = "..."',
                    game.get("game"),
                )
            )
        elif isinstance(label, str):
            labels[label] = i
    return problems
