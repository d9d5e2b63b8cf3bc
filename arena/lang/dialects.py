"""Every dialect and version of the language, one row each (XGL.md section 9).

A game is read under a *dialect name*: `xgl`, `xent`, or a version of `xent` written
`xent@VERSION`. Each name has one row of `DialectRules`: its *family* (`Dialect`: how text
is joined and scored, the only thing a judge is told) and the behaviours that differ
between rows. The reference implementation of dialect `xent` (xentlabs/xent) changed its
rules over its history, so a config published with one of its versions is played under that
version's row, and `xent` is its current rules. A later difference is one more field here
(with each row's value) and one reader of it, never an `if` on a dialect name elsewhere.

The rows and what they follow (reference commits and releases):

- `xent@2025-09`: the published benchmark 0.2 as it was run (commit `80ab799`,
  2025-09-09; configs of xega 0.1.0 and older): `only_uses_words` is a substring test, an
  ensure line may fail 100 times.
- `xent@0.2`: xega 0.1.2 and xent 0.1.0 to 0.2.x (from `f5f3b54`, 2025-09-12): the
  substring test, 10 failures per line.
- `xent`: release 0.3.0 and later: whole words (since `b2526b9`, 2025-10-02), 10 failures
  per line.

In every `xent` row a failed `ensure` sends the player back to its elicit; a line that fails
once more than its budget (the count of a line starts again when it holds) ends the match
with no result. Dialect `xgl` counts failed ensures per player and round and forfeits.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from arena.errors import UnknownNameError
from arena.lang import builtins, xent_helpers
from arena.lang.ast import Dialect
from arena.lang.values import Text, Value

__all__ = [
    "DIALECT_NAMES",
    "DialectRules",
    "EnsureRule",
    "dialect_rules",
    "rules_for_reference_version",
    "rules_named",
]


@dataclass(frozen=True)
class EnsureRule:
    """What a failed `ensure` costs.

    per: "player" counts a player's failures over the round; "line" counts each ensure
        line's failures, starting again from 0 each time the line holds.
    budget: failures allowed; one more ends it (a round's `RoundLimits.ensure_budget`,
        when set, replaces this default).
    exceeded: "forfeit" (the player forfeits the round) or "no_result" (the match ends and
        has no result: absent from every score, counted as such).
    """

    per: Literal["player", "line"]
    budget: int
    exceeded: Literal["forfeit", "no_result"]


@dataclass(frozen=True)
class DialectRules:
    """One row of the table: a dialect name and its behaviours (see the module docstring).

    functions: the deterministic helper functions (`only_uses_words`, ...) by name.
    follows: what the row reproduces, for messages and documentation.
    """

    name: str
    family: Dialect
    follows: str
    functions: Mapping[str, Callable[..., Value]]
    ensures: EnsureRule


_XGL_FUNCTIONS: dict[str, Callable[..., Value]] = {
    "remove_common_words": lambda x, y: Text(builtins.remove_common_words(x, y)),
    "common_word_set": builtins.common_word_set,
    "word_set": builtins.word_set,
    "num_words": builtins.num_words,
    "only_uses_words": builtins.only_uses_words,
    "only_uses_chars": builtins.only_uses_chars,
}
_XENT_FUNCTIONS: dict[str, Callable[..., Value]] = {
    **_XGL_FUNCTIONS,
    "remove_common_words": lambda x, y: Text(xent_helpers.remove_common_words(x, y)),
    "num_words": xent_helpers.num_words,
    "only_uses_words": xent_helpers.only_uses_words,
    "only_uses_chars": xent_helpers.only_uses_chars,
}
_SUBSTRING_WORDS = {**_XENT_FUNCTIONS, "only_uses_words": xent_helpers.only_uses_words_substring}
_NO_RESULT_AFTER_100 = EnsureRule(per="line", budget=100, exceeded="no_result")
_NO_RESULT_AFTER_10 = EnsureRule(per="line", budget=10, exceeded="no_result")

_ROWS = (
    DialectRules(
        "xgl", "xgl", "this project's XGL (XGL.md)", MappingProxyType(_XGL_FUNCTIONS),
        EnsureRule(per="player", budget=10, exceeded="forfeit"),
    ),
    DialectRules(
        "xent", "xent", "the reference implementation 0.3.0 and later",
        MappingProxyType(_XENT_FUNCTIONS), _NO_RESULT_AFTER_10,
    ),
    DialectRules(
        "xent@2025-09", "xent",
        "the reference as the published benchmark 0.2 was run (commit 80ab799, 2025-09-09)",
        MappingProxyType(_SUBSTRING_WORDS), _NO_RESULT_AFTER_100,
    ),
    DialectRules(
        "xent@0.2", "xent", "the reference's versions xega 0.1.2 and xent 0.1.0 to 0.2.x",
        MappingProxyType(_SUBSTRING_WORDS), _NO_RESULT_AFTER_10,
    ),
)
_BY_NAME = {row.name: row for row in _ROWS}
DIALECT_NAMES: tuple[str, ...] = tuple(_BY_NAME)


def dialect_rules(name: str) -> DialectRules | None:
    """The row called `name` (any case, surrounding spaces ignored), or None."""
    return _BY_NAME.get(name.strip().lower())


def rules_named(name: str) -> DialectRules:
    """The row called `name` (a program's `dialect_name`); UnknownNameError otherwise."""
    rules = dialect_rules(name)
    if rules is None:
        raise UnknownNameError("dialect", name, DIALECT_NAMES)
    return rules


_VERSION = re.compile(r"\s*v?(\d+)\.(\d+)(?:\.(\d+))?")


def rules_for_reference_version(package: str, version: str | None) -> DialectRules:
    """The row that plays a config made by the reference's `package` ("xega" before its
    rename on 2025-09-16, then "xent") at `version`, as its metadata records them
    (`xega_version` / `xent_version`). No readable version: a config older than the
    versioning, played as the published benchmark was. xega 0.1.0 is the benchmark's own
    (its ensure budget changed within that version, on 2025-09-12: the run came first)."""
    found = _VERSION.match(version or "")
    if found is None:
        return _BY_NAME["xent@2025-09"]
    number = tuple(int(part or 0) for part in found.groups())
    if package.strip().lower() == "xega":
        return _BY_NAME["xent@2025-09" if number < (0, 1, 2) else "xent@0.2"]
    return _BY_NAME["xent" if number >= (0, 3, 0) else "xent@0.2"]
