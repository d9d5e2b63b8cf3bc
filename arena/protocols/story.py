"""Where map texts come from: `story()` call sites are resolved once per map, before play.

A story source is pluggable (judge sampling, a corpus file, an LLM). It must be a pure
function of the request: the same seed gives the same text, in any process.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class StoryRequest:
    """One `story(...)` call site of a game, to be resolved for one map."""

    site: str  # "line:col" of the call in the game source
    length: int | None  # `story(n)`: about n tokens; None for the source's default
    instruction: str | None  # `story("instruction")`
    seed: int  # derived from the map seed and the site


@runtime_checkable
class StorySource(Protocol):
    """Produces map texts. Deterministic given each request's seed."""

    @property
    def name(self) -> str: ...

    async def stories(self, requests: Sequence[StoryRequest]) -> list[str]: ...


@runtime_checkable
class MapBoundStorySource(StorySource, Protocol):
    """A source whose texts belong to named maps (the published benchmark's maps.json):
    the run asks it, through `for_map`, for the source of one map of one game before
    resolving that map, so a map's texts never depend on which maps were made first."""

    def for_map(self, game: str, index: int) -> StorySource: ...
