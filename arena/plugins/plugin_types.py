"""What plugins register: one frozen entry type per hook (see `arena.plugins.hookspecs`).

Kept apart from the registry so that plugin modules import only these small types and
`arena.plugins.hookspecs.hookimpl`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING

from arena.errors import PluginError
from arena.lang.header import dialect_of, read_header
from arena.protocols.judge import Judge
from arena.protocols.people import PeopleDesk
from arena.protocols.player import Player
from arena.protocols.story import StorySource
from arena.spec_params import SpecParams
from arena.specs import NAME_RE, Spec

if TYPE_CHECKING:  # type-only: the registry imports these entry types
    from arena.plugins.registry import Registry


@dataclass(frozen=True)
class PlayerContext:
    """What the arena gives a player factory besides the spec.

    Attributes:
        judge: the match's judge (for players that search with it), or None.
        seed: a seed for the seat in this match; players use it for reproducible randomness.
            Keyed with the organiser's secret seed key: it says nothing about map seeds.
        role: the seat the player takes, e.g. "black" or "alice".
        desk: where a seat played by a person asks for its moves (the play server's, lent
            through `Registry.with_desk`), or None outside a play server.
    """

    judge: Judge | None = None
    seed: int = 0
    role: str = ""
    desk: PeopleDesk | None = None


PlayerFactory = Callable[[Spec, PlayerContext], Player]
JudgeFactory = Callable[[Spec], Judge]
StorySourceFactory = Callable[[Spec, Judge | None], StorySource]
SpecCheck = Callable[[Spec], object]
ExecutorFactory = Callable[[], object]


def check_name(kind: str, name: object) -> str:
    """Return `name` if it is a valid registered name, else raise `PluginError`."""
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise PluginError(
            f"Invalid {kind} name {name!r}: use letters, digits, '_', '-' and '.' only."
        )
    return name


@dataclass(frozen=True)
class PlayerEntry:
    """A player kind: `factory(spec, ctx)` builds one player for one seat of one match (for
    an NPC seat, one per round: NPCs start every round without memory).

    Attributes:
        name: the spec name, e.g. "random" for `random?words=5`.
        factory: builds the player; raises `ConfigError` for a bad spec.
        description: one line for `arena plugins`.
        params: the declared ':' argument and parameters (`arena.spec_params`); the registry
            validates every spec against them before `check` or the factory, and
            `arena plugins` renders their docs (None: undeclared, nothing checked up front).
        check: validates what the declaration cannot (a model folder exists, an environment
            variable is set, ...) without building anything, raising `ConfigError` like the
            factory would; tournament files are checked with it before anything runs.
    """

    name: str
    factory: PlayerFactory
    description: str = ""
    params: SpecParams | None = None
    check: SpecCheck | None = None


@dataclass(frozen=True)
class JudgeEntry:
    """A judge kind: `factory(spec)` builds a judge (loading weights lazily is advised);
    `params` declares its spec and `check(spec)`, if given, validates the rest without
    loading anything (see PlayerEntry)."""

    name: str
    factory: JudgeFactory
    description: str = ""
    params: SpecParams | None = None
    check: SpecCheck | None = None


@dataclass(frozen=True)
class ExecutorEntry:
    """An engine that plays a tournament's pending matches (`local`, `ray`, ...):
    `factory()` returns an object with the `arena.protocols.executor.Executor`
    interface.
    The factory imports its engine lazily and raises `ConfigError` naming what to install
    when that engine is missing."""

    name: str
    factory: ExecutorFactory
    description: str = ""


@dataclass(frozen=True)
class StorySourceEntry:
    """A story source kind: `factory(spec, judge)` builds a source of map texts; `params`
    declares its spec (see PlayerEntry)."""

    name: str
    factory: StorySourceFactory
    description: str = ""
    params: SpecParams | None = None


SamplerFactory = Callable[[Spec], object]  # returns an arena.protocols.sampler.MetaSampler


@dataclass(frozen=True)
class SamplerEntry:
    """A meta-sampler kind: `factory(spec)` builds a proposer of candidate games.

    `params` declares its spec (see PlayerEntry; the registry validates a spec against it
    before the factory runs); `params_doc` is free text for an undeclared entry."""

    name: str
    factory: SamplerFactory
    description: str = ""
    params_doc: str = ""
    params: SpecParams | None = None


# returns an arena.protocols.finetune.FineTuner; the registry builds the other roles' players
FineTunerFactory = Callable[[Spec, "Registry"], object]


@dataclass(frozen=True)
class FineTunerEntry:
    """A fine-tuning mechanism: `factory(spec, registry)` builds a tuner (e.g.
    ``reinforce?lr=1e-4``) that builds the players of a game's other roles with `registry`
    (the one that created it); `params` declares its spec (see PlayerEntry), validated
    before the factory runs."""

    name: str
    factory: FineTunerFactory
    description: str = ""
    params: SpecParams | None = None


@dataclass(frozen=True)
class GameEntry:
    """A game's source text and metadata.

    Attributes:
        name: the game's name (usually the file stem).
        source: the full program text.
        filename: the file name used in diagnostics, e.g. "condense.xgl".
        dialect: "xgl", "xent" or a version ("xent@2025-09"); None lets the language layer
            decide from the text.
        version: bumped when the game changes in a way that changes scores.
        description: what the game measures, one line.
    """

    name: str
    source: str
    filename: str
    dialect: str | None = None  # its name, version included (arena.lang.dialects)
    version: str = "1"
    description: str = ""

    @classmethod
    def from_source(cls, source: str, filename: str, name: str | None = None) -> GameEntry:
        """Build an entry from a game text, reading its header with the one header reader
        (`arena.lang.header`), so an entry's dialect is the one every loader finds.

        Used header lines: the ``# dialect: xgl|xent`` pragma, ``# version: X`` and
        ``# measures: ...``. The description is the ``measures`` line, else the title. The
        dialect defaults to the file extension; an unknown pragma name is left for the
        loader to report (dialect None).
        """
        header = read_header(source)
        path = PurePath(filename)
        dialect = None if header.pragmas and header.dialect is None else dialect_of(
            header, path.name
        )
        return cls(
            name=check_name("game", name if name is not None else path.stem),
            source=source,
            filename=path.name,
            dialect=dialect,
            version=header.get("version") or "1",
            description=header.get("measures") or header.title,
        )
