"""Static kinds of XGL expressions: which of str, list, int, bool, xent each one yields.

The checker asks for an expression's kind; every misuse found on the way (unknown names,
wrong operand kinds, bad calls) is reported once, and an expression whose kind cannot be
known yields None so that one mistake does not cascade into several messages.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Literal

from arena.errors import Diagnostic, did_you_mean
from arena.lang.ast import (
    INSTRUCTIONS,
    BinOp,
    BoolOp,
    Call,
    Compare,
    Dialect,
    Expr,
    Int,
    ListLit,
    Name,
    Span,
    Str,
    Subscript,
    UnaryOp,
)
from arena.lang.names import ALL_REGISTERS, FLAGS, FUNCTIONS, PLAYERS, Signature, register_kind

StaticKind = Literal["str", "list", "int", "bool", "xent"]

KIND_NAMES: dict[str, str] = {
    "str": "a string",
    "list": "a list",
    "int": "an integer",
    "bool": "a condition",
    "xent": "a xent sum",
    "float": "a float",
}

XENT_SUM_HINT = (
    "a signed xent sum is xent/xed/nex/dex terms combined with +, - and unary -, "
    "each optionally multiplied by an integer literal, e.g. xed(s | t) - 2*xent(t)"
)
_ARITH_HINT = (
    "+ joins two strings or two lists and adds two xent sums or two integers; "
    "- subtracts xent sums or integers"
)


def unknown_message(kind: str, name: str, options: Sequence[str]) -> str:
    """ "Unknown <kind> '<name>'. Did you mean ...? Valid options: ...".

    Falls back to a looser match than `did_you_mean` so that two-letter register names
    (`q1`) still get a suggestion; ties go to the earliest option in `options`."""
    text = did_you_mean(name, options)
    if "Did you mean" not in text:
        scored = [
            (difflib.SequenceMatcher(None, name, option).ratio(), -i, option)
            for i, option in enumerate(options)
        ]
        best = max(scored, default=None)
        if best is not None and best[0] >= 0.5:
            text = f" Did you mean '{best[2]}'?{text}"
    return f"Unknown {kind} '{name}'.{text}"


def is_int_literal(expr: Expr) -> bool:
    """An integer literal, possibly negated: the only allowed scale of a xent sum."""
    while isinstance(expr, UnaryOp) and expr.op == "-":
        expr = expr.operand
    return isinstance(expr, Int)


class Reporter:
    """Collects diagnostics for one game file."""

    def __init__(self, filename: str, lines: Sequence[str]) -> None:
        self.filename, self.lines = filename, lines
        self.diagnostics: list[Diagnostic] = []

    def error(self, span: Span, message: str, hint: str = "") -> None:
        source = self.lines[span.line - 1] if 0 < span.line <= len(self.lines) else ""
        end = max(span.end_col, span.col + 1)
        self.diagnostics.append(
            Diagnostic(self.filename, span.line, span.col, end, message, source, hint)
        )


def name_span(span: Span, name: str) -> Span:
    """The span of the first `len(name)` characters of `span` (a keyword's name)."""
    return Span(span.line, span.col, span.col + len(name))


class KindInferrer:
    """Infers static kinds and reports every misuse to a Reporter."""

    def __init__(self, reporter: Reporter, dialect: Dialect = "xgl") -> None:
        self.report = reporter
        self.dialect = dialect

    def kind(self, expr: Expr) -> StaticKind | None:
        if isinstance(expr, Str):
            return "str"
        if isinstance(expr, Int):
            return "int"
        if isinstance(expr, Name):
            return self.name(expr)
        if isinstance(expr, ListLit):
            return self.list_literal(expr)
        if isinstance(expr, BinOp):
            return self.binop(expr)
        if isinstance(expr, UnaryOp):
            return self.unary(expr)
        if isinstance(expr, Compare):
            return self.compare(expr)
        if isinstance(expr, BoolOp):
            return self.boolop(expr)
        if isinstance(expr, Subscript):
            return self.subscript(expr)
        if isinstance(expr, Call):
            return self.call(expr)
        self.report.error(expr.span, f"unsupported expression {type(expr).__name__}")
        return None

    def expect(self, expr: Expr, allowed: Iterable[StaticKind], what: str, hint: str) -> bool:
        """Report `expr` unless its kind is one of `allowed`; `what` names the slot.
        False if `expr` has a problem (reported here or below)."""
        kind = self.kind(expr)
        options = tuple(allowed)
        if kind is not None and kind not in options:
            wanted = " or ".join(KIND_NAMES[k] for k in options)
            self.report.error(expr.span, f"{what} must be {wanted}, not {KIND_NAMES[kind]}", hint)
            return False
        return kind is not None

    # -- atoms

    def name(self, expr: Name) -> StaticKind | None:
        kind = register_kind(expr.id)
        if kind is not None:
            return kind
        if expr.id in PLAYERS:
            self.report.error(
                expr.span,
                f"'{expr.id}' is a player, not a value",
                "a player can only be the first argument of elicit, reveal or reward, "
                f"e.g. reveal({expr.id}, s)",
            )
        elif expr.id in FLAGS:
            self.report.error(
                expr.span,
                f"'{expr.id}' is a flag, not a value",
                f"flags are only used in beacon({expr.id}) and replay({expr.id}, n)",
            )
        elif expr.id in FUNCTIONS:
            self.report.error(
                expr.span,
                f"function '{expr.id}' must be called",
                f"usage: {FUNCTIONS[expr.id].doc}",
            )
        else:
            self.report.error(
                expr.span,
                unknown_message("register", expr.id, ALL_REGISTERS),
                "string registers are s t x y p a b c (with 0-3, e.g. s1); list registers "
                "are l, l0-l3",
            )
        return None

    def list_literal(self, expr: ListLit) -> StaticKind | None:
        ok = True
        for item in expr.items:
            hint = 'lists hold strings, e.g. ["a", "b"]'
            ok = self.expect(item, ("str",), "a list item", hint) and ok
        return "list" if ok else None

    # -- operators

    def binop(self, expr: BinOp) -> StaticKind | None:
        left, right = self.kind(expr.left), self.kind(expr.right)
        if left is None or right is None:
            return None
        op = expr.op
        pair = (left, right)
        result: StaticKind | None = None
        hint = _ARITH_HINT
        if op in ("+", "-") and left == right:
            addable = ("str", "list", "xent", "int") if op == "+" else ("xent", "int")
            result = left if left in addable else None
        elif op == "*":
            if pair == ("int", "int"):
                result = "int"
            elif pair in (("int", "xent"), ("xent", "int")):
                factor = expr.left if left == "int" else expr.right
                if is_int_literal(factor):
                    result = "xent"
                else:
                    self.report.error(
                        factor.span,
                        "a xent sum can only be multiplied by an integer literal",
                        "write the number itself, e.g. 2*xed(s | t)",
                    )
                    return None
            hint = "* multiplies integers, or a xent sum by an integer literal"
        elif op in ("//", "%", "|"):
            if pair == ("str", "str"):
                result = "str"
            hint = {
                "//": "a // b is the part of string a before string b",
                "%": "a % b is the part of string a after string b",
                "|": "s | t is string s conditioned on string t, e.g. xed(s | t)",
            }[op]
        if result is None:
            self.report.error(
                expr.span,
                f"'{op}' cannot combine {KIND_NAMES[left]} and {KIND_NAMES[right]}",
                hint,
            )
        return result

    def unary(self, expr: UnaryOp) -> StaticKind | None:
        operand = self.kind(expr.operand)
        if operand is None:
            return None
        if expr.op == "-":
            if operand in ("xent", "int"):
                return operand
            self.report.error(
                expr.span,
                f"unary '-' cannot negate {KIND_NAMES[operand]}",
                "only xent sums and integers can be negated, e.g. -xed(s | t)",
            )
            return None
        if operand == "bool":
            return "bool"
        self.report.error(
            expr.span,
            f"'not' needs a condition, not {KIND_NAMES[operand]}",
            "negate a comparison or is_true(...); for a statement string use is_false(...)",
        )
        return None

    def compare(self, expr: Compare) -> StaticKind | None:
        ok = True
        left_expr = expr.left
        left = self.kind(left_expr)
        for op, right_expr in zip(expr.ops, expr.comparators, strict=True):
            right = self.kind(right_expr)
            if (
                left is not None
                and right is not None
                and not _comparable(op, left, right)
                and not (self.dialect == "xent" and _unequal_kinds(op, left, right))
            ):
                ok = False
                span = Span(expr.span.line, left_expr.span.col, right_expr.span.end_col)
                self.report.error(
                    span,
                    f"'{op}' cannot compare {KIND_NAMES[left]} with {KIND_NAMES[right]}",
                    "< <= > >= == != compare xent sums and integers; == and != also compare "
                    "two strings or two lists; 'in' and 'not in' test a string in a string "
                    "or a list",
                )
            left_expr, left = right_expr, right
        return "bool" if ok else None

    def boolop(self, expr: BoolOp) -> StaticKind | None:
        ok = True
        for value in expr.values:
            kind = self.kind(value)
            if kind is not None and kind != "bool":
                ok = False
                self.report.error(
                    value.span,
                    f"'{expr.op}' needs conditions, not {KIND_NAMES[kind]}",
                    "use comparisons or is_true(...); a statement string can be wrapped in "
                    "is_true(...)",
                )
        return "bool" if ok else None

    def subscript(self, expr: Subscript) -> StaticKind | None:
        value, index = self.kind(expr.value), self.kind(expr.index)
        if value is not None and value != "list":
            self.report.error(
                expr.value.span,
                f"only lists can be indexed, not {KIND_NAMES[value]}",
                "index a list register or list expression, e.g. l[0]",
            )
            return None
        if index is not None and index != "int":
            self.report.error(
                expr.index.span,
                f"a list index must be an integer, not {KIND_NAMES[index]}",
                "e.g. l[0]",
            )
            return None
        return "str" if value is not None and index is not None else None

    # -- calls

    def call(self, call: Call) -> StaticKind | None:
        sig = FUNCTIONS.get(call.func)
        if sig is None:
            if call.func in INSTRUCTIONS:
                self.report.error(
                    call.func_span,
                    f"instruction '{call.func}' cannot be used inside an expression",
                    "put each instruction on its own line",
                )
            else:
                self.report.error(
                    call.func_span,
                    unknown_message("function", call.func, sorted(FUNCTIONS)),
                    "only the built-in functions can be called",
                )
            for arg in call.args:
                self.kind(arg)
            for kw in call.keywords:
                self.kind(kw.value)
            return None
        ok = self.arguments(call, sig)
        if call.func == "story":
            ok = self.story(call) and ok
        return _static(sig.result) if ok else None

    def arguments(self, call: Call, sig: Signature) -> bool:
        """Check arity, argument kinds and keywords of a built-in call; False on a problem."""
        ok = True
        usage = f"usage: {sig.doc}"
        count = len(call.args)
        low, high = len(sig.params) - sig.optional, len(sig.params)
        if count < low or (count > high and not sig.variadic_str):
            ok = False
            if sig.variadic_str:
                wanted = f"at least {low}"
            elif low == high:
                wanted = str(low)
            else:
                wanted = f"{low} to {high}"
            plural = "" if wanted == "1" else "s"
            self.report.error(
                call.span,
                f"{call.func}() takes {wanted} argument{plural}, got {count}",
                usage,
            )
        for i, arg in enumerate(call.args):
            allowed = sig.params[i] if i < len(sig.params) else ("str",)
            if self.dialect == "xent" and i in sig.xent_list_args:
                allowed = (*allowed, "list")
            kind = self.kind(arg)
            if kind is not None and kind not in allowed:
                ok = False
                wanted = " or ".join(KIND_NAMES[k] for k in allowed)
                hint = usage
                if kind == "list" and i in sig.xent_list_args:
                    hint += " (a list is accepted here in dialect xent only)"
                self.report.error(
                    arg.span,
                    f"argument {i + 1} of {call.func}() must be {wanted}, not {KIND_NAMES[kind]}",
                    hint,
                )
        for kw in call.keywords:
            if kw.name not in sig.keywords:
                ok = False
                self.kind(kw.value)
                if sig.keywords:
                    options = did_you_mean(kw.name, sig.keywords)
                    message = f"Unknown keyword argument '{kw.name}' of {call.func}().{options}"
                else:
                    message = f"{call.func}() takes no keyword arguments (got '{kw.name}=')"
                self.report.error(name_span(kw.span, kw.name), message, usage)
                continue
            position = len(sig.params) - len(sig.keywords) + sig.keywords.index(kw.name)
            if position < count:
                ok = False
                self.report.error(
                    name_span(kw.span, kw.name),
                    f"{call.func}() got '{kw.name}' twice, by position and by keyword",
                    usage,
                )
            allowed = sig.params[position]
            kind = self.kind(kw.value)
            if kind is not None and kind not in allowed:
                ok = False
                wanted = " or ".join(KIND_NAMES[k] for k in allowed)
                self.report.error(
                    kw.value.span,
                    f"'{kw.name}=' of {call.func}() must be {wanted}, not {KIND_NAMES[kind]}",
                    usage,
                )
        return ok

    def story(self, call: Call) -> bool:
        """story() is resolved once per map before play, so its argument must be literal."""
        for arg in call.args:
            if not isinstance(arg, (Int, Str)):
                self.report.error(
                    arg.span,
                    "the argument of story() must be an integer or string literal",
                    "story texts are drawn once per map, before play: write e.g. story(20) "
                    'or story("a short fable")',
                )
                return False
        return True


def _static(kind: str) -> StaticKind | None:
    for known in _STATIC_KINDS:
        if known == kind:
            return known
    return None


_STATIC_KINDS: tuple[StaticKind, ...] = ("str", "list", "int", "bool", "xent")


def _comparable(op: str, left: str, right: str) -> bool:
    numeric = ("xent", "int")
    if op in ("in", "not in"):
        return left == "str" and right in ("str", "list")
    if left in numeric and right in numeric:
        return True
    return op in ("==", "!=") and left == right and left in ("str", "list")


def _unequal_kinds(op: str, left: str, right: str) -> bool:
    """`s == 123` / `s != 123`: dialect xent compares a string and an integer as unequal,
    as the reference does (XGL.md section 9)."""
    return op in ("==", "!=") and {left, right} == {"str", "int"}
