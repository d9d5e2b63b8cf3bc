"""XGL parser: game text -> `Program` of `Instruction`s, with an exact span on every node.

Splits the text into lines, reads the header (`arena.lang.header`: dialect pragma and
description), and parses each line with `arena.lang.line_parser`, collecting every problem
before reporting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.errors import Diagnostic, GameSyntaxError, UnknownNameError, did_you_mean
from arena.lang.ast import INSTRUCTIONS, Call, Dialect, Instruction, Program
from arena.lang.dialects import DIALECT_NAMES, dialect_rules
from arena.lang.header import dialect_of, header_diagnostics, read_header, split_lines
from arena.lang.lexer import XGLSyntaxProblem
from arena.lang.limits import DEFAULT_LIMITS, ResourceLimits
from arena.lang.line_parser import (
    INSTRUCTION_NAMES,
    LINE_HINT,
    MAX_DEPTH,
    MAX_LINES,
    MAX_NESTING,
    parse_line,
)
from arena.lang.names import FUNCTIONS
from arena.lang.source_limits import source_size_diagnostic

__all__ = [
    "MAX_DEPTH",
    "MAX_LINES",
    "MAX_NESTING",
    "ParseResult",
    "detect_dialect",
    "parse_line",
    "parse_program",
    "parse_source",
    "split_lines",
]

@dataclass(frozen=True)
class ParseResult:
    """A program built from the lines that parsed, plus the problems on the others."""

    program: Program
    diagnostics: tuple[Diagnostic, ...]
    # Lines that hold code but yielded no instruction -> the instruction name the line
    # seems to start with ("" if none can be read), so the checker can tell which
    # instructions may be missing.
    unparsed_lines: dict[int, str]



_APPARENT_NAME = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def detect_dialect(source: str, filename: str = "<game>", dialect: str | None = None) -> str:
    """The dialect of a game (its name, version included): `dialect` if given, else the
    header's `# dialect: NAME` pragma, else the file extension (`.xent` -> xent, anything
    else -> xgl); see `arena.lang.header`.

    Raises UnknownNameError for a name that is no dialect (`arena.lang.dialects`)."""
    header = read_header(source)
    if dialect is None and header.pragmas and header.dialect is None:
        fix = "Write '# dialect: xgl' or '# dialect: xent' (or a version such as xent@2025-09)."
        raise UnknownNameError("dialect", header.pragmas[0].name, DIALECT_NAMES, fix)
    return dialect_of(header, filename, dialect)


def _family_and_version(name: str) -> tuple[Dialect, str]:
    rules = dialect_rules(name)
    assert rules is not None, name  # dialect_of only returns known names
    return rules.family, rules.name.partition("@")[2]


def _unknown_instruction(call: Call, filename: str, text: str) -> Diagnostic:
    name = call.func
    if name in FUNCTIONS:
        hint = f"'{name}' is a function, not an instruction: use it inside one, e.g. "
        hint += "reward(xed(s | t))" if name in ("xent", "xed", "nex", "dex") else "assign(...)"
    else:
        hint = LINE_HINT
    span = call.func_span
    return Diagnostic(
        filename,
        span.line,
        span.col,
        span.end_col,
        f"Unknown instruction '{name}'.{did_you_mean(name, INSTRUCTIONS)}",
        text,
        hint,
    )


def parse_source(
    source: str,
    filename: str = "<game>",
    dialect: str | None = None,
    limits: ResourceLimits = DEFAULT_LIMITS,
) -> ParseResult:
    """Parse every line; never raises for bad game text (problems become diagnostics).

    Raises UnknownNameError only for an unknown explicit `dialect` argument."""
    oversized = source_size_diagnostic(source, filename, limits)
    if oversized is not None:  # neither split nor parsed: it may be gigabytes
        chosen = dialect_of(read_header(source[: limits.max_source_chars]), filename, dialect)
        family, version = _family_and_version(chosen)
        empty = Program((), "", family, filename, 0, (), version)
        return ParseResult(empty, (oversized,), {})
    lines = split_lines(source)
    header = read_header(source)
    chosen = dialect_of(header, filename, dialect)
    diagnostics = header_diagnostics(header, filename)
    instructions: list[Instruction] = []
    unparsed: dict[int, str] = {}
    for number, text in enumerate(lines, start=1):
        try:
            call = parse_line(text, number, limits)
        except XGLSyntaxProblem as problem:
            where = problem.span(number)
            diagnostics.append(
                Diagnostic(
                    filename, number, where.col, where.end_col, problem.message, text, problem.hint
                )
            )
            apparent = _APPARENT_NAME.match(text)
            unparsed[number] = apparent.group(1) if apparent else ""
            continue
        if call is None:
            continue
        name = INSTRUCTION_NAMES.get(call.func)
        if name is None:
            diagnostics.append(_unknown_instruction(call, filename, text))
            unparsed[number] = call.func
            continue
        instructions.append(Instruction(name, call, number, text))
    if len(lines) > MAX_LINES:
        extra = lines[MAX_LINES]
        diagnostics.append(
            Diagnostic(
                filename,
                MAX_LINES + 1,
                0,
                max(1, len(extra)),
                f"the game has {len(lines)} lines; at most {MAX_LINES} are allowed",
                extra,
                "blank and comment lines count too: remove some, or assign several "
                "registers in one assign(...)",
            )
        )
    family, version = _family_and_version(chosen)
    program = Program(
        instructions=tuple(instructions),
        source=source,
        dialect=family,
        version=version,
        filename=filename,
        line_count=len(lines),
        header=header.lines,
    )
    ordered = tuple(sorted(diagnostics, key=lambda d: (d.line, d.col)))
    return ParseResult(program, ordered, unparsed)


def parse_program(
    source: str,
    filename: str = "<game>",
    dialect: str | None = None,
    limits: ResourceLimits = DEFAULT_LIMITS,
) -> Program:
    """Parse a game into a Program, or raise one GameSyntaxError listing every parse
    problem. Does not run the static checker (see `arena.lang.loader.load_game`)."""
    result = parse_source(source, filename, dialect, limits)
    if result.diagnostics:
        raise GameSyntaxError(result.diagnostics)
    return result.program
