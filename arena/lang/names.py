"""The fixed vocabulary of XGL: registers, players, flags and the function table.

Shared by the checker (static kinds and arity) and the interpreter (dispatch).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["str", "list", "int", "bool", "xent", "float"]

STRING_REGISTER_TYPES = "stxypabc"
CONSTANT_TYPES = "abc"
PUBLIC_TYPES = "abp"
_SUFFIXES = ("", "0", "1", "2", "3")

STRING_REGISTERS: tuple[str, ...] = tuple(t + s for t in STRING_REGISTER_TYPES for s in _SUFFIXES)
LIST_REGISTERS: tuple[str, ...] = tuple("l" + s for s in _SUFFIXES)
ALL_REGISTERS: tuple[str, ...] = STRING_REGISTERS + LIST_REGISTERS

# Registers that are interchangeable: same kind, same visibility, same mutability
# (XGL.md section 3: s t x y private mutable, p public mutable, a b public constants, c
# private constants, l lists).
REGISTER_CLASSES: tuple[str, ...] = ("stxy", "p", "ab", "c", "l")


def register_class(name: str) -> str:
    """The class (`REGISTER_CLASSES`) of a register name."""
    return next(c for c in REGISTER_CLASSES if name[0] in c)

PLAYERS: tuple[str, ...] = ("black", "white", "alice", "bob", "carol", "david", "env")
OMNISCIENT: frozenset[str] = frozenset({"black", "white", "env"})
ZERO_SUM_PARTNER: dict[str, str] = {"black": "white", "white": "black"}
DEFAULT_PLAYER = "black"
FLAGS: tuple[str, ...] = ("flag_1", "flag_2")

XENT_FUNCTIONS: tuple[str, ...] = ("xent", "xed", "nex", "dex")


def register_kind(name: str) -> Literal["str", "list"] | None:
    """'str' or 'list' for a register name, None for anything else."""
    if name in STRING_REGISTERS:
        return "str"
    if name in LIST_REGISTERS:
        return "list"
    return None


CONSTANT_REGISTERS = frozenset(r for r in STRING_REGISTERS if r[0] in CONSTANT_TYPES)
PUBLIC_REGISTERS = frozenset(r for r in STRING_REGISTERS if r[0] in PUBLIC_TYPES)


def is_constant(register: str) -> bool:
    return register in CONSTANT_REGISTERS


def is_public(register: str) -> bool:
    return register in PUBLIC_REGISTERS


@dataclass(frozen=True)
class Signature:
    """A built-in function: positional argument kinds (a kind tuple per position allows
    several kinds), how many trailing ones are optional, whether extra `str` arguments are
    accepted, the result kind, and the positions (0-based) that also take a list in dialect
    xent (its word helpers accept lists, XGL.md section 9)."""

    params: tuple[tuple[Kind, ...], ...]
    result: Kind
    optional: int = 0
    variadic_str: bool = False
    keywords: tuple[str, ...] = ()
    doc: str = ""
    xent_list_args: tuple[int, ...] = ()


_S: tuple[Kind, ...] = ("str",)
_I: tuple[Kind, ...] = ("int",)
_L: tuple[Kind, ...] = ("list",)

FUNCTIONS: dict[str, Signature] = {
    "xent": Signature((_S, _S), "xent", optional=1, keywords=("o",), doc="xent(s | t, o='')"),
    "xed": Signature((_S, _S), "xent", optional=1, keywords=("o",), doc="xed(s | t, o='')"),
    "nex": Signature((_S, _S), "xent", optional=1, keywords=("o",), doc="nex(s | t, o='')"),
    "dex": Signature((_S, _S), "xent", optional=1, keywords=("o",), doc="dex(s | t, o='')"),
    "is_true": Signature((_S,), "bool", variadic_str=True, doc="is_true(statement, s...)"),
    "is_false": Signature((_S,), "bool", variadic_str=True, doc="is_false(statement, s...)"),
    "remove_common_words": Signature(
        (_S, _S), "str", doc="remove_common_words(x, y)", xent_list_args=(1,)
    ),
    "common_word_set": Signature((_S, _S), "list", doc="common_word_set(x, y)"),
    "word_set": Signature((_S,), "list", doc="word_set(x)"),
    "num_words": Signature((_S,), "int", doc="num_words(x)"),
    "only_uses_words": Signature(
        (_S, _S), "bool", doc="only_uses_words(allowed, x)", xent_list_args=(0,)
    ),
    "only_uses_chars": Signature((_S, _S), "bool", doc="only_uses_chars(allowed, x)"),
    "first_n_tokens": Signature((_S, _I), "str", doc="first_n_tokens(x, n)"),
    "last_n_tokens": Signature((_S, _I), "str", doc="last_n_tokens(x, n)"),
    "len": Signature((("str", "list"),), "int", doc="len(x)"),
    "sample": Signature((_L,), "str", doc="sample(l)"),
    "shuffle": Signature((_L,), "list", doc="shuffle(l)"),
    "story": Signature(
        (("int", "str"),), "str", optional=1, doc="story(), story(n), story(instruction)"
    ),
}
