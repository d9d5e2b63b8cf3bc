"""The built-in meta-samplers, registered through the same `arena_samplers` hook as a
third-party plugin's."""

from __future__ import annotations

from arena.gamespace.mutate import make_mutate
from arena.hookspecs import hookimpl
from arena.plugin_types import SamplerEntry


@hookimpl
def arena_samplers() -> list[SamplerEntry]:
    return [
        SamplerEntry(
            "mutate",
            make_mutate,
            "Seeded grammar-aware mutations of the game's syntax tree, each checked",
            "ops=<op,op...> (length register reward reveal player condition story); "
            "depth=<mutations per candidate>; attempts=<tries per candidate>",
        )
    ]
