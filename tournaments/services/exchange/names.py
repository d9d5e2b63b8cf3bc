"""The name rule of everything an import stores as a name: participants, games, roles and
map labels. Imported names reach the leaderboard, the dashboard and exports; a name outside
the rule (HTML, a newline, a direction mark, 5 000 characters) is refused with the row."""

from __future__ import annotations

from arena.specs import NAME_RE, shorten

__all__ = ["MAX_LABEL_CHARS", "MAX_NAME_CHARS", "name_problem"]

MAX_NAME_CHARS = 100  # participants, games, roles
MAX_LABEL_CHARS = 200  # map labels (the reference's map seeds are longer names)


def name_problem(value: str, what: str, limit: int = MAX_NAME_CHARS) -> str | None:
    """Why `value` cannot be stored as `what` (e.g. "participant_a"), or None when it can."""
    if len(value) > limit:
        return f"{what} is {len(value):,} characters long; a name has at most {limit}"
    if not NAME_RE.fullmatch(value):
        return (
            f"{what} '{shorten(value, 40)}' may only use letters, digits, '_', '.' and '-'"
        )
    return None
