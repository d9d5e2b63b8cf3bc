"""The short match key: the one identifier of a stored match that `arena matches`, the
export and the dashboard all show (and that a dashboard link ``replay?match=KEY`` opens).

It is the start of the plan key (a sha256 hex digest; imported matches keep their
``import:`` prefix): 12 hex digits tell a million matches apart with odds of a clash
about 1 in 500 000, and a clash is never silent: a prefix naming two matches resolves to
none.
"""

from __future__ import annotations

import re

from sqlalchemy import Engine, select
from sqlmodel import col

from arena.storage.rows import row_id
from arena.storage.tables import Match

SHORT_KEY_HEX = 12
_KEY_REF = re.compile(r"(?:[a-z]+:)?[0-9a-f]{4,64}")
_MAX_KEY_CHARS = 512


def short_key(key: str) -> str:
    """The match's short key: its plan key's first `SHORT_KEY_HEX` hex digits."""
    prefix, _, digest = key.rpartition(":")
    return f"{prefix}:{digest[:SHORT_KEY_HEX]}" if prefix else key[:SHORT_KEY_HEX]


def match_id_for_ref(engine: Engine, ref: str) -> int | None:
    """The stored match whose plan key starts with `ref` (a short or full key), or None
    when no match or more than one does."""
    ref = ref.strip()
    if _KEY_REF.fullmatch(ref.lower()):
        where = col(Match.key).startswith(ref.lower(), autoescape=True)
    elif 0 < len(ref) <= _MAX_KEY_CHARS:  # an imported match's key ends in the file's own id
        where = col(Match.key) == ref
    else:
        return None
    query = select(col(Match.id)).where(where).limit(2)
    with engine.connect() as conn:
        found = list(conn.execute(query).scalars())
    return row_id(found[0]) if len(found) == 1 else None
