"""Instructions that cannot change any reward or any seat's information set, found on the
game's syntax tree (`arena.lang.ast`) so the canonical form (`arena.gamespace.sampling.canonical`)
drops them and a mutant that only adds one is recognised as a copy of its parent.

Three kinds, each conservative (an instruction is dropped only when no run of the program
can make it matter). A reveal shows its values to one seat: the player it names, or `black`
(XGL.md section 5).

- a self-assignment `assign(x=x)` (the keyword; the instruction when nothing else is left);
- a reveal repeated: the same values were revealed to the same seat before it on every path,
  i.e. earlier in the program with no `beacon` (a jump target) in between and no write
  (assign or elicit) to a register it shows;
- in a one-round game (header `rounds: 1`), a reveal to a seat that never moves after it:
  no `elicit` of that seat later in the program, and, where a `replay` or `ensure` later
  could go back (a failed ensure asks the last move again), no elicit of that seat anywhere.
  The seat makes no decision with what it was shown, and rewards never read information
  sets.

Why the syntax tree and not the text: the same instruction may be spelled differently
(spaces, comments, register names), and the rules need where registers are written.
"""

from __future__ import annotations

from dataclasses import replace

from arena.gamespace.sampling.tree import walk
from arena.lang import ast
from arena.lang.names import ALL_REGISTERS
from arena.lang.printer import render_expr
from arena.runtime.round import instruction_player


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


def _reveal_parts(ins: ast.Instruction) -> tuple[str, tuple[str, ...]]:
    """(seat, values shown) of a reveal: the seat as the runtime reads it."""
    seat, args = instruction_player(ins), ins.call.args
    named = bool(args) and isinstance(args[0], ast.Name) and args[0].id == seat
    return seat, tuple(render_expr(a) for a in args[1 if named else 0 :])


def _repeated_reveal(items: list[ast.Instruction], index: int) -> bool:
    parts = _reveal_parts(items[index])
    shown = set().union(*(_registers(a) for a in items[index].call.args))
    for j in range(index - 1, -1, -1):
        earlier = items[j]
        if earlier.name == "beacon" or _written(earlier) & shown:
            return False
        if earlier.name == "reveal" and _reveal_parts(earlier) == parts:
            return True
    return False


def _seat_never_moves_after(items: list[ast.Instruction], index: int) -> bool:
    """In a one-round game: the revealed seat has no elicit that can run after the reveal."""
    seat = instruction_player(items[index])
    moves = [
        i for i, ins in enumerate(items)
        if ins.name == "elicit" and instruction_player(ins) == seat
    ]
    if any(i > index for i in moves):
        return False
    can_go_back = any(ins.name in ("replay", "ensure") for ins in items[index + 1 :])
    return not (can_go_back and moves)


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
            if one_round and _seat_never_moves_after(items, index):
                continue
            if _repeated_reveal(items, index):
                continue
        kept.append(ins)
    return replace(program, instructions=tuple(kept))


__all__ = ["without_noops"]
