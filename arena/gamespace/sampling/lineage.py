"""The lineage header of a generated game: the parent's header plus where the game came
from, as ordinary `# key: value` header fields (XGL.md section 1), so a generated game is
an ordinary game file that still says how to reproduce it."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from arena.lang.header import read_header
from arena.lang.printer import header_text

LINEAGE_KEYS = (
    "parent", "parent-sha256", "sampler", "seed", "index", "operator", "model", "attempts"
)


def source_digest(source: str) -> str:
    """A short content hash of a game text (identifies the exact parent version)."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]


# A parent's header fields that describe the parent only: a generated game is another game
# (its `# about:` sentence, for people, would describe the parent's rules).
PARENT_ONLY_KEYS = ("about",)


def without_lineage(lines: list[str]) -> list[str]:
    """Header lines without lineage fields (a generated game's parent may be generated) and
    without the parent's own description."""
    return [
        line for line in lines
        if not any(line.lstrip("# ").startswith(f"{key}:")
                   for key in (*LINEAGE_KEYS, *PARENT_ONLY_KEYS))
    ]


def lineage_header(
    parent_source: str, *, parent: str, sampler: str, seed: int, index: int, operator: str,
    more: Mapping[str, str] | None = None, header: list[str] | None = None,
) -> list[str]:
    """`header` (default: the parent's leading comment lines), without any older lineage
    fields, followed by this candidate's lineage fields; `more` adds sampler-specific ones
    among `LINEAGE_KEYS` (an llm sampler's model and attempts)."""
    lines = without_lineage(header_text(parent_source) if header is None else header)
    fields = {
        "parent": parent,
        "parent-sha256": source_digest(parent_source),
        "sampler": sampler,
        "seed": str(seed),
        "index": str(index),
        "operator": operator,
        **(more or {}),
    }
    return lines + [f"# {key}: {value}" for key, value in fields.items()]


def read_lineage(source: str) -> dict[str, str]:
    """The lineage fields of a generated game's header (empty for a hand-written game)."""
    header = read_header(source)
    return {key: header.get(key) for key in LINEAGE_KEYS if header.get(key)}
