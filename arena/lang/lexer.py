"""Tokenizer for one XGL source line.

Written by hand so that game text never reaches Python's own tokenizer or compiler. Each
line is tokenized on its own: an instruction must fit on one line, and a problem on one
line must not hide the problems on the others.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from arena.lang.ast import Span

TokenKind = Literal["name", "keyword", "int", "str", "op", "end"]

# Python's hard keywords: recognised so that the parser can say precisely what is not XGL.
KEYWORDS: frozenset[str] = frozenset(
    {
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
        "continue", "def", "del", "elif", "else", "except", "finally", "for", "from",
        "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass",
        "raise", "return", "try", "while", "with", "yield",
    }
)  # fmt: skip

# Longest first, so that `//=` is not read as `//` then `=`.
_OPERATORS: tuple[str, ...] = (
    "**=", "//=", ">>=", "<<=", "...",
    "**", "//", "==", "!=", "<=", ">=", ":=", "->", "+=", "-=", "*=", "/=", "%=", "|=",
    "&=", "^=", "@=", "<<", ">>",
    "+", "-", "*", "/", "%", "|", "&", "^", "~", "<", ">", "=", "(", ")", "[", "]", "{",
    "}", ",", ":", ";", ".", "@",
)  # fmt: skip

_SIMPLE_ESCAPES: dict[str, str] = {
    "\\": "\\", "'": "'", '"': '"', "n": "\n", "t": "\t", "r": "\r",
    "a": "\a", "b": "\b", "f": "\f", "v": "\v",
}  # fmt: skip

_STRING_PREFIXES: dict[str, str] = {
    "f": "f-strings are not allowed in XGL",
    "r": "raw strings are not supported in XGL",
    "b": "byte strings are not XGL values",
    "u": "string prefixes are not supported in XGL",
}

MAX_INT_DIGITS = 18
_WHITESPACE = " \t\f"


@dataclass(frozen=True)
class Token:
    """One token: its kind, its exact source text, its columns and its value."""

    kind: TokenKind
    text: str
    col: int
    end_col: int
    value: str | int | None = None


class XGLSyntaxProblem(Exception):
    """A problem located on one line; the parser turns it into a Diagnostic."""

    def __init__(self, col: int, end_col: int, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.col, self.end_col = col, max(end_col, col + 1)
        self.message, self.hint = message, hint

    def span(self, line: int) -> Span:
        return Span(line, self.col, self.end_col)


def _is_name_start(ch: str) -> bool:
    return ch == "_" or ("a" <= ch <= "z") or ("A" <= ch <= "Z")


def _is_name_char(ch: str) -> bool:
    return _is_name_start(ch) or ("0" <= ch <= "9")


def _is_digit(ch: str) -> bool:
    return "0" <= ch <= "9"


def code_end(text: str) -> int:
    """Column where the code of a line ends: before a `#` comment (outside strings) and
    before trailing whitespace. Unterminated strings are left to the tokenizer."""
    i, quote = 0, ""
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            break
        i += 1
    end = min(i, len(text))
    while end > 0 and text[end - 1] in _WHITESPACE:
        end -= 1
    return end


def tokenize_line(text: str) -> list[Token]:
    """Tokens of one line, ending with an `end` token; raises XGLSyntaxProblem."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _WHITESPACE:
            i += 1
        elif ch == "#":
            break
        elif _is_name_start(ch):
            tok = _read_name(text, i)
            if tok.end_col < n and text[tok.end_col] in "'\"":
                _reject_prefixed_string(tok)
            tokens.append(tok)
            i = tok.end_col
        elif _is_digit(ch) or (ch == "." and i + 1 < n and _is_digit(text[i + 1])):
            tok = _read_number(text, i)
            tokens.append(tok)
            i = tok.end_col
        elif ch in "'\"":
            tok = _read_string(text, i)
            tokens.append(tok)
            i = tok.end_col
        else:
            tok = _read_operator(text, i)
            tokens.append(tok)
            i = tok.end_col
    end = code_end(text) if not tokens else tokens[-1].end_col
    tokens.append(Token("end", "", end, end))
    return tokens


def _read_name(text: str, start: int) -> Token:
    i = start + 1
    while i < len(text) and _is_name_char(text[i]):
        i += 1
    word = text[start:i]
    kind: TokenKind = "keyword" if word in KEYWORDS else "name"
    return Token(kind, word, start, i, word)


def _reject_prefixed_string(tok: Token) -> None:
    prefix = tok.text.lower()
    if set(prefix) <= set("fbru") and len(prefix) <= 2:
        key = "f" if "f" in prefix else "r" if "r" in prefix else "b" if "b" in prefix else "u"
        raise XGLSyntaxProblem(
            tok.col,
            tok.end_col + 1,
            f"{_STRING_PREFIXES[key]} ('{tok.text}' prefix)",
            'write a plain string literal and build text with +, e.g. "Story: " + s',
        )


def _read_number(text: str, start: int) -> Token:
    i = start
    while i < len(text) and _is_digit(text[i]):
        i += 1
    is_float = False
    if i < len(text) and text[i] == ".":
        is_float = True
        i += 1
        while i < len(text) and _is_digit(text[i]):
            i += 1
    if i < len(text) and text[i] in "eE":
        j = i + 1
        if j < len(text) and text[j] in "+-":
            j += 1
        if j < len(text) and _is_digit(text[j]):
            is_float = True
            i = j
            while i < len(text) and _is_digit(text[i]):
                i += 1
    # Swallow trailing name characters so that `0x1f`, `1_000` or `3j` get one caret.
    end = i
    while end < len(text) and (_is_name_char(text[end]) or text[end] == "."):
        end += 1
    literal = text[start:end]
    if is_float and end == i:
        raise XGLSyntaxProblem(
            start,
            end,
            f"floats are not XGL values: '{literal}'",
            "use an integer literal (lengths and counts are whole numbers); a reward is "
            "scaled by an integer, e.g. 2*xed(s|t)",
        )
    if end != i:
        raise XGLSyntaxProblem(
            start,
            end,
            f"invalid number literal '{literal}'",
            "XGL integers are plain decimal digits, e.g. 10",
        )
    if len(literal) > 1 and literal[0] == "0" and literal.strip("0"):
        raise XGLSyntaxProblem(
            start, end, f"leading zeros are not allowed in '{literal}'", "write it without them"
        )
    if len(literal) > MAX_INT_DIGITS:
        raise XGLSyntaxProblem(
            start,
            end,
            f"integer literal too large ({len(literal)} digits)",
            f"use at most {MAX_INT_DIGITS} digits",
        )
    return Token("int", literal, start, end, int(literal))


def _read_string(text: str, start: int) -> Token:
    quote = text[start]
    if text.startswith(quote * 3, start):
        raise XGLSyntaxProblem(
            start,
            start + 3,
            "triple-quoted strings are not supported in XGL",
            f"use a one-line string, e.g. {quote}text{quote}, with \\n for a newline",
        )
    out: list[str] = []
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch == quote:
            return Token("str", text[start : i + 1], start, i + 1, "".join(out))
        if ch == "\\":
            value, i = _read_escape(text, i)
            out.append(value)
        else:
            out.append(ch)
            i += 1
    raise XGLSyntaxProblem(
        start,
        len(text),
        "unterminated string literal",
        f"close the string with {quote} on the same line (write \\n for a newline)",
    )


def _read_escape(text: str, i: int) -> tuple[str, int]:
    """Decode the escape sequence starting at the backslash text[i]; (value, next index)."""
    if i + 1 >= len(text):
        raise XGLSyntaxProblem(
            i, i + 1, "a string cannot continue on the next line", "close it on this line"
        )
    ch = text[i + 1]
    if ch in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[ch], i + 2
    if ch in "01234567":
        j = i + 1
        while j < len(text) and j < i + 4 and text[j] in "01234567":
            j += 1
        return chr(int(text[i + 1 : j], 8)), j
    widths = {"x": 2, "u": 4, "U": 8}
    if ch in widths:
        digits = text[i + 2 : i + 2 + widths[ch]]
        if len(digits) == widths[ch] and all(c in "0123456789abcdefABCDEF" for c in digits):
            code = int(digits, 16)
            if 0xD800 <= code <= 0xDFFF:  # half of a UTF-16 pair: not text, not storable
                raise XGLSyntaxProblem(
                    i,
                    i + 2 + widths[ch],
                    f"\\{ch}{digits} is a lone surrogate, not a character",
                    "write the character itself or its code point, e.g. \\U0001F600 for 😀",
                )
            if code <= 0x10FFFF:
                return chr(code), i + 2 + widths[ch]
        raise XGLSyntaxProblem(
            i,
            i + 2 + len(digits),
            f"invalid \\{ch} escape in string",
            f"\\{ch} needs exactly {widths[ch]} hexadecimal digits, e.g. "
            + {"x": "\\x41", "u": "\\u00e9", "U": "\\U0001F600"}[ch],
        )
    raise XGLSyntaxProblem(
        i,
        i + 2,
        f"unknown escape sequence '\\{ch}' in string",
        "valid escapes: \\n \\t \\r \\\\ \\' \\\" \\xhh \\uhhhh \\Uhhhhhhhh; "
        "write \\\\ for a backslash",
    )


def _read_operator(text: str, start: int) -> Token:
    for op in _OPERATORS:
        if text.startswith(op, start):
            return Token("op", op, start, start + len(op), op)
    ch = text[start]
    hint = "names use ASCII letters, digits and _" if ch.isalpha() else "remove it"
    raise XGLSyntaxProblem(start, start + 1, f"unexpected character {ch!r}", hint)
