"""Static checker for parsed XGL programs: instruction shapes, kinds and program order.

Runs before any model is loaded and reports every problem at once, each located with a
span, explained, and with the valid options or the fix.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from arena.errors import Diagnostic
from arena.lang.ast import (
    INSTRUCTIONS,
    Call,
    Expr,
    Instruction,
    Int,
    Name,
    Program,
    Span,
    iter_children,
)
from arena.lang.kinds import (
    KIND_NAMES,
    XENT_SUM_HINT,
    KindInferrer,
    Reporter,
    is_int_literal,
    name_span,
    unknown_message,
)
from arena.lang.limits import DEFAULT_LIMITS, DEFAULT_STORY_TOKENS, ResourceLimits, raise_hint
from arena.lang.names import (
    ALL_REGISTERS,
    CONSTANT_TYPES,
    FLAGS,
    PLAYERS,
    STRING_REGISTERS,
    is_constant,
    register_kind,
)
from arena.lang.parser import split_lines

MUTABLE_REGISTERS: tuple[str, ...] = tuple(
    r for r in STRING_REGISTERS if r[0] not in CONSTANT_TYPES
)
SETUP_ENDERS = frozenset({"elicit", "reward", "ensure", "beacon"})
MAX_LEN_HINT = "add the maximum move length in judge tokens, e.g. elicit(t, 10)"
_MUTABLE_HINT = "elicit stores moves in mutable string registers: s, t, x, y, p (or s0-s3, ...)"


def check_program(
    program: Program,
    *,
    unparsed_lines: Mapping[int, str] | None = None,
    limits: ResourceLimits = DEFAULT_LIMITS,
) -> list[Diagnostic]:
    """Every static problem of `program`, ordered by line then column.

    `unparsed_lines` maps lines that failed to parse to the instruction name each seems to
    start with ("" if unreadable). Order rules (ensure after elicit, replay after beacon)
    are not enforced below a broken line that may be the elicit or beacon they need."""
    reporter = Reporter(program.filename, split_lines(program.source))
    _Checker(program, reporter, dict(unparsed_lines or {})).run()
    _check_story_lengths(program, reporter, limits)
    _check_map_story_tokens(program, reporter, limits)
    _check_move_lengths(program, reporter, limits)
    return sorted(reporter.diagnostics, key=lambda d: (d.line, d.col))


class _Checker:
    def __init__(self, program: Program, reporter: Reporter, unparsed: dict[int, str]) -> None:
        self.program, self.report, self.unparsed = program, reporter, unparsed
        self.kinds = KindInferrer(reporter, program.dialect)
        self.first_elicit: int | None = None
        self.setup_end: int | None = None  # line of the first elicit/reward/ensure/beacon
        self.beacons: set[str] = set()

    def run(self) -> None:
        for ins in sorted(self.program.instructions, key=lambda i: i.line):
            getattr(self, f"check_{ins.name}")(ins)
            if ins.name in SETUP_ENDERS and self.setup_end is None:
                self.setup_end = ins.line
            if ins.name == "elicit" and self.first_elicit is None:
                self.first_elicit = ins.line
            if ins.name == "beacon" and len(ins.call.args) == 1:
                flag = ins.call.args[0]
                if isinstance(flag, Name):
                    self.beacons.add(flag.id)

    # -- shared helpers

    def maybe_missing(self, instruction: str, line: int) -> bool:
        """Whether a broken line above `line` may be the `instruction` an order rule needs:
        it starts with that name, with no readable name, or with a misspelt one."""
        for number, name in self.unparsed.items():
            if number >= line or (name in INSTRUCTIONS and name != instruction):
                continue
            close = difflib.get_close_matches(name, INSTRUCTIONS, n=1, cutoff=0.6)
            if not close or close[0] == instruction:
                return True
        return False

    def no_keywords(self, call: Call) -> None:
        for kw in call.keywords:
            self.report.error(
                name_span(kw.span, kw.name),
                f"{call.func} takes no keyword arguments (got '{kw.name}=')",
                f"pass the arguments by position: {_USAGE[call.func]}",
            )

    def arity_error(self, call: Call, message: str) -> None:
        self.report.error(call.span, message, f"usage: {_USAGE[call.func]}")

    def leading_player(self, call: Call) -> int:
        """1 if the first argument names a player, else 0."""
        first = call.args[0] if call.args else None
        return 1 if isinstance(first, Name) and first.id in PLAYERS else 0

    def misplaced_player(self, call: Call, expr: Expr) -> bool:
        """Report a player name that is not the first argument; True if reported."""
        if isinstance(expr, Name) and expr.id in PLAYERS:
            self.report.error(
                expr.span,
                f"the player '{expr.id}' must be the first argument of {call.func}",
                f"e.g. {call.func}({expr.id}, ...)",
            )
            return True
        return False

    def unknown_first(self, call: Call, registers: tuple[str, ...], values: int) -> bool:
        """Report a first argument that is a bare name but neither a player nor a valid
        register, when `values` (the arguments other than a trailing max_len) leave room
        for a player: probably a misspelt player. True if reported."""
        first = call.args[0] if call.args else None
        if values < 2:
            return False
        if not isinstance(first, Name) or first.id in ALL_REGISTERS or first.id in FLAGS:
            return False
        if first.id in PLAYERS:
            return False
        what = "player or register" if registers else "player"
        self.report.error(
            first.span,
            unknown_message(what, first.id, PLAYERS + registers),
            f"players: {', '.join(PLAYERS)}",
        )
        return True

    # -- instructions

    def check_assign(self, ins: Instruction) -> None:
        call = ins.call
        for arg in call.args:
            self.report.error(
                arg.span,
                "assign takes keyword arguments only",
                "name the register: assign(s=...), one register=value pair per register",
            )
        if not call.args and not call.keywords:
            self.arity_error(call, "assign needs at least one register=value")
        self.repeated_keywords(call)
        for kw in call.keywords:
            kind = self.kinds.kind(kw.value)
            where = name_span(kw.span, kw.name)
            target = register_kind(kw.name)
            if target is None:
                if kw.name in PLAYERS or kw.name in FLAGS:
                    what = "player" if kw.name in PLAYERS else "flag"
                    message = f"'{kw.name}' is a {what}, not a register"
                else:
                    message = unknown_message("register", kw.name, ALL_REGISTERS)
                self.report.error(where, message, "assign stores into registers, e.g. s1 or l")
                continue
            if kind is not None and kind != target:
                holder = "string register" if target == "str" else "list register"
                self.report.error(
                    kw.value.span,
                    f"cannot store {KIND_NAMES[kind]} in the {holder} '{kw.name}'",
                    "string registers (s t x y p a b c, with 0-3) hold strings; list "
                    "registers (l, l0-l3) hold lists",
                )
            if is_constant(kw.name) and self.setup_end is not None:
                self.report.error(
                    where,
                    f"constant register '{kw.name}' can only be assigned in the setup block "
                    f"(before line {self.setup_end}, the first elicit, reward, ensure or "
                    "beacon)",
                    f"assign it before line {self.setup_end}, or use a mutable register "
                    "(s, t, x, y, p)",
                )

    def repeated_keywords(self, call: Call) -> None:
        """A register named twice in one assign: an error in dialect xgl; dialect xent keeps
        the last value, as the reference implementation (XGL.md section 9)."""
        if self.program.dialect == "xent":
            return
        seen: set[str] = set()
        for kw in call.keywords:
            if kw.name in seen:
                self.report.error(
                    name_span(kw.span, kw.name),
                    f"keyword argument '{kw.name}' is given twice",
                    "give each keyword argument once (only dialect xent keeps the last value)",
                )
            seen.add(kw.name)

    def check_elicit(self, ins: Instruction) -> None:
        call = ins.call
        self.no_keywords(call)
        if not call.args:
            self.arity_error(call, "elicit needs a register and a maximum length")
            return
        start = self.leading_player(call)
        last = call.args[-1]
        has_max_len = len(call.args) > start and self.kinds_is_int(last)
        end = len(call.args) - 1 if has_max_len else len(call.args)
        unknown_first = self.unknown_first(call, MUTABLE_REGISTERS, end)
        if unknown_first:
            start = 1
        if has_max_len:
            if not isinstance(last, Int) or last.value < 1:
                self.report.error(
                    last.span,
                    "the maximum length of elicit must be an integer literal >= 1",
                    MAX_LEN_HINT,
                )
        else:
            close = Span(call.span.line, call.span.end_col - 1, call.span.end_col)
            self.report.error(close, "elicit is missing its maximum length", MAX_LEN_HINT)
        registers = call.args[start:end]
        if not registers and not unknown_first:
            self.arity_error(call, "elicit needs at least one register to store the move")
        seen: set[str] = set()
        for reg in registers:
            self.elicit_register(call, reg, seen)

    def kinds_is_int(self, expr: Expr) -> bool:
        """Whether `expr` is meant as elicit's maximum length (an integer expression)."""
        if is_int_literal(expr):
            return True
        return not isinstance(expr, Name) and _quiet_kind(expr) == "int"

    def elicit_register(self, call: Call, reg: Expr, seen: set[str]) -> None:
        if self.misplaced_player(call, reg):
            return
        if not isinstance(reg, Name):
            self.kinds.kind(reg)
            self.report.error(
                reg.span, "elicit stores moves in registers, not in an expression", _MUTABLE_HINT
            )
            return
        name = reg.id
        if name in seen:
            self.report.error(reg.span, f"register '{name}' is elicited twice", "list it once")
        seen.add(name)
        if name in FLAGS:
            message = f"'{name}' is a flag, not a register"
        elif name not in ALL_REGISTERS:
            message = unknown_message("register", name, MUTABLE_REGISTERS)
        elif is_constant(name):
            message = f"elicit cannot store into the constant register '{name}'"
        elif register_kind(name) == "list":
            message = f"elicit stores a string; '{name}' is a list register"
        else:
            return
        self.report.error(reg.span, message, _MUTABLE_HINT)

    def check_reveal(self, ins: Instruction) -> None:
        call = ins.call
        self.no_keywords(call)
        start = self.leading_player(call)
        if self.unknown_first(call, ALL_REGISTERS, len(call.args)):
            start = 1
        values = call.args[start:]
        if not values:
            self.arity_error(call, "reveal needs at least one expression to show")
        for value in values:
            if not self.misplaced_player(call, value):
                self.kinds.expect(
                    value,
                    ("str", "list"),
                    "a revealed value",
                    "reveal shows strings and lists, e.g. reveal(alice, s1)",
                )

    def check_reward(self, ins: Instruction) -> None:
        call = ins.call
        self.no_keywords(call)
        count = len(call.args)
        if count not in (1, 2):
            self.arity_error(call, f"reward takes a player and an amount, got {count} arguments")
            for arg in call.args:
                if not (isinstance(arg, Name) and arg.id in PLAYERS):
                    self.kinds.kind(arg)
            return
        if count == 1 and self.leading_player(call):
            self.arity_error(call, "reward needs an amount after the player")
            return
        if count == 2 and not self.leading_player(call):
            first = call.args[0]
            if not self.unknown_first(call, (), count):
                self.report.error(
                    first.span,
                    "the first of two reward arguments must be a player",
                    f"players: {', '.join(PLAYERS)}; e.g. reward(alice, xed(s | t))",
                )
        amount = call.args[-1]
        if self.misplaced_player(call, amount):
            return
        kind = self.kinds.kind(amount)
        if kind is not None and kind != "xent":
            self.report.error(
                amount.span,
                f"a reward must be a signed xent sum, not {KIND_NAMES[kind]}",
                XENT_SUM_HINT,
            )

    def check_ensure(self, ins: Instruction) -> None:
        call = ins.call
        self.no_keywords(call)
        if not call.args:
            self.arity_error(call, "ensure needs at least one condition")
        for cond in call.args:
            if self.program.dialect == "xent":
                # The reference raises on a condition that is not a boolean (XGL.md section 9).
                self.kinds.expect(
                    cond,
                    ("bool",),
                    "an ensure condition in dialect xent",
                    "use a comparison such as xed(s | t) > 0 or wrap a statement string in "
                    "is_true(...); only dialect xgl reads a bare string as is_true(s)",
                )
                continue
            self.kinds.expect(
                cond,
                ("bool", "str"),
                "an ensure condition",
                "use a comparison such as xed(s | t) > 0, a function such as is_true(...), "
                "or a statement string for the judge",
            )
        if self.first_elicit is None and not self.maybe_missing("elicit", ins.line):
            self.report.error(
                call.func_span,
                "ensure has no elicit on an earlier line",
                "ensure checks the move of the most recent elicit: put an elicit(...) above it",
            )

    def check_beacon(self, ins: Instruction) -> None:
        call = ins.call
        self.no_keywords(call)
        if len(call.args) != 1:
            self.arity_error(call, f"beacon takes one flag, got {len(call.args)} arguments")
        for arg in call.args[:1]:
            self.flag(arg)

    def check_replay(self, ins: Instruction) -> None:
        call = ins.call
        self.no_keywords(call)
        if len(call.args) != 2:
            self.arity_error(
                call, f"replay takes a flag and a count, got {len(call.args)} arguments"
            )
            return
        flag, count = call.args
        known = self.flag(flag)
        if not isinstance(count, Int):
            self.kinds.kind(count)
            self.report.error(
                count.span,
                "the replay count must be an integer literal >= 0",
                "e.g. replay(flag_1, 10) runs the block 11 times",
            )
        if (
            known is not None
            and self.program.dialect == "xent"
            and known not in self.beacons
            and not self.maybe_missing("beacon", ins.line)
        ):
            self.report.error(
                flag.span,
                f"replay of '{known}' with no beacon({known}) on an earlier line",
                f"add beacon({known}) above this line (in dialect xgl flags start at line 1)",
            )

    def flag(self, expr: Expr) -> str | None:
        """The flag named by `expr`, or None after reporting it."""
        if isinstance(expr, Name) and expr.id in FLAGS:
            return expr.id
        if isinstance(expr, Name):
            message = unknown_message("flag", expr.id, FLAGS)
        else:
            message = "expected a flag name"
        self.report.error(expr.span, message, "flags: flag_1, flag_2")
        return None


def _check_story_lengths(program: Program, reporter: Reporter, limits: ResourceLimits) -> None:
    """story(n) asks the story source for n tokens before play: bound n here, at load time,
    rather than after minutes of generation."""
    stack: list[Expr] = [ins.call for ins in program.instructions]
    while stack:
        expr = stack.pop()
        stack.extend(iter_children(expr))
        if not (isinstance(expr, Call) and expr.func == "story" and expr.args):
            continue
        length = expr.args[0]
        if isinstance(length, Int) and length.value > limits.max_story_tokens:
            reporter.error(
                length.span,
                limits.exceeded("max_story_tokens", "this story length", length.value),
                "ask for a shorter story; " + raise_hint("max_story_tokens"),
            )


def _check_map_story_tokens(
    program: Program, reporter: Reporter, limits: ResourceLimits
) -> None:
    """Every story() site is generated once per map: bound their sum here, at load time, so
    that thousands of sites cannot keep the story source busy for hours per map."""
    total = 0
    for ins in program.instructions:
        stack: list[Expr] = [ins.call]
        while stack:
            expr = stack.pop()
            stack.extend(reversed(list(iter_children(expr))))
            if not (isinstance(expr, Call) and expr.func == "story"):
                continue
            first = expr.args[0] if expr.args else None
            length = first.value if isinstance(first, Int) else DEFAULT_STORY_TOKENS
            total += min(length, limits.max_story_tokens)  # a longer site is reported alone
            if total > limits.max_map_story_tokens:
                reporter.error(
                    expr.span,
                    limits.exceeded(
                        "max_map_story_tokens", "the story text of one map up to here", total
                    ),
                    "use fewer or shorter story() calls; " + raise_hint("max_map_story_tokens"),
                )
                return


def _check_move_lengths(program: Program, reporter: Reporter, limits: ResourceLimits) -> None:
    """elicit(..., n) asks a player for a move of n tokens: bound n here, at load time, so
    that no player is asked to build (and no judge to cut) a move of 10^18 tokens."""
    for ins in program.instructions:
        length = ins.call.args[-1] if ins.name == "elicit" and ins.call.args else None
        if isinstance(length, Int) and length.value > limits.max_move_tokens:
            reporter.error(
                length.span,
                limits.exceeded("max_move_tokens", "this move length", length.value),
                "ask for a shorter move; " + raise_hint("max_move_tokens"),
            )


def _quiet_kind(expr: Expr) -> str | None:
    """The kind of `expr` without reporting anything (used to classify arguments)."""
    return KindInferrer(Reporter("", [])).kind(expr)


_USAGE: dict[str, str] = {
    "assign": "assign(r1=expr1, r2=expr2, ...)",
    "elicit": "elicit([player,] r1[, r2 ...], max_len)",
    "reveal": "reveal([player,] e1[, e2 ...])",
    "reward": "reward([player,] amount)",
    "ensure": "ensure(c1[, c2 ...])",
    "beacon": "beacon(flag_1) or beacon(flag_2)",
    "replay": "replay(flag, n)",
}
