"""The XGL language (XGL.md): parse and check a game with `load_game`, read its comment
header with `read_header`; the tree is `arena.lang.ast`. Game text is never run as Python.

The names below are loaded on first use, so importing one module of the package does not
import the whole language.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.lang.ast import DIALECTS, Dialect, Program
    from arena.lang.header import GameHeader, read_header
    from arena.lang.loader import load_game

_HOMES = {
    "DIALECTS": "arena.lang.ast",
    "Dialect": "arena.lang.ast",
    "Program": "arena.lang.ast",
    "GameHeader": "arena.lang.header",
    "read_header": "arena.lang.header",
    "load_game": "arena.lang.loader",
}
__all__ = ["DIALECTS", "Dialect", "GameHeader", "Program", "load_game", "read_header"]


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'arena.lang' has no attribute {name!r}")
