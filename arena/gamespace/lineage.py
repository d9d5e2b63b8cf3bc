"""The lineage header of a generated game: the parent's header plus where the game came
from, as ordinary `# key: value` header fields (XGL.md section 1), so a generated game is
an ordinary game file that still says how to reproduce it."""

from __future__ import annotations

import hashlib

from arena.lang.header import read_header
from arena.lang.printer import header_text

LINEAGE_KEYS = ("parent", "parent-sha256", "sampler", "seed", "index", "operator")


def source_digest(source: str) -> str:
    """A short content hash of a game text (identifies the exact parent version)."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]


def lineage_header(
    parent_source: str, *, parent: str, sampler: str, seed: int, index: int, operator: str
) -> list[str]:
    """The parent's leading comment lines (without any older lineage fields) followed by
    this candidate's lineage fields."""
    lines = [
        line for line in header_text(parent_source)
        if not any(line.lstrip("# ").startswith(f"{key}:") for key in LINEAGE_KEYS)
    ]
    fields = {
        "parent": parent,
        "parent-sha256": source_digest(parent_source),
        "sampler": sampler,
        "seed": str(seed),
        "index": str(index),
        "operator": operator,
    }
    return lines + [f"# {key}: {value}" for key, value in fields.items()]


def read_lineage(source: str) -> dict[str, str]:
    """The lineage fields of a generated game's header (empty for a hand-written game)."""
    header = read_header(source)
    return {key: header.get(key) for key in LINEAGE_KEYS if header.get(key)}
