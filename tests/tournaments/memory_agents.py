"""Agents for the map-memory attack (issue 24, item 3): an honest describer and one that
remembers every text revealed to it in any seat and, as the guessing seat, answers with the
remembered text that best matches what it is shown.

A tournament that seated an entrant on one map in two seats with different information
would let `remembering` guess the hidden story it saw in the other seat. The agents are a
real player plugin, registered exactly as an installed one is.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_manager import create_plugin_manager
from arena.plugins.plugin_types import PlayerContext, PlayerEntry
from arena.plugins.registry import Registry
from arena.protocols.player import MoveRequest
from arena.specs import Spec

# memory name -> every text revealed to that agent, in any seat, in any match
MEMORY: dict[str, set[str]] = {}


def _words(text: str) -> set[str]:
    return set(text.lower().split())


class Describer:
    """Shown a story, answers with its first `words` words; shown a description, answers
    with the description (an honest partner in describe_to_partner)."""

    def __init__(self, words: int, memory: str) -> None:
        self._words, self._memory = words, memory

    @property
    def name(self) -> str:
        return "describer"

    def _answer(self, shown: str) -> str:
        return " ".join(shown.split()[: self._words])

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        shown = request.reveals[-1].value if request.reveals else ""
        if self._memory:
            MEMORY.setdefault(self._memory, set()).update(r.value for r in request.reveals)
        return {r: self._answer(shown) or "the" for r in request.registers}


class Remembering(Describer):
    """A describer that, shown a short description, answers with the longest remembered
    text holding every word of it (the story it saw on this map in another seat, when the
    plan allowed that), else as the honest describer does."""

    @property
    def name(self) -> str:
        return "remembering"

    def _answer(self, shown: str) -> str:
        words = _words(shown)
        fits = [t for t in MEMORY.get(self._memory, set()) if words < _words(t)]
        return max(fits, key=lambda t: (len(t), t)) if fits else super()._answer(shown)


def _create(kind: type[Describer]):  # type: ignore[no-untyped-def]
    def create(spec: Spec, ctx: PlayerContext) -> Describer:
        spec.expect_params({"words", "memory"}, "player")
        return kind(spec.int_param("words", 3), str(spec.params.get("memory", "")))

    return create


@hookimpl
def arena_players() -> list[PlayerEntry]:
    return [
        PlayerEntry("describer", _create(Describer), "test player: first words of a story"),
        PlayerEntry("remembering", _create(Remembering), "test player: remembers stories"),
    ]


def registry() -> Registry:
    """The installed plugins plus these agents."""
    pm = create_plugin_manager()
    pm.register_plugin(sys.modules[__name__], "map_memory_agents")
    return Registry.from_plugin_manager(pm)
