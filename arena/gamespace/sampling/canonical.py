"""The canonical form of a game: the same game up to renaming of registers and flags.

Registers are renamed, class by class (interchangeable registers only, see
`REGISTER_CLASSES`), in order of first use; flags likewise. Players keep their names: they
differ in what they see and whom they play against (an elicit's explicit default player,
black, is dropped). The form is the renamed program
printed without comments or header, with its dialect, so two games have the same form
exactly when one is a renaming of the other (paper, section 6: "the same game up to the
renaming of registers"), once the instructions that cannot change any reward or any seat's
information set are dropped (`arena.gamespace.sampling.noops`): a mutant that only adds such an
instruction has its parent's form, so de-duplication treats it as a copy.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

from arena.gamespace.sampling.mutations import registers_used, rename_everywhere
from arena.gamespace.sampling.noops import without_noops
from arena.gamespace.sampling.tree import walk
from arena.lang import ast
from arena.lang.names import ALL_REGISTERS, DEFAULT_PLAYER, FLAGS, REGISTER_CLASSES
from arena.lang.printer import render_program


def canonical_names(program: ast.Program) -> dict[str, str]:
    """Old name -> canonical name, for every register and flag the program uses."""
    mapping: dict[str, str] = {}
    for cls in REGISTER_CLASSES:
        pool = [r for r in ALL_REGISTERS if r[0] in cls]
        used = [r for r in registers_used(program) if r[0] in cls]
        mapping.update(zip(used, pool, strict=False))
    flags = [
        node.id for ins in program.instructions for node in walk(ins.call)
        if isinstance(node, ast.Name) and node.id in FLAGS
    ]
    mapping.update(zip(dict.fromkeys(flags), FLAGS, strict=False))
    return mapping


def canonical_form(program: ast.Program) -> str:
    """The game's text up to register and flag names (see the module docstring)."""
    program = without_noops(program)
    mapping = canonical_names(program)
    renamed = _without_default_player(
        rename_everywhere(program, lambda name: mapping.get(name, name))
    )
    return f"# dialect: {program.dialect_name}\n" + render_program(renamed, header=())


def _without_default_player(program: ast.Program) -> ast.Program:
    """`elicit(black, t, 10)` is `elicit(t, 10)` (and so for reveal and reward): black is
    the default player."""
    items = []
    for ins in program.instructions:
        args = ins.call.args
        if (
            ins.name in ("elicit", "reveal", "reward") and len(args) > 1
            and isinstance(args[0], ast.Name) and args[0].id == DEFAULT_PLAYER
        ):
            ins = replace(ins, call=replace(ins.call, args=args[1:]))
        items.append(ins)
    return replace(program, instructions=tuple(items))


def canonical_key(program: ast.Program) -> str:
    """A short hash of the canonical form, for storing and comparing."""
    return hashlib.sha256(canonical_form(program).encode("utf-8")).hexdigest()[:16]
