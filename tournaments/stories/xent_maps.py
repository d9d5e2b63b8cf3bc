"""The `xent-maps` story source: the fixed maps of a published Xent benchmark.

`arena import --format xent-config` writes a maps file beside the tournament file::

    {"format": "xent-maps", "games": {"Condense": [{"name": "gameCondense_map0",
                                                    "stories": ["<text of story() 1>", ...]}]}}

Map index i of a game plays the game's i-th published map: the executor binds the source to
each (game, map index) through `for_map` before resolving it, so the texts do not depend on
seeds, and the stored map's source name carries the published map seed as its name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ConfigError
from arena.protocols.story import StoryRequest
from arena.specs import Spec

__all__ = ["FORMAT", "MapText", "XentMapsSource", "load_maps", "make_source"]

FORMAT = "xent-maps"
NAME = "xent-maps"


@dataclass(frozen=True)
class MapText:
    """One published map: its seed (used as its name) and its story() texts in code order."""

    name: str
    stories: tuple[str, ...]


def load_maps(path: Path) -> dict[str, list[MapText]]:
    """The maps per game label of a maps file; ConfigError with one sentence when unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(
            f"Cannot read the maps file '{path}' ({error.strerror}). Write the path of the "
            "maps.json that `arena import --format xent-config` wrote, e.g. "
            "xent-maps:out/maps.json."
        ) from None
    except json.JSONDecodeError as error:
        raise ConfigError(
            f"The maps file '{path}' is not JSON ({error.msg} at line {error.lineno}). "
            "Import the config again with `arena import --format xent-config`."
        ) from None
    games = data.get("games") if isinstance(data, Mapping) else None
    if not isinstance(data, Mapping) or data.get("format") != FORMAT or not isinstance(
        games, Mapping
    ):
        raise ConfigError(
            f"The maps file '{path}' is not a '{FORMAT}' file (it needs \"format\": "
            f"\"{FORMAT}\" and \"games\"). Import the config again with `arena import "
            "--format xent-config`."
        )
    return {
        str(game): [MapText(str(m["name"]), tuple(str(s) for s in m["stories"])) for m in maps]
        for game, maps in games.items()
    }


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
                "by `arena run` on a tournament file that `arena import` wrote."
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
            f"Story source '{spec.raw}' needs the maps file, e.g. xent-maps:bench/maps.json."
        )
    return XentMapsSource(load_maps(Path(spec.arg)))
