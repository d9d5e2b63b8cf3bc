"""Runtime values of XGL: strings with an optional conditioning prefix, and signed xent sums.

A value is one of: `Text` (a string, possibly conditioned by `|`), `list[str]`, `int`,
`bool` or `XentSum`. Cat and cut follow XGL.md section 3.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from arena.lang.ast import Dialect

XentKind = Literal["xent", "xed", "nex", "dex"]


@dataclass(frozen=True)
class Text:
    """A string value. `prefix` is set by `s | t` and only matters inside xent functions."""

    text: str
    prefix: str | None = None


@dataclass(frozen=True)
class XentTerm:
    """One xent-family call inside a signed sum.

    `bits` are the per-token values of the call itself (already negated for nex/dex);
    `coefficient` is the sign and integer multiplier that the surrounding sum applies;
    `sources` are the labels of the values its target and context were computed from
    (`arena.lang.flow`; None: unknown, shown to omniscient seats only); `shown` is the
    judge's `TokenScores.shown` (each token decoded alone, where that differs).
    """

    kind: XentKind
    source: str
    target: str
    context: str
    tokens: tuple[str, ...]
    bits: tuple[float, ...]
    coefficient: int = 1
    sources: frozenset[str] | None = None
    shown: tuple[str, ...] | None = None

    @property
    def total(self) -> float:
        return self.coefficient * float(sum(self.bits))

    def scaled(self, factor: int) -> XentTerm:
        return XentTerm(
            self.kind,
            self.source,
            self.target,
            self.context,
            self.tokens,
            self.bits,
            self.coefficient * factor,
            self.sources,
            self.shown,
        )


@dataclass(frozen=True)
class XentSum:
    """A signed sum of xent terms: the only kind of value a reward accepts."""

    terms: tuple[XentTerm, ...]

    @property
    def total(self) -> float:
        return float(sum(t.total for t in self.terms))

    def __add__(self, other: XentSum) -> XentSum:
        return XentSum(self.terms + other.terms)

    def __neg__(self) -> XentSum:
        return self.scaled(-1)

    def __sub__(self, other: XentSum) -> XentSum:
        return self + (-other)

    def scaled(self, factor: int) -> XentSum:
        return XentSum(tuple(t.scaled(factor) for t in self.terms))


Value = Text | list[str] | int | bool | XentSum


def cat(a: str, b: str, dialect: Dialect) -> str:
    """`a + b`: dialect xgl inserts one space between non-empty parts unless a ends or b
    starts with whitespace; dialect xent concatenates plainly."""
    if dialect == "xent" or not a or not b or a[-1].isspace() or b[0].isspace():
        return a + b
    return a + " " + b


def cut_before(a: str, b: str) -> str:
    """`a // b`: the part of a before the first occurrence of b (all of a if b is empty or
    absent)."""
    if not b:
        return a
    index = a.find(b)
    return a if index < 0 else a[:index]


def cut_after(a: str, b: str) -> str:
    """`a % b`: the part of a after the first occurrence of b (empty if b is empty or
    absent)."""
    if not b:
        return ""
    index = a.find(b)
    return "" if index < 0 else a[index + len(b) :]


def kind_name(value: Value) -> str:
    """The XGL kind of a runtime value, for error messages."""
    if isinstance(value, Text):
        return "str"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, list):
        return "list"
    return "xent"
