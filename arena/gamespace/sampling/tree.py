"""Walking and rebuilding XGL syntax trees, for the mutation operators.

Nodes are frozen dataclasses: a rewrite rebuilds the path from the root to the replaced
node and shares everything else. Nodes are matched by identity, so two equal literals in
different places stay distinct sites.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from arena.lang import ast


def walk(expr: ast.Expr) -> Iterator[ast.Expr]:
    """`expr` and every node below it, depth first, left to right."""
    yield expr
    for child in ast.iter_children(expr):
        yield from walk(child)


def map_children(expr: ast.Expr, change: Callable[[ast.Expr], ast.Expr]) -> ast.Expr:
    """`expr` with each direct sub-expression `c` replaced by `change(c)`."""
    if isinstance(expr, ast.BinOp):
        return replace(expr, left=change(expr.left), right=change(expr.right))
    if isinstance(expr, ast.UnaryOp):
        return replace(expr, operand=change(expr.operand))
    if isinstance(expr, ast.Compare):
        return replace(
            expr, left=change(expr.left), comparators=tuple(map(change, expr.comparators))
        )
    if isinstance(expr, ast.BoolOp):
        return replace(expr, values=tuple(map(change, expr.values)))
    if isinstance(expr, ast.Subscript):
        return replace(expr, value=change(expr.value), index=change(expr.index))
    if isinstance(expr, ast.ListLit):
        return replace(expr, items=tuple(map(change, expr.items)))
    if isinstance(expr, ast.Call):
        return replace(
            expr,
            args=tuple(map(change, expr.args)),
            keywords=tuple(replace(kw, value=change(kw.value)) for kw in expr.keywords),
        )
    return expr


def replace_node(expr: ast.Expr, target: ast.Expr, new: ast.Expr) -> ast.Expr:
    """`expr` with the node `target` (by identity) replaced by `new`, in one pass."""
    if expr is target:
        return new
    return map_children(expr, lambda child: replace_node(child, target, new))


def map_names(expr: ast.Expr, rename: Callable[[str], str]) -> ast.Expr:
    """`expr` with every bare name `n` replaced by `rename(n)`."""
    if isinstance(expr, ast.Name):
        return replace(expr, id=rename(expr.id))
    return map_children(expr, lambda child: map_names(child, rename))


Site = tuple[int, ast.Expr]  # (instruction index, node)


def sites(
    program: ast.Program,
    accept: Callable[[ast.Instruction, ast.Expr], bool],
) -> list[Site]:
    """Every node of every instruction that `accept(instruction, node)` admits."""
    found = []
    for index, ins in enumerate(program.instructions):
        for node in walk(ins.call):
            if accept(ins, node):
                found.append((index, node))
    return found


def with_instruction(program: ast.Program, index: int, call: ast.Call | None) -> ast.Program:
    """`program` with instruction `index` given a new call, or removed (call None)."""
    items = list(program.instructions)
    if call is None:
        del items[index]
    else:
        items[index] = replace(items[index], call=call)
    return replace(program, instructions=tuple(items))


def rewrite(program: ast.Program, site: Site, new: ast.Expr) -> ast.Program:
    """`program` with the node of `site` replaced by `new`."""
    index, node = site
    call = replace_node(program.instructions[index].call, node, new)
    assert isinstance(call, ast.Call)
    return with_instruction(program, index, call)


def insert_instruction(program: ast.Program, index: int, call: ast.Call) -> ast.Program:
    """`program` with a new instruction before position `index`."""
    name = next(known for known in ast.INSTRUCTIONS if known == call.func)
    ins = ast.Instruction(name, call, 0, "")
    items = list(program.instructions)
    items.insert(index, ins)
    return replace(program, instructions=tuple(items))
