"""The XGL abstract syntax tree: the project's own nodes, each with a source span.

Game text is parsed into these nodes and never handed to Python's compiler or evaluator.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

# The dialect type lives with the protocols (judges score per dialect); re-exported here.
from arena.protocols.dialect import DIALECTS as DIALECTS
from arena.protocols.dialect import Dialect as Dialect


@dataclass(frozen=True)
class Span:
    """A region of one source line: 1-based line, 0-based [col, end_col) columns."""

    line: int
    col: int
    end_col: int


# ---------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Expr:
    span: Span


@dataclass(frozen=True)
class Str(Expr):
    value: str


@dataclass(frozen=True)
class Int(Expr):
    value: int


@dataclass(frozen=True)
class Name(Expr):
    """A bare identifier: a register (`s1`), a player (`alice`) or a flag (`flag_1`)."""

    id: str


@dataclass(frozen=True)
class ListLit(Expr):
    items: tuple[Expr, ...]


BinOpKind = Literal["+", "-", "*", "//", "%", "|"]


@dataclass(frozen=True)
class BinOp(Expr):
    op: BinOpKind
    left: Expr
    right: Expr


@dataclass(frozen=True)
class UnaryOp(Expr):
    op: Literal["-", "not"]
    operand: Expr


CompareKind = Literal["<", "<=", ">", ">=", "==", "!=", "in", "not in"]


@dataclass(frozen=True)
class Compare(Expr):
    """A (possibly chained) comparison: `left ops[0] comparators[0] ops[1] ...`."""

    left: Expr
    ops: tuple[CompareKind, ...]
    comparators: tuple[Expr, ...]


@dataclass(frozen=True)
class BoolOp(Expr):
    op: Literal["and", "or"]
    values: tuple[Expr, ...]


@dataclass(frozen=True)
class Subscript(Expr):
    value: Expr
    index: Expr


@dataclass(frozen=True)
class Keyword:
    name: str
    value: Expr
    span: Span


@dataclass(frozen=True)
class Call(Expr):
    func: str
    func_span: Span
    args: tuple[Expr, ...]
    keywords: tuple[Keyword, ...] = ()


# ---------------------------------------------------------------- program


InstructionName = Literal["assign", "elicit", "reveal", "reward", "ensure", "beacon", "replay"]
INSTRUCTIONS: tuple[InstructionName, ...] = (
    "assign",
    "elicit",
    "reveal",
    "reward",
    "ensure",
    "beacon",
    "replay",
)


@dataclass(frozen=True)
class Instruction:
    """One program line holding an instruction call, e.g. `elicit(alice, t, 10)`."""

    name: InstructionName
    call: Call
    line: int
    source: str  # the full source line, for diagnostics and labels


@dataclass(frozen=True)
class Program:
    """A parsed game: its instructions in line order plus the text it came from."""

    instructions: tuple[Instruction, ...]
    source: str
    dialect: Dialect  # the family: how text is joined, scored and tokenised
    filename: str = "<game>"
    line_count: int = 0
    header: tuple[str, ...] = field(default=())  # leading comment lines, without '#'
    version: str = ""  # the dialect's version ("2025-09" of xent@2025-09); "": its own rules

    @property
    def dialect_name(self) -> str:
        """The dialect as named, version included: `xgl`, `xent`, `xent@2025-09`; its
        rules are `arena.lang.dialects.dialect_rules(program.dialect_name)`."""
        return f"{self.dialect}@{self.version}" if self.version else self.dialect

    def at_line(self, line: int) -> Instruction | None:
        for ins in self.instructions:
            if ins.line == line:
                return ins
        return None

def iter_children(expr: Expr) -> Iterator[Expr]:
    """The direct sub-expressions of a node, left to right."""
    if isinstance(expr, BinOp):
        yield expr.left
        yield expr.right
    elif isinstance(expr, UnaryOp):
        yield expr.operand
    elif isinstance(expr, Compare):
        yield expr.left
        yield from expr.comparators
    elif isinstance(expr, BoolOp):
        yield from expr.values
    elif isinstance(expr, Subscript):
        yield expr.value
        yield expr.index
    elif isinstance(expr, ListLit):
        yield from expr.items
    elif isinstance(expr, Call):
        yield from expr.args
        for kw in expr.keywords:
            yield kw.value
