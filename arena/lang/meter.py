"""Metering one round's text against its ResourceLimits.

Every place where a round makes text grow reports here: values computed by expressions,
moves received, registers stored, text shown to players, text sent to the judge. Sizes are
checked before the text is built where that is possible (`+` of strings or lists), so an
attack stops at the limit, not at twice the limit or at the host's memory.
"""

from __future__ import annotations

from collections.abc import Mapping

from arena.errors import GameRuntimeError
from arena.lang.limits import DEFAULT_LIMITS, ResourceLimits, limit_message
from arena.lang.values import Text


def value_chars(value: Text | list[str]) -> int:
    """Characters of a string value, or of all the items of a list (the prefix of a
    conditioned string is another value, metered where it was built)."""
    return len(value.text) if isinstance(value, Text) else sum(map(len, value))


class RoundMeter:
    """The running totals of one round; raises GameRuntimeError at the first limit hit.

    `line` and `source` of each call locate the instruction in the error message."""

    def __init__(
        self,
        limits: ResourceLimits = DEFAULT_LIMITS,
        registers: Mapping[str, Text | list[str]] | None = None,
    ) -> None:
        self.limits = limits
        self.register_sizes = {r: value_chars(v) for r, v in (registers or {}).items()}
        self.register_total = sum(self.register_sizes.values())
        self.produced = 0  # characters built, received or shown this round
        self.judged = 0  # characters sent to the judge this round
        self.largest_value = 0  # peaks, for measuring how close a game comes to the limits
        self.largest_list = 0
        self.register_peak = self.register_total

    def _fail(self, name: str, what: str, actual: int, line: int, source: str) -> GameRuntimeError:
        return GameRuntimeError(limit_message(self.limits, name, what, actual), line, source)

    def check_size(self, chars: int, items: int | None, line: int, source: str) -> None:
        """A value of `chars` characters (and `items` items, for a list) may be built."""
        if items is not None and items > self.limits.max_list_items:
            raise self._fail("max_list_items", "this list", items, line, source)
        if chars > self.limits.max_value_chars:
            what = "this list" if items is not None else "this string"
            raise self._fail("max_value_chars", what, chars, line, source)

    def value(self, value: Text | list[str], line: int, source: str) -> None:
        """A value was built: check its size and count it as produced."""
        chars = value_chars(value)
        items = len(value) if isinstance(value, list) else None
        self.check_size(chars, items, line, source)
        self.largest_value = max(self.largest_value, chars)
        self.largest_list = max(self.largest_list, items or 0)
        self.produce(chars, line, source)

    def produce(self, chars: int, line: int, source: str) -> None:
        """`chars` characters were built, received or shown to a player."""
        self.produced += chars
        if self.produced > self.limits.max_round_chars:
            what = "the text produced by this round"
            raise self._fail("max_round_chars", what, self.produced, line, source)

    def judge(self, chars: int, line: int, source: str) -> None:
        """`chars` characters are about to be sent to the judge."""
        self.judged += chars
        if self.judged > self.limits.max_judge_chars:
            what = "the text sent to the judge this round"
            raise self._fail("max_judge_chars", what, self.judged, line, source)

    def store(
        self, values: Mapping[str, Text | list[str]], line: int, source: str
    ) -> None:
        """`values` are about to replace the registers they name."""
        sizes = {r: value_chars(v) for r, v in values.items()}
        total = self.register_total + sum(
            size - self.register_sizes.get(r, 0) for r, size in sizes.items()
        )
        if total > self.limits.max_register_chars:
            raise self._fail(
                "max_register_chars", "the text held by all registers", total, line, source
            )
        self.register_sizes.update(sizes)
        self.register_total = total
        self.register_peak = max(self.register_peak, total)
        self.largest_value = max(self.largest_value, *sizes.values(), 0)
