"""Size checks on game text, run before (or instead of) tokenizing it.

A line over the limit is never tokenized: the hand-written lexer would otherwise spend
seconds and hundreds of megabytes on a multi-megabyte line. A string literal over the
limit is located with one regular-expression scan so that the caret points at it.
"""

from __future__ import annotations

import re

from arena.errors import Diagnostic
from arena.lang.lexer import Token, XGLSyntaxProblem
from arena.lang.limits import ResourceLimits, raise_hint

# A string literal (possibly unterminated) or the start of a comment, scanned in C.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_LITERAL_OR_COMMENT = re.compile(r""""(?:[^"\\]+|\\.?)*"?|'(?:[^'\\]+|\\.?)*'?|#""")


def check_line_size(text: str, limits: ResourceLimits) -> None:
    """Raise XGLSyntaxProblem if the line, or a string literal on it, is over its limit,
    or if it holds a lone surrogate (text no database or console can store)."""
    surrogate = LONE_SURROGATE.search(text)
    if surrogate is not None:
        raise XGLSyntaxProblem(
            surrogate.start(),
            surrogate.end(),
            f"this line holds a lone surrogate (U+{ord(surrogate.group()):04X}), which is not "
            "text",
            "save the game as UTF-8 and write whole characters",
        )
    if len(text) <= limits.max_line_chars:
        return
    for match in _LITERAL_OR_COMMENT.finditer(text):
        if match.group() == "#":
            break
        literal = _literal_problem(match.start(), match.end(), limits)
        if literal is not None:
            raise literal
    raise XGLSyntaxProblem(
        limits.max_line_chars,
        len(text),
        limits.exceeded("max_line_chars", "this line", len(text)),
        "split it over several lines; " + raise_hint("max_line_chars"),
    )


def check_literals(tokens: list[Token], limits: ResourceLimits) -> None:
    """Raise XGLSyntaxProblem for the first string literal over its limit."""
    for token in tokens:
        if token.kind == "str":
            problem = _literal_problem(token.col, token.end_col, limits)
            if problem is not None:
                raise problem


def _literal_problem(col: int, end_col: int, limits: ResourceLimits) -> XGLSyntaxProblem | None:
    # Counted in source characters between the quotes: an escape such as \n counts 2.
    length = max(0, end_col - col - 2)
    if length <= limits.max_literal_chars:
        return None
    return XGLSyntaxProblem(
        col,
        end_col,
        limits.exceeded("max_literal_chars", "this string literal", length),
        "long texts belong in story() or in a move; " + raise_hint("max_literal_chars"),
    )


def source_size_diagnostic(
    source: str, filename: str, limits: ResourceLimits
) -> Diagnostic | None:
    """A diagnostic at the line where the source crosses max_source_chars, or None.

    Found without splitting or copying the source: it may be gigabytes. When a string
    literal over its own limit spans the crossing point, the caret points at it."""
    limit = limits.max_source_chars
    if len(source) <= limit:
        return None
    line = source.count("\n", 0, limit) + 1
    start = source.rfind("\n", 0, limit) + 1
    end = source.find("\n", limit)
    end = len(source) if end < 0 else end
    text = source[start : min(end, limit + _SHOWN_AFTER)].removesuffix("\r")
    message = limits.exceeded("max_source_chars", "the game source", len(source))
    literal = _literal_across(source, start, end, limit, limits)
    if literal is None:
        col, end_col = limit - start, limit - start + 1
        hint = f"a game has at most 64 short lines; {raise_hint('max_source_chars')}"
    else:
        col, end_col = literal[0] - start, literal[1] - start
        length = max(0, literal[1] - literal[0] - 2)
        literal_message = limits.exceeded("max_literal_chars", "this string literal", length)
        message = f"{literal_message}; {message}"
        hint = (
            "long texts belong in story() or in a move; if the game really needs it, raise "
            "max_literal_chars and max_source_chars under [limits] in the tournament file, or "
            "with `arena play --limit NAME=N`"
        )
    return Diagnostic(filename, line, col, max(end_col, col + 1), message, text, hint)


_SHOWN_AFTER = 1_000  # characters of the crossing line kept past the limit, for display


def _literal_across(
    source: str, start: int, end: int, point: int, limits: ResourceLimits
) -> tuple[int, int] | None:
    """The columns of a string literal over its limit that spans `point`, if any."""
    for match in _LITERAL_OR_COMMENT.finditer(source, start, end):
        if match.start() > point or match.group() == "#":
            return None
        if match.end() > point:
            too_long = match.end() - match.start() - 2 > limits.max_literal_chars
            return (match.start(), match.end()) if too_long else None
    return None
