"""Instructions that cannot change any reward or any seat's information set, found on the
game's syntax tree (`arena.lang.ast`) so the canonical form (`arena.gamespace.sampling.canonical`)
drops them and a mutant that only adds one is recognised as a copy of its parent.

Three kinds, each conservative (an instruction is dropped only when no run of the program
can make it matter):

- a self-assignment `assign(x=x)` (the keyword; the instruction when nothing else is left);
- a reveal repeated: the same reveal (same values; to the same seats, or the earlier one to
  every seat) ran before it on every path, i.e. earlier in the program with no `beacon`
  (a jump target) in between and no write (assign or elicit) to a register it shows;
- in a one-round game (header `rounds: 1`), a reveal after which no `elicit` can run (none
  later in the program, and no `replay` or `ensure` that could go back to one: a failed
  ensure asks the move again): no seat moves again, so what it shows reaches no decision
  and no reward (rewards never read information sets).

Why the syntax tree and not the text: the same instruction may be spelled differently
(spaces, comments, register names), and the rules need where registers are written.
"""

from __future__ import annotations

from dataclasses import replace

from arena.gamespace.sampling.tree import walk
from arena.lang import ast
from arena.lang.names import ALL_REGISTERS
from arena.lang.printer import render_expr


def _one_round(program: ast.Program) -> bool:
    for line in program.header:
        key, _, value = line.strip().partition(":")
        if key.strip().lower() == "rounds":
            return value.strip() == "1"
    return False


def _registers(expr: ast.Expr) -> set[str]:
    return {n.id for n in walk(expr) if isinstance(n, ast.Name) and n.id in ALL_REGISTERS}


def _written(ins: ast.Instruction) -> set[str]:
    """Registers an instruction may write."""
    if ins.name == "assign":
        return {kw.name for kw in ins.call.keywords}
    if ins.name == "elicit":
        return {a.id for a in ins.call.args if isinstance(a, ast.Name) and a.id in ALL_REGISTERS}
    return set()


def _reveal_parts(ins: ast.Instruction) -> tuple[frozenset[str], tuple[str, ...]]:
    """(seats named, values shown) of a reveal; no seats named: every seat."""
    seats: list[str] = []
    values: list[str] = []
    for arg in ins.call.args:
        if isinstance(arg, ast.Name) and arg.id not in ALL_REGISTERS and not values:
            seats.append(arg.id)
        else:
            values.append(render_expr(arg))
    return frozenset(seats), tuple(values)


def _repeated_reveal(items: list[ast.Instruction], index: int) -> bool:
    seats, values = _reveal_parts(items[index])
    shown = set().union(*(_registers(a) for a in items[index].call.args))
    for j in range(index - 1, -1, -1):
        earlier = items[j]
        if earlier.name == "beacon" or _written(earlier) & shown:
            return False
        if earlier.name == "reveal":
            before_seats, before_values = _reveal_parts(earlier)
            if before_values == values and (not before_seats or before_seats == seats):
                return True
    return False


def _self_assign_dropped(ins: ast.Instruction) -> ast.Instruction | None:
    kept = tuple(
        kw for kw in ins.call.keywords
        if not (isinstance(kw.value, ast.Name) and kw.value.id == kw.name)
    )
    if len(kept) == len(ins.call.keywords):
        return ins
    return replace(ins, call=replace(ins.call, keywords=kept)) if kept else None


def without_noops(program: ast.Program) -> ast.Program:
    """`program` without the instructions that cannot matter (see the module docstring)."""
    items = list(program.instructions)
    one_round = _one_round(program)
    kept: list[ast.Instruction] = []
    for index, ins in enumerate(items):
        if ins.name == "assign":
            changed = _self_assign_dropped(ins)
            if changed is None:
                continue
            ins = changed
        elif ins.name == "reveal":
            later = {i.name for i in items[index + 1 :]}
            if one_round and not later & {"elicit", "replay", "ensure"}:
                continue
            if _repeated_reveal(items, index):
                continue
        kept.append(ins)
    return replace(program, instructions=tuple(kept))


__all__ = ["without_noops"]
