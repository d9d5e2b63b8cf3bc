"""The `xent-maps` story source: the fixed maps of a published Xent benchmark.

`arena import-benchmark` writes a maps file beside the tournament file (`MapsFile`, the one
model that writes and reads it)::

    {"format": "xent-maps", "games": {"Condense": [{"name": "gameCondense_map0",
                                                    "stories": ["<text of story() 1>", ...]}]}}

Map index i of a game plays the game's i-th published map: the executor binds the source to
each (game, map index) through `for_map` before resolving it, so the texts do not depend on
seeds, and the stored map's source name carries the published map seed as its name. In a
tournament file, a relative path is read from the file's folder.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from arena.errors import ConfigError
from arena.file_input import FileInputError, read_regular_file
from arena.protocols.story import StoryRequest
from arena.specs import NAME_RE, Spec, shorten

__all__ = ["FORMAT", "MapText", "MapsFile", "XentMapsSource", "load_maps", "make_source"]

FORMAT = "xent-maps"
NAME = "xent-maps"
MAX_MAPS_BYTES = 256 * 2**20  # benchmark 0.2's 60 maps take 0.2 MiB
MAX_NAME_CHARS = 200


@dataclass(frozen=True)
class MapText:
    """One published map: its seed (used as its name) and its story() texts in code order."""

    name: str
    stories: tuple[str, ...]


class PublishedMap(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=NAME_RE.pattern, max_length=MAX_NAME_CHARS)
    stories: list[str]


class MapsFile(BaseModel):
    """The maps file: each game's published maps, in the config's order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["xent-maps"] = "xent-maps"
    benchmark_id: str = ""
    games: dict[str, list[PublishedMap]]

    @classmethod
    def of(cls, benchmark_id: str, maps: Mapping[str, Sequence[MapText]]) -> MapsFile:
        return cls(
            benchmark_id=benchmark_id,
            games={
                game: [PublishedMap(name=m.name, stories=list(m.stories)) for m in found]
                for game, found in maps.items()
            },
        )

    def maps(self) -> dict[str, list[MapText]]:
        return {
            game: [MapText(m.name, tuple(m.stories)) for m in found]
            for game, found in self.games.items()
        }


def _reimport(path: Path, problem: str) -> ConfigError:
    return ConfigError(
        f"The maps file '{path}' {problem}. Write it again with `arena import-benchmark "
        "CONFIG --out FOLDER`."
    )


def load_maps(path: Path) -> dict[str, list[MapText]]:
    """The maps per game label of a maps file; ConfigError with one sentence when unreadable."""
    try:
        data = read_regular_file(path, MAX_MAPS_BYTES)
    except FileInputError as error:
        raise _reimport(path, str(error)) from None
    except OSError as error:
        raise ConfigError(
            f"Cannot read the maps file '{path}' ({error.strerror}). Write the path of the "
            "maps.json that `arena import-benchmark` wrote, e.g. xent-maps:maps.json (a "
            "relative path is read from the tournament file's folder)."
        ) from None
    try:
        # pydantic's parser: bounded nesting, and a lone surrogate (which no database
        # stores) is refused here rather than voiding every match of its map.
        document = MapsFile.model_validate_json(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the document"
        raise _reimport(
            path, f"is not a '{FORMAT}' file ({shorten(where)}: {first['msg']})"
        ) from None
    return document.maps()


class XentMapsSource:
    """Serves published map texts; unbound it refuses (a map needs its game and index)."""

    def __init__(self, maps: Mapping[str, Sequence[MapText]], label: str = "") -> None:
        self._maps = maps
        self._label = label
        self._bound: MapText | None = None

    @property
    def name(self) -> str:
        return f"{NAME}:{self._label}" if self._label else NAME

    def for_map(self, game: str, index: int) -> XentMapsSource:
        """This source serving map `index` of `game` (its name is the published map seed)."""
        maps = self._maps.get(game)
        if maps is None:
            raise ConfigError(
                f"The maps file has no maps of game '{game}' (it has: "
                f"{', '.join(sorted(self._maps)) or 'none'}). Name the game as in the config."
            )
        if not 0 <= index < len(maps):
            raise ConfigError(
                f"Game '{game}' has {len(maps)} published maps, map index {index} is beyond "
                f"them. Set maps = {len(maps)} or fewer for this game."
            )
        bound = XentMapsSource(self._maps, maps[index].name)
        bound._bound = maps[index]
        return bound

    async def stories(self, requests: Sequence[StoryRequest]) -> list[str]:
        if self._bound is None:
            raise ConfigError(
                "The xent-maps story source serves one published map at a time; it is used "
                "by `arena run` on a tournament file that `arena import-benchmark` wrote."
            )
        texts = self._bound.stories
        if len(texts) != len(requests):
            raise ConfigError(
                f"Published map '{self._bound.name}' has {len(texts)} stories but the game "
                f"asks for {len(requests)}. Play the game code the config carries."
            )
        return list(texts)


def make_source(spec: Spec, judge: object = None) -> XentMapsSource:
    """`xent-maps:PATH`: the maps file that the importer wrote."""
    if not spec.arg:
        raise ConfigError(
            f"Story source '{spec.raw}' needs the maps file, e.g. xent-maps:maps.json."
        )
    return XentMapsSource(load_maps(Path(spec.arg)))
