"""The plugin module named by the `xent_arena` entry point: one hook, one player."""

from __future__ import annotations

from arena import Param, PlayerEntry, SpecParams, hookimpl
from arena_echo_player.player import create_echo_player


@hookimpl
def arena_players() -> list[PlayerEntry]:
    return [
        PlayerEntry(
            "echo",
            create_echo_player,
            "Repeats words it can see (example plugin).",
            SpecParams(params=(
                Param("words", "int", help="words per move (default: max_len)", minimum=1),
                Param("seed", "int", 0, "extra seed"),
            )),
        )
    ]
