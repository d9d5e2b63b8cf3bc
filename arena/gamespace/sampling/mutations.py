"""Grammar-aware mutation operators on XGL programs (the `mutate` meta-sampler's moves).

Each operator takes a program and a seeded random source and returns a changed program, or
None when the program has no site it can change. Operators build syntax trees, never text,
so every result parses; most results also check, and the sampler (`arena.gamespace.sampling.mutate`)
keeps only those that the static checker accepts. Nothing here evaluates game code.

Operators, by the part of a game they touch (the issue's list):
- length: an elicit's maximum length, a story(n) length, a replay count, an n of
  first_n_tokens/last_n_tokens;
- register: rename a register everywhere (an isomorphic copy) or swap one read for another
  register of the same kind;
- reward: change a xent function, a term's sign or scale, drop a term, swap `s | t`;
- reveal: reveal a register to a player, or drop a reveal;
- player: give an elicit, reveal or reward to another player;
- condition: flip a comparison, negate a condition, change is_true/is_false, move a bound,
  drop an ensure;
- story: change a story source: story() <-> story(n) <-> story(instruction).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from arena.gamespace.sampling.tree import (
    insert_instruction,
    map_names,
    rewrite,
    sites,
    walk,
    with_instruction,
)
from arena.lang import ast
from arena.lang.names import (
    ALL_REGISTERS,
    DEFAULT_PLAYER,
    PLAYERS,
    XENT_FUNCTIONS,
    register_class,
    register_kind,
)

T = TypeVar("T")
Operator = Callable[[ast.Program, random.Random], ast.Program | None]

SEATED_PLAYERS = tuple(p for p in PLAYERS if p != "env")
_FLIPPED: dict[str, ast.CompareKind] = {
    "<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "!=", "!=": "==", "in": "not in",
    "not in": "in",
}  # fmt: skip
_SPAN = ast.Span(1, 0, 1)  # synthetic nodes: the text is re-parsed before anyone sees it


def registers_used(program: ast.Program) -> list[str]:
    """The registers a program names, in order of first use (assign targets included)."""
    seen: dict[str, None] = {}
    for ins in program.instructions:
        for kw in ins.call.keywords if ins.name == "assign" else ():
            seen.setdefault(kw.name, None)
        for node in walk(ins.call):
            if isinstance(node, ast.Name) and node.id in ALL_REGISTERS:
                seen.setdefault(node.id, None)
    return list(seen)


def _is_xent_call(node: ast.Expr) -> bool:
    return isinstance(node, ast.Call) and node.func in XENT_FUNCTIONS


def _pick(rng: random.Random, options: list[T]) -> T | None:
    return rng.choice(options) if options else None


# ---------------------------------------------------------------- length


def _length_site(ins: ast.Instruction, node: ast.Expr) -> bool:
    if not isinstance(node, ast.Int):
        return False
    args = ins.call.args
    if ins.name in ("elicit", "replay") and args and args[-1] is node:
        return True
    return any(
        isinstance(call, ast.Call)
        and call.func in ("story", "first_n_tokens", "last_n_tokens")
        and any(arg is node for arg in call.args)
        for call in walk(ins.call)
    )


def mutate_length(program: ast.Program, rng: random.Random) -> ast.Program | None:
    site = _pick(rng, sites(program, _length_site))
    if site is None:
        return None
    old = site[1]
    assert isinstance(old, ast.Int)
    lowest = 0 if program.instructions[site[0]].name == "replay" else 1
    value = old.value
    options = {value // 2, value * 2, value + 1, value - 1, rng.randint(lowest, 2 * value + 2)}
    options = {v for v in options if v >= lowest and v != value}
    return rewrite(program, site, replace(old, value=rng.choice(sorted(options))))


# ---------------------------------------------------------------- register


def mutate_register(program: ast.Program, rng: random.Random) -> ast.Program | None:
    used = registers_used(program)
    if not used:
        return None
    if rng.random() < 0.5:
        return _rename_register(program, rng, used)
    return _swap_read(program, rng, used)


def _rename_register(program: ast.Program, rng: random.Random, used: list[str]) -> ast.Program:
    old = rng.choice(used)
    free = [
        r for r in ALL_REGISTERS if r not in used and register_class(r) == register_class(old)
    ]
    if not free:
        return program
    new = rng.choice(free)

    def rename(name: str) -> str:
        return new if name == old else name

    return rename_everywhere(program, rename)


def rename_everywhere(program: ast.Program, rename: Callable[[str], str]) -> ast.Program:
    """`program` with every register and flag name `n` replaced by `rename(n)`."""
    items = []
    for ins in program.instructions:
        call = map_names(ins.call, rename)
        assert isinstance(call, ast.Call)
        if ins.name == "assign":
            keywords = tuple(replace(kw, name=rename(kw.name)) for kw in call.keywords)
            call = replace(call, keywords=keywords)
        items.append(replace(ins, call=call))
    return replace(program, instructions=tuple(items))


def _swap_read(program: ast.Program, rng: random.Random, used: list[str]) -> ast.Program | None:
    """One register read (not an elicit target) becomes another register of its kind."""

    def accept(ins: ast.Instruction, node: ast.Expr) -> bool:
        return (
            isinstance(node, ast.Name)
            and node.id in ALL_REGISTERS
            and ins.name not in ("elicit", "beacon", "replay")
        )

    site = _pick(rng, sites(program, accept))
    if site is None:
        return None
    old = site[1]
    assert isinstance(old, ast.Name)
    others = [r for r in used if r != old.id and register_kind(r) == register_kind(old.id)]
    if not others:
        return None
    return rewrite(program, site, replace(old, id=rng.choice(others)))


# ---------------------------------------------------------------- reward


def mutate_reward(program: ast.Program, rng: random.Random) -> ast.Program | None:
    def in_reward(ins: ast.Instruction, node: ast.Expr) -> bool:
        return ins.name == "reward" and node is not ins.call

    found = sites(program, in_reward)
    calls = [s for s in found if _is_xent_call(s[1])]
    change = rng.choice(("function", "sign", "scale", "drop", "swap"))
    if change == "drop":
        sums = [s for s in found if isinstance(s[1], ast.BinOp) and s[1].op in "+-"]
        site = _pick(rng, [s for s in sums if _xent_sum(s[1])])
        if site is None:
            return None
        node = site[1]
        assert isinstance(node, ast.BinOp)
        kept = node.left if rng.random() < 0.5 else node.right
        if node.op == "-" and kept is node.right:
            kept = ast.UnaryOp(_SPAN, "-", kept)
        return rewrite(program, site, kept)
    if change == "swap":
        bars = [s for s in found if isinstance(s[1], ast.BinOp) and s[1].op == "|"]
        site = _pick(rng, bars)
        if site is None:
            return None
        node = site[1]
        assert isinstance(node, ast.BinOp)
        return rewrite(program, site, replace(node, left=node.right, right=node.left))
    site = _pick(rng, calls)
    if site is None:
        return None
    call = site[1]
    assert isinstance(call, ast.Call)
    if change == "function":
        func = rng.choice([f for f in XENT_FUNCTIONS if f != call.func])
        return rewrite(program, site, replace(call, func=func))
    if change == "sign":
        return rewrite(program, site, ast.UnaryOp(_SPAN, "-", call))
    factor = ast.Int(_SPAN, rng.randint(2, 4))
    return rewrite(program, site, ast.BinOp(_SPAN, "*", factor, call))


def _xent_sum(node: ast.Expr) -> bool:
    return any(_is_xent_call(n) for n in walk(node))


# ---------------------------------------------------------------- reveal


def mutate_reveal(program: ast.Program, rng: random.Random) -> ast.Program | None:
    reveals = [i for i, ins in enumerate(program.instructions) if ins.name == "reveal"]
    if reveals and rng.random() < 0.4:
        return with_instruction(program, rng.choice(reveals), None)
    used = [r for r in registers_used(program) if register_kind(r) == "str"]
    if not used:
        return None
    register = rng.choice(used)
    first = next(
        i for i, ins in enumerate(program.instructions)
        if any(isinstance(n, ast.Name) and n.id == register for n in walk(ins.call))
        or any(kw.name == register for kw in ins.call.keywords)
    )
    where = rng.randint(first + 1, len(program.instructions))
    args: list[ast.Expr] = [ast.Name(_SPAN, register)]
    if rng.random() < 0.5:
        args.insert(0, ast.Name(_SPAN, rng.choice(SEATED_PLAYERS)))
    return insert_instruction(program, where, ast.Call(_SPAN, "reveal", _SPAN, tuple(args)))


# ---------------------------------------------------------------- player


def mutate_player(program: ast.Program, rng: random.Random) -> ast.Program | None:
    def leading_player(ins: ast.Instruction, node: ast.Expr) -> bool:
        args = ins.call.args
        return (
            ins.name in ("elicit", "reveal", "reward")
            and len(args) > 1
            and args[0] is node
            and isinstance(node, ast.Name)
            and node.id in PLAYERS
        )

    site = _pick(rng, sites(program, leading_player))
    if site is None:
        return _add_player(program, rng)
    node = site[1]
    assert isinstance(node, ast.Name)
    return rewrite(program, site, replace(node, id=rng.choice(
        [p for p in SEATED_PLAYERS if p != node.id]
    )))


def _add_player(program: ast.Program, rng: random.Random) -> ast.Program | None:
    """Name a player on an elicit that has none (the default player is black)."""
    bare = [
        i for i, ins in enumerate(program.instructions)
        if ins.name == "elicit" and ins.call.args
        and not (isinstance(ins.call.args[0], ast.Name) and ins.call.args[0].id in PLAYERS)
    ]
    index = _pick(rng, bare)
    if index is None:
        return None
    call = program.instructions[index].call
    # Naming the default player would change nothing: name another one.
    player = ast.Name(_SPAN, rng.choice([p for p in SEATED_PLAYERS if p != DEFAULT_PLAYER]))
    return with_instruction(program, index, replace(call, args=(player, *call.args)))


# ---------------------------------------------------------------- condition


def mutate_condition(program: ast.Program, rng: random.Random) -> ast.Program | None:
    ensures = [i for i, ins in enumerate(program.instructions) if ins.name == "ensure"]
    if not ensures:
        return None
    change = rng.choice(("flip", "negate", "truth", "bound", "drop"))
    if change == "drop":
        return with_instruction(program, rng.choice(ensures), None)

    def in_ensure(ins: ast.Instruction, node: ast.Expr) -> bool:
        return ins.name == "ensure" and node is not ins.call

    found = sites(program, in_ensure)
    if change == "flip":
        site = _pick(rng, [s for s in found if isinstance(s[1], ast.Compare)])
        if site is None:
            return None
        node = site[1]
        assert isinstance(node, ast.Compare)
        position = rng.randrange(len(node.ops))
        ops = list(node.ops)
        ops[position] = _FLIPPED[ops[position]]
        return rewrite(program, site, replace(node, ops=tuple(ops)))
    if change == "truth":
        site = _pick(rng, [
            s for s in found if isinstance(s[1], ast.Call) and s[1].func in ("is_true", "is_false")
        ])
        if site is None:
            return None
        node = site[1]
        assert isinstance(node, ast.Call)
        flipped = "is_false" if node.func == "is_true" else "is_true"
        return rewrite(program, site, replace(node, func=flipped))
    if change == "bound":
        site = _pick(rng, [s for s in found if isinstance(s[1], ast.Int)])
        if site is None:
            return None
        node = site[1]
        assert isinstance(node, ast.Int)
        value = rng.choice([v for v in (node.value + 1, node.value * 2, node.value // 2)
                            if v != node.value] or [node.value + 1])
        return rewrite(program, site, replace(node, value=value))
    index = rng.choice(ensures)
    call = program.instructions[index].call
    if not call.args:
        return None
    position = rng.randrange(len(call.args))
    arg = call.args[position]
    new = arg.operand if isinstance(arg, ast.UnaryOp) and arg.op == "not" else (
        ast.UnaryOp(_SPAN, "not", arg)
    )
    args = (*call.args[:position], new, *call.args[position + 1 :])
    return with_instruction(program, index, replace(call, args=args))


# ---------------------------------------------------------------- story


STORY_LENGTHS = (20, 40, 80)


def mutate_story(program: ast.Program, rng: random.Random) -> ast.Program | None:
    def story_call(ins: ast.Instruction, node: ast.Expr) -> bool:
        return isinstance(node, ast.Call) and node.func == "story"

    site = _pick(rng, sites(program, story_call))
    if site is None:
        return None
    node = site[1]
    assert isinstance(node, ast.Call)
    options: list[tuple[ast.Expr, ...]] = [(), (ast.Int(_SPAN, rng.choice(STORY_LENGTHS)),)]
    literals = [
        n for ins in program.instructions for n in walk(ins.call)
        if isinstance(n, ast.Str) and n.value.strip()
    ]
    if literals:
        options.append((ast.Str(_SPAN, "Write a short story about " + rng.choice(
            literals).value[:60]),))
    current = tuple(type(a) for a in node.args)
    fresh = [args for args in options if tuple(type(a) for a in args) != current]
    return rewrite(program, site, replace(node, args=rng.choice(fresh)))


OPERATORS: dict[str, Operator] = {
    "length": mutate_length,
    "register": mutate_register,
    "reward": mutate_reward,
    "reveal": mutate_reveal,
    "player": mutate_player,
    "condition": mutate_condition,
    "story": mutate_story,
}
