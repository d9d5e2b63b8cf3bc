"""The built-in meta-samplers, registered through the same `arena_samplers` hook as a
third-party plugin's. (The model-driven `llm:<model>` sampler is registered by the players
plugin, which owns the model back ends.)"""

from __future__ import annotations

from arena.gamespace.sampling.mutate import DEFAULT_ATTEMPTS, MAX_DEPTH, make_mutate
from arena.gamespace.sampling.mutations import OPERATORS
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_types import SamplerEntry
from arena.spec_params import Param, SpecParams

MUTATE_PARAMS = SpecParams(params=(
    Param("ops", "str", help=f"comma-separated operators from {' '.join(OPERATORS)} (default all)"),
    Param("depth", "int", 1, "mutations per candidate", minimum=1, maximum=MAX_DEPTH),
    Param("attempts", "int", DEFAULT_ATTEMPTS, "tries per candidate", minimum=1, maximum=1000),
))


@hookimpl
def arena_samplers() -> list[SamplerEntry]:
    return [
        SamplerEntry(
            "mutate",
            make_mutate,
            "Seeded grammar-aware mutations of the game's syntax tree, each checked",
            params=MUTATE_PARAMS,
        )
    ]
