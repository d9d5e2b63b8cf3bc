"""Load a game: parse it, check it, and report every problem in one GameSyntaxError."""

from __future__ import annotations

from arena.errors import GameSyntaxError
from arena.lang.ast import Program
from arena.lang.checker import check_program
from arena.lang.limits import DEFAULT_LIMITS, ResourceLimits
from arena.lang.parser import detect_dialect, parse_source

__all__ = ["detect_dialect", "load_game"]


def load_game(
    source: str,
    *,
    filename: str = "<game>",
    dialect: str | None = None,
    limits: ResourceLimits = DEFAULT_LIMITS,
) -> Program:
    """Parse and statically check a game, within the source limits of `limits`.

    Raises GameSyntaxError listing every parse and check problem (ordered by line, then
    column), or UnknownNameError for an unknown explicit `dialect`."""
    parsed = parse_source(source, filename, dialect, limits)
    diagnostics = list(parsed.diagnostics)
    diagnostics += check_program(
        parsed.program, unparsed_lines=parsed.unparsed_lines, limits=limits
    )
    if diagnostics:
        diagnostics.sort(key=lambda d: (d.line, d.col))
        raise GameSyntaxError(diagnostics)
    return parsed.program
