"""The word helpers of dialect `xent` (XGL.md section 9): the reference implementation's
rules, which its published games (Condense, Contrast, Synthesize, Alethiometer) are scored
with. Dialect `xgl` keeps the simpler rules of `arena.lang.builtins`.

Where they differ from dialect xgl:

- `remove_common_words(x, y)` deletes each common word where it stands between separators
  (whitespace or ASCII punctuation) and keeps the separators, so ``"Hello, world!"`` minus
  ``"world!"`` is ``"Hello, !"``; runs of whitespace then become one space. `y` may be a
  list, whose items are removed as written (any case).
- `only_uses_words(allowed, x)` splits both on single spaces and compares the pieces
  exactly (case and punctuation included); `allowed` may be a list. The reference's
  versions before 0.3.0 (`xent@2025-09`, `xent@0.2`) only asked that each piece of `x`
  occur somewhere in `allowed` as a substring (`only_uses_words_substring`), so "bee hive",
  "he ant", an empty move or a doubled space pass against "... beehive ... ant ...".
- `only_uses_chars(allowed, x)` counts whitespace as a character like any other.
- `num_words(x)` counts distinct words.
"""

from __future__ import annotations

import re
import string

from arena.lang import builtins

_SEPARATOR = "[" + re.escape(string.punctuation) + r"\s]"
_WHITESPACE_RUN = re.compile(r"\s{2,}")


def remove_common_words(x: str, y: str | list[str]) -> str:
    """`x` without the words it shares with `y` (or without the items of list `y`)."""
    # Sorted for a fixed order; words of a text hold no separator, so order cannot matter.
    removed = list(y) if isinstance(y, list) else builtins.common_word_set(x, y)
    for word in removed:
        # The left separator is kept by re-inserting it; the right one is only looked at,
        # so that it can be the left separator of the next occurrence.
        pattern = rf"(^|{_SEPARATOR}){re.escape(word)}(?=$|{_SEPARATOR})"
        x = re.sub(pattern, r"\1", x, flags=re.IGNORECASE)
    return _WHITESPACE_RUN.sub(" ", x).strip()


def only_uses_words(allowed: str | list[str], x: str) -> bool:
    vocabulary = set(allowed) if isinstance(allowed, list) else set(allowed.split(" "))
    return all(piece in vocabulary for piece in x.split(" "))


def only_uses_words_substring(allowed: str | list[str], x: str) -> bool:
    """Each single-space piece of `x` occurs in `allowed` as a substring (a list: in one
    of its items; lists came with the whole-word rule, so this reading is ours)."""
    items = allowed if isinstance(allowed, list) else [allowed]
    return all(any(piece in item for item in items) for piece in x.split(" "))


def only_uses_chars(allowed: str, x: str) -> bool:
    return set(x) <= set(allowed)


def num_words(x: str) -> int:
    return len(builtins.word_set(x))
