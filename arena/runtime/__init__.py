"""Playing games (XGL.md sections 4-8): maps, seats, rounds and matches. Most callers want
`arena.match_setup.build_match`, which assembles these; `simulate_move` lets a player value
a candidate move from its own information set.

The names below are loaded on first use, so importing one module of the package does not
import the whole runtime.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.runtime.maps import GameMap, resolve_map
    from arena.runtime.match import (
        MatchConfig,
        MatchResult,
        SeatScore,
        active_players,
        play_match,
    )
    from arena.runtime.round import RoundLimits
    from arena.runtime.seat import MovePolicy, Seat
    from arena.runtime.simulate import Simulation, simulate_move

_HOMES = {
    "GameMap": "arena.runtime.maps",
    "resolve_map": "arena.runtime.maps",
    "MatchConfig": "arena.runtime.match",
    "MatchResult": "arena.runtime.match",
    "SeatScore": "arena.runtime.match",
    "active_players": "arena.runtime.match",
    "play_match": "arena.runtime.match",
    "RoundLimits": "arena.runtime.round",
    "MovePolicy": "arena.runtime.seat",
    "Seat": "arena.runtime.seat",
    "Simulation": "arena.runtime.simulate",
    "simulate_move": "arena.runtime.simulate",
}
__all__ = [
    "GameMap",
    "MatchConfig",
    "MatchResult",
    "MovePolicy",
    "RoundLimits",
    "Seat",
    "SeatScore",
    "Simulation",
    "active_players",
    "play_match",
    "resolve_map",
    "simulate_move",
]


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'arena.runtime' has no attribute {name!r}")
