"""Asynchronous evaluation of XGL expressions.

Every xent-family and truth call of one instruction is scored in a single batched judge
request: a first pass evaluates the string arguments of those calls (memoised, so nothing
is computed twice and seeded helpers draw once), then one `judge.score` call, then the
expression is evaluated with the results at hand.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeGuard

from arena.errors import GameRuntimeError
from arena.lang import ast
from arena.lang.ast import Dialect
from arena.lang.dialects import DialectRules
from arena.lang.flow import Flow, Origin, union
from arena.lang.meter import RoundMeter
from arena.lang.truth import truth_requests, truth_verdict
from arena.lang.values import (
    Text,
    Value,
    XentKind,
    XentSum,
    XentTerm,
    cat,
    cut_after,
    cut_before,
    kind_name,
)
from arena.protocols.judge import Judge, ScoreRequest, TokenScores

_XENT_KINDS: tuple[XentKind, ...] = ("xent", "xed", "nex", "dex")
_TRUTH = ("is_true", "is_false")


@dataclass
class EvalEnv:
    """What expressions can read: registers, the map's resolved stories, the judge; the
    round's meter, which every value built and every judge request is charged to; and the
    round's information flow (`arena.lang.flow`), where each register's origin is kept."""

    registers: Mapping[str, Text | list[str]]
    judge: Judge
    rules: DialectRules  # the game's dialect and version (`arena.lang.dialects`)
    stories: Mapping[str, str]
    rng: random.Random
    line: int = 0
    source: str = ""
    meter: RoundMeter = field(default_factory=RoundMeter)
    flow: Flow = field(default_factory=Flow)

    @property
    def dialect(self) -> Dialect:
        """The dialect family: how text is joined, scored and tokenised."""
        return self.rules.family


def story_site(call: ast.Call) -> str:
    """The key under which a `story(...)` call site's text is stored with the map."""
    return f"{call.span.line}:{call.span.col}"


def iter_calls(expr: ast.Expr) -> Iterator[ast.Call]:
    """Every call node inside an expression, depth first."""
    if isinstance(expr, ast.Call):
        yield expr
    for child in ast.iter_children(expr):
        yield from iter_calls(child)


def source_of(span: ast.Span, source_line: str) -> str:
    return source_line[span.col : span.end_col]


class Evaluator:
    """Evaluates the expressions of one instruction execution."""

    def __init__(self, env: EvalEnv) -> None:
        self.env = env
        self._memo: dict[int, Value] = {}
        self._origins: dict[int, Origin] = {}
        self._scores: dict[int, list[TokenScores]] = {}

    def fail(self, message: str) -> GameRuntimeError:
        return GameRuntimeError(message, self.env.line, self.env.source)

    # ------------------------------------------------------------ judge prefetch

    async def prefetch(self, exprs: Sequence[ast.Expr]) -> None:
        """Score every xent and truth call of `exprs` in one batched judge request."""
        plans: list[tuple[ast.Call, list[ScoreRequest]]] = []
        for expr in exprs:
            for call in iter_calls(expr):
                if call.func in _XENT_KINDS:
                    plans.append((call, await self._xent_requests(call)))
                elif call.func in _TRUTH:
                    plans.append((call, await self._truth_requests(call)))
        requests = [r for _, rs in plans for r in rs]
        if not requests:
            return
        self._charge_judge(requests)
        results = await self.env.judge.score(requests)
        if len(results) != len(requests):
            raise self.fail(
                f"The judge returned {len(results)} results for {len(requests)} requests."
            )
        position = 0
        for call, rs in plans:
            self._scores[id(call)] = list(results[position : position + len(rs)])
            position += len(rs)

    async def _xent_requests(self, call: ast.Call) -> list[ScoreRequest]:
        target, context, pre = await self._xent_arguments(call)
        dialect = self.env.dialect
        if call.func in ("xent", "nex"):
            return [ScoreRequest(target, cat(pre, context, dialect), dialect)]
        # xed = xent(s, o) - xent(s | t, o): both share the target's tokens.
        return [
            ScoreRequest(target, pre, dialect),
            ScoreRequest(target, cat(pre, context, dialect), dialect),
        ]

    async def _xent_arguments(self, call: ast.Call) -> tuple[str, str, str]:
        subject = await self.text(call.args[0])
        pre_expr: ast.Expr | None = call.args[1] if len(call.args) > 1 else None
        for kw in call.keywords:
            if kw.name == "o":
                pre_expr = kw.value
        pre = (await self.text(pre_expr)).text if pre_expr is not None else ""
        return subject.text, subject.prefix or "", pre

    async def _truth_requests(self, call: ast.Call) -> list[ScoreRequest]:
        statement = (await self.text(call.args[0])).text
        strings = [(await self.text(arg)).text for arg in call.args[1:]]
        return list(truth_requests(statement, strings, self.env.dialect))

    async def truth_of_statement(self, statement: str) -> bool:
        """A bare string condition in `ensure` means is_true(statement)."""
        true_req, false_req = truth_requests(statement, [], self.env.dialect)
        self._charge_judge([true_req, false_req])
        true_scores, false_scores = await self.env.judge.score([true_req, false_req])
        return truth_verdict(true_scores, false_scores)

    def _charge_judge(self, requests: Sequence[ScoreRequest]) -> None:
        chars = sum(len(r.target) + len(r.context) for r in requests)
        self.env.meter.judge(chars, self.env.line, self.env.source)

    # ------------------------------------------------------------ evaluation

    async def text(self, expr: ast.Expr) -> Text:
        value = await self.evaluate(expr)
        if not isinstance(value, Text):
            raise self.fail(f"Expected a string, got a {kind_name(value)} value.")
        return value

    async def evaluate(self, expr: ast.Expr) -> Value:
        key = id(expr)
        if key not in self._memo:
            value = await self._evaluate(expr)
            if isinstance(value, Text | list) and isinstance(expr, _BUILDERS):
                self.env.meter.value(value, self.env.line, self.env.source)
            self._memo[key] = value
            self._origins[key] = self._origin_of(expr)
        return self._memo[key]

    def origin(self, expr: ast.Expr) -> Origin:
        """Where the value of an evaluated expression came from (`arena.lang.flow`)."""
        return self._origins[id(expr)]

    def _origin_of(self, expr: ast.Expr) -> Origin:
        """A register's value, a map text or a draw is one labelled value; anything else
        was computed from its evaluated sub-expressions (literals add nothing)."""
        if isinstance(expr, ast.Name):
            return self.env.flow.register(expr.id)
        if isinstance(expr, ast.Call) and expr.func == "story":
            return Origin(frozenset({f"story {story_site(expr)}"}), exact=True)
        if isinstance(expr, ast.Call) and expr.func in ("sample", "shuffle"):
            return self.env.flow.atomic(f"{expr.func}@{expr.span.line}:{expr.span.col}")
        return self._computed_from(expr)

    def _computed_from(self, expr: ast.Expr) -> Origin:
        children = ast.iter_children(expr)
        return union(self._origins[id(c)] for c in children if id(c) in self._origins)

    async def _evaluate(self, expr: ast.Expr) -> Value:
        if isinstance(expr, ast.Str):
            return Text(expr.value)
        if isinstance(expr, ast.Int):
            return expr.value
        if isinstance(expr, ast.Name):
            if expr.id not in self.env.registers:
                raise self.fail(f"Unknown register '{expr.id}'.")
            # Shared, not copied: values are never changed in place (assign stores a copy),
            # and a line naming a long list a thousand times must not copy it a thousand times.
            return self.env.registers[expr.id]
        if isinstance(expr, ast.ListLit):
            return [(await self.text(item)).text for item in expr.items]
        if isinstance(expr, ast.BinOp):
            return await self._binop(expr)
        if isinstance(expr, ast.UnaryOp):
            return await self._unary(expr)
        if isinstance(expr, ast.Compare):
            return await self._compare(expr)
        if isinstance(expr, ast.BoolOp):
            return await self._boolop(expr)
        if isinstance(expr, ast.Subscript):
            return await self._subscript(expr)
        if isinstance(expr, ast.Call):
            return await self._call(expr)
        raise self.fail(f"Unsupported expression {type(expr).__name__}.")

    async def _binop(self, expr: ast.BinOp) -> Value:
        left = await self.evaluate(expr.left)
        right = await self.evaluate(expr.right)
        op = expr.op
        if op == "|" and isinstance(left, Text) and isinstance(right, Text):
            return Text(left.text, right.text)
        if isinstance(left, Text) and isinstance(right, Text):
            if op == "+":
                self._check_size(len(left.text) + len(right.text) + 1, None)
                return Text(cat(left.text, right.text, self.env.dialect))
            if op == "//":
                return Text(cut_before(left.text, right.text))
            if op == "%":
                return Text(cut_after(left.text, right.text))
        if isinstance(left, list) and isinstance(right, list) and op == "+":
            chars = sum(map(len, left)) + sum(map(len, right))
            self._check_size(chars, len(left) + len(right))
            return left + right
        if isinstance(left, XentSum) and isinstance(right, XentSum) and op in "+-":
            return left + right if op == "+" else left - right
        if op == "*" and isinstance(left, XentSum) and _is_int(right):
            return left.scaled(int(right))
        if op == "*" and isinstance(right, XentSum) and _is_int(left):
            return right.scaled(int(left))
        if _is_int(left) and _is_int(right) and op in ("+", "-", "*"):
            a, b = int(left), int(right)
            return a + b if op == "+" else a - b if op == "-" else a * b
        raise self.fail(
            f"Operator '{op}' does not apply to {kind_name(left)} and {kind_name(right)}."
        )

    def _check_size(self, chars: int, items: int | None) -> None:
        """Refuse a value over its size limit before building it."""
        self.env.meter.check_size(chars, items, self.env.line, self.env.source)

    async def _unary(self, expr: ast.UnaryOp) -> Value:
        operand = await self.evaluate(expr.operand)
        if expr.op == "not" and isinstance(operand, bool):
            return not operand
        if expr.op == "-" and isinstance(operand, XentSum):
            return -operand
        if expr.op == "-" and _is_int(operand):
            return -int(operand)
        raise self.fail(f"Operator '{expr.op}' does not apply to {kind_name(operand)}.")

    async def _compare(self, expr: ast.Compare) -> bool:
        left = await self.evaluate(expr.left)
        for op, comparator_expr in zip(expr.ops, expr.comparators, strict=True):
            right = await self.evaluate(comparator_expr)
            if not self._compare_pair(op, left, right):
                return False
            left = right
        return True

    def _compare_pair(self, op: ast.CompareKind, left: Value, right: Value) -> bool:
        if op in ("in", "not in"):
            if isinstance(left, Text) and isinstance(right, Text):
                found = left.text in right.text
            elif isinstance(left, Text) and isinstance(right, list):
                found = left.text in right
            else:
                kinds = f"{kind_name(left)} and {kind_name(right)}"
                raise self.fail(f"'{op}' does not apply to {kinds}.")
            return found if op == "in" else not found
        a = _as_number(left)
        b = _as_number(right)
        if a is not None and b is not None:
            return _ordered(op, a, b)
        if isinstance(left, Text) and isinstance(right, Text) and op in ("==", "!="):
            return (left.text == right.text) == (op == "==")
        if isinstance(left, list) and isinstance(right, list) and op in ("==", "!="):
            return (left == right) == (op == "==")
        if self.env.dialect == "xent" and op in ("==", "!=") and _text_and_int(left, right):
            return op == "!="  # the reference: a string never equals an integer
        raise self.fail(f"Cannot compare {kind_name(left)} {op} {kind_name(right)}.")

    async def _boolop(self, expr: ast.BoolOp) -> bool:
        for value_expr in expr.values:
            value = await self.condition(value_expr)
            if expr.op == "and" and not value:
                return False
            if expr.op == "or" and value:
                return True
        return expr.op == "and"

    async def condition(self, expr: ast.Expr) -> bool:
        """A boolean for `ensure`; a bare string is judged with is_true (dialect xgl only)."""
        value = await self.evaluate(expr)
        if isinstance(value, bool):
            return value
        if isinstance(value, Text) and self.env.dialect == "xent":
            raise self.fail("A condition must be a boolean in dialect xent, got a string.")
        if isinstance(value, Text):
            return await self.truth_of_statement(value.text)
        raise self.fail(f"A condition must be a boolean or a statement, got {kind_name(value)}.")

    async def _subscript(self, expr: ast.Subscript) -> Text:
        container = await self.evaluate(expr.value)
        index = await self.evaluate(expr.index)
        if not isinstance(container, list) or not _is_int(index):
            raise self.fail("Indexing needs a list and an integer, e.g. l[0].")
        if not -len(container) <= int(index) < len(container):
            raise self.fail(f"Index {index} is out of range for a list of {len(container)}.")
        return Text(container[int(index)])

    async def _call(self, call: ast.Call) -> Value:
        func = call.func
        if func in _XENT_KINDS:
            return await self._xent_value(call)
        if func in _TRUTH:
            if id(call) not in self._scores:
                await self.prefetch([call])
            verdict = truth_verdict(*self._scores[id(call)])
            return verdict if func == "is_true" else not verdict
        if func == "story":
            return self._story(call)
        args = [await self.evaluate(arg) for arg in call.args]
        handler = self.env.rules.functions.get(func)
        if handler is not None:
            texts = [a.text if isinstance(a, Text) else a for a in args]
            return handler(*texts)
        if func in ("first_n_tokens", "last_n_tokens"):
            text, count = _expect_text(args[0]), args[1]
            if not _is_int(count) or int(count) < 0:
                raise self.fail(f"{func} needs a non-negative integer count, got {count!r}.")
            self.env.meter.judge(len(text), self.env.line, self.env.source)
            (pieces,) = await self.env.judge.tokenize([text], self.env.dialect)
            n = int(count)
            chosen = pieces[:n] if func == "first_n_tokens" else (pieces[-n:] if n else [])
            return Text("".join(chosen))
        if func == "len":
            value = args[0]
            return len(value.text) if isinstance(value, Text) else len(_expect_list(value))
        if func == "sample":
            items = _expect_list(args[0])
            if not items:
                raise self.fail("sample() of an empty list.")
            return Text(self.env.rng.choice(items))
        if func == "shuffle":
            items = list(_expect_list(args[0]))
            self.env.rng.shuffle(items)
            return items
        raise self.fail(f"Unknown function '{func}'.")

    async def _xent_value(self, call: ast.Call) -> XentSum:
        if id(call) not in self._scores:
            await self.prefetch([call])
        scores = self._scores[id(call)]
        target, context, pre = await self._xent_arguments(call)
        kind: XentKind = call.func  # type: ignore[assignment]
        if kind in ("xent", "nex"):
            bits = scores[0].bits
            tokens, shown = scores[0].tokens, scores[0].shown
            context_used = cat(pre, context, self.env.dialect)
        else:
            plain, conditioned = scores
            if len(plain.bits) != len(conditioned.bits):
                raise self.fail("The judge tokenised the same target differently.")
            bits = tuple(a - b for a, b in zip(plain.bits, conditioned.bits, strict=True))
            tokens, shown = conditioned.tokens, conditioned.shown
            context_used = cat(pre, context, self.env.dialect)
        if kind in ("nex", "dex"):
            bits = tuple(-b for b in bits)
        term = XentTerm(
            kind=kind,
            source=source_of(call.span, self.env.source),
            target=target,
            context=context_used,
            tokens=tuple(tokens),
            bits=tuple(bits),
            sources=self._computed_from(call).sources,
            shown=shown,
        )
        return XentSum((term,))

    def _story(self, call: ast.Call) -> Text:
        site = story_site(call)
        if site not in self.env.stories:
            raise self.fail(f"No map text was resolved for story() at {site}.")
        return Text(self.env.stories[site])


# Expressions that build a new string or list (a register or literal only refers to one).
_BUILDERS = (ast.BinOp, ast.ListLit, ast.Call)


def _is_int(value: Value) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _text_and_int(left: Value, right: Value) -> bool:
    pair = (left, right)
    return any(isinstance(a, Text) and _is_int(b) for a, b in (pair, pair[::-1]))


def _as_number(value: Value) -> float | None:
    if isinstance(value, XentSum):
        return value.total
    if _is_int(value):
        return float(value)
    return None


def _ordered(op: ast.CompareKind, a: float, b: float) -> bool:
    comparisons: dict[str, Callable[[float, float], bool]] = {
        "<": lambda x, y: x < y,
        "<=": lambda x, y: x <= y,
        ">": lambda x, y: x > y,
        ">=": lambda x, y: x >= y,
        "==": lambda x, y: x == y,
        "!=": lambda x, y: x != y,
    }
    return comparisons[op](a, b)


def _expect_text(value: Value) -> str:
    if not isinstance(value, Text):
        raise GameRuntimeError(f"Expected a string, got {kind_name(value)}.")
    return value.text


def _expect_list(value: Value) -> list[str]:
    if not isinstance(value, list):
        raise GameRuntimeError(f"Expected a list, got {kind_name(value)}.")
    return value
