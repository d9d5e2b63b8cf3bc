"""Listings on a terminal: every listing has a header row, and every cell passes through
`printable` first.

Names and titles come from files other people wrote (imported results, game headers,
plugin metadata, tournament files); a control character in them (an ANSI escape, a carriage
return, a bidirectional override) could rewrite what the terminal shows, so it is removed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Sequence

from rich.text import Text

# Bidirectional embeddings, overrides and isolates reorder the text around them.
_BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_SPACES = re.compile(r"\s+")


def printable(text: object) -> str:
    """`text` as a single line a terminal shows literally: control characters (C0, C1,
    bidirectional controls) removed, runs of whitespace (newlines, tabs) as one space."""
    value = _SPACES.sub(" ", str(text))
    return "".join(
        ch for ch in value if ch not in _BIDI and unicodedata.category(ch) != "Cc"
    ).strip()


def without_controls(text: str) -> str:
    """`text` with its line structure kept (for multi-line messages such as a caret listing)
    but every other control character removed."""
    lines = str(text).replace("\r\n", "\n").split("\n")
    return "\n".join("".join(ch for ch in line if _shown(ch)) for line in lines)


def _shown(ch: str) -> bool:
    return ch == "\t" or (ch not in _BIDI and unicodedata.category(ch) != "Cc")


def text_table(
    header: Sequence[str], rows: Sequence[Sequence[object]], right: Collection[int] = ()
) -> list[str]:
    """Aligned plain-text lines: the header row, then one line per row (cells printable);
    the columns numbered in `right` (numbers) are right-aligned."""
    cells = [[printable(c) for c in header]] + [[printable(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = []
    for row in cells:
        padded = (
            cell.rjust(width) if i in right else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        )
        lines.append("  ".join(padded).rstrip())
    return lines


def rich_cell(text: object) -> Text:
    """A cell for a rich table: printable, and never read as rich markup."""
    return Text(printable(text))
