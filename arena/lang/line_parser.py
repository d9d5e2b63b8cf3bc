"""Parsing one XGL line: a hand-written Pratt parser over the tokens of `arena.lang.lexer`,
producing an instruction `Call` with an exact span on every node.

Each line is parsed on its own, so every broken line is reported at once. Python
expression syntax and precedence are followed for the supported subset; every other Python
construct is a diagnostic that says what is not XGL and how to write it instead.

Precedence, loosest first: `or`, `and`, `not`, comparisons (chained), `|`, `+ -`,
`* // %`, unary `-`, then calls, subscripts and atoms.
"""

from __future__ import annotations

from typing import NoReturn

from arena.lang.ast import (
    INSTRUCTIONS,
    BinOp,
    BinOpKind,
    BoolOp,
    Call,
    Compare,
    CompareKind,
    Expr,
    InstructionName,
    Int,
    Keyword,
    ListLit,
    Name,
    Span,
    Str,
    Subscript,
    UnaryOp,
    iter_children,
)
from arena.lang.lexer import Token, XGLSyntaxProblem, tokenize_line
from arena.lang.limits import DEFAULT_LIMITS, ResourceLimits
from arena.lang.names import ALL_REGISTERS
from arena.lang.source_limits import check_line_size, check_literals

MAX_LINES = 64
MAX_NESTING = 100  # brackets, unary operators and operands nested inside each other
MAX_DEPTH = 100  # depth of the expression tree (long `+` chains nest to the left)

_OR_BP, _AND_BP, _NOT_BP, _CMP_BP, _UNARY_BP = 1, 2, 3, 4, 8
_BINARY: dict[str, tuple[int, BinOpKind]] = {
    "|": (5, "|"),
    "+": (6, "+"),
    "-": (6, "-"),
    "*": (7, "*"),
    "//": (7, "//"),
    "%": (7, "%"),
}
_COMPARE: dict[str, CompareKind] = {
    "<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "==", "!=": "!=", "in": "in",
}  # fmt: skip
INSTRUCTION_NAMES: dict[str, InstructionName] = {name: name for name in INSTRUCTIONS}

_OPERATORS_HINT = "XGL operators: + - * // % | < <= > >= == != in, not in, and, or, not"
LINE_HINT = "each line is one instruction call, e.g. assign(s=story()) or elicit(t, 10)"

# Python operators and punctuation that are not XGL: (message, hint).
_FORBIDDEN_OPS: dict[str, tuple[str, str]] = {
    "**": (
        "'**' is not an XGL operator",
        "to scale a xent term multiply by an integer literal, e.g. 2*xed(s|t)",
    ),
    "/": ("'/' is not an XGL operator", "use // to cut a string before a separator, % after"),
    ".": (
        "attribute access is not allowed in XGL",
        "XGL values have no attributes or methods; use a built-in function, e.g. len(x)",
    ),
    "...": ("'...' is not an XGL value", "use a string, an integer or a list literal"),
    "{": ("dict and set literals are not allowed in XGL", 'use a list literal, e.g. ["a", "b"]'),
    "}": ("dict and set literals are not allowed in XGL", 'use a list literal, e.g. ["a", "b"]'),
    ";": ("only one instruction per line is allowed", "put each instruction on its own line"),
    ":=": ("assignment expressions (:=) are not allowed", "use assign(r=...) on its own line"),
    ":": ("':' is not allowed here", "slices, dicts, lambdas and annotations are not XGL"),
    "->": ("'->' is not allowed in XGL", LINE_HINT),
}
for _op in ("&", "^", "~", "<<", ">>", "@"):
    _FORBIDDEN_OPS[_op] = (f"'{_op}' is not an XGL operator", _OPERATORS_HINT)
for _op in ("+=", "-=", "*=", "/=", "//=", "%=", "**=", "|=", "&=", "^=", "@=", "<<=", ">>="):
    _FORBIDDEN_OPS[_op] = (
        f"augmented assignment ('{_op}') is not allowed in XGL",
        "use assign, e.g. assign(s=s + t)",
    )

# Python keywords that are not XGL: (message, hint); others get a generic message.
_FORBIDDEN_KEYWORDS: dict[str, tuple[str, str]] = {
    "lambda": ("lambdas are not allowed in XGL", "use the built-in functions directly"),
    "if": (
        "conditional expressions are not allowed in XGL",
        "constrain moves with ensure(...) instead",
    ),
    "else": (
        "conditional expressions are not allowed in XGL",
        "constrain moves with ensure(...) instead",
    ),
    "for": (
        "comprehensions and loops are not allowed in XGL",
        "loop with beacon(flag_1) ... replay(flag_1, n)",
    ),
    "while": ("loops are not allowed in XGL", "loop with beacon(flag_1) ... replay(flag_1, n)"),
    "is": ("'is' is not an XGL operator", "compare with == or !="),
    "import": ("imports are not allowed in XGL", LINE_HINT),
    "from": ("imports are not allowed in XGL", LINE_HINT),
}
for _kw in ("True", "False", "None"):
    _FORBIDDEN_KEYWORDS[_kw] = (
        f"'{_kw}' is not an XGL value",
        "XGL values are strings, integers and lists of strings; conditions go in ensure(...)",
    )



# ---------------------------------------------------------------- one line


class _LineParser:
    """Parses the tokens of one line into the call of one instruction."""

    def __init__(self, tokens: list[Token], line: int) -> None:
        self.tokens, self.line = tokens, line
        self.pos = 0
        self.depth = 0
        self.open_brackets: list[Token] = []
        self.last_end = 0

    # -- token helpers

    def peek(self, ahead: int = 0) -> Token:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def advance(self) -> Token:
        tok = self.peek()
        if tok.kind != "end":
            self.pos += 1
            self.last_end = tok.end_col
        return tok

    def at(self, text: str) -> bool:
        tok = self.peek()
        return tok.kind in ("op", "keyword") and tok.text == text

    def span_from(self, col: int) -> Span:
        return Span(self.line, col, self.last_end)

    def fail(self, col: int, end_col: int, message: str, hint: str = "") -> NoReturn:
        raise XGLSyntaxProblem(col, end_col, message, hint)

    def unexpected(self, tok: Token, hint: str) -> NoReturn:
        """Report `tok` where it does not fit, naming the Python construct if it is one."""
        if tok.kind == "end":
            if self.open_brackets:
                opener = self.open_brackets[-1]
                self.fail(
                    opener.col,
                    opener.end_col,
                    f"'{opener.text}' was never closed",
                    "close it on the same line: an instruction must fit on one line",
                )
            self.fail(tok.col, tok.col + 1, "unexpected end of line", hint)
        if tok.kind == "op" and tok.text in _FORBIDDEN_OPS:
            message, why = _FORBIDDEN_OPS[tok.text]
            end = tok.end_col
            if tok.text == "." and self.peek(1).kind in ("name", "keyword"):
                end = self.peek(1).end_col
            self.fail(tok.col, end, message, why)
        if tok.kind == "keyword":
            if tok.text in _FORBIDDEN_KEYWORDS:
                message, why = _FORBIDDEN_KEYWORDS[tok.text]
                self.fail(tok.col, tok.end_col, message, why)
            if tok.text not in ("and", "or", "not", "in"):
                self.fail(tok.col, tok.end_col, f"'{tok.text}' is Python, not XGL", LINE_HINT)
        if tok.kind == "op" and tok.text in (")", "]") and not self.open_brackets:
            self.fail(tok.col, tok.end_col, f"unmatched '{tok.text}'", "remove it")
        self.fail(tok.col, tok.end_col, f"unexpected {_describe(tok)}", hint)

    def expect_close(self, closer: str, hint: str) -> None:
        if not self.at(closer):
            self.unexpected(self.peek(), hint)
        self.advance()
        self.open_brackets.pop()

    # -- the line

    def parse_instruction(self) -> Call:
        first = self.peek()
        if first.kind == "keyword" and first.text not in ("not",):
            self.unexpected(first, LINE_HINT)
        expr = self.expr(0)
        tok = self.peek()
        if tok.kind != "end":
            if tok.text == "=" and tok.kind == "op":
                target = expr.id if isinstance(expr, Name) and expr.id in ALL_REGISTERS else "s"
                self.fail(
                    tok.col,
                    tok.end_col,
                    "assignment statements are not allowed in XGL",
                    f"use the assign instruction, e.g. assign({target}=...)",
                )
            self.unexpected(tok, "expected the end of the line after the instruction call")
        if not isinstance(expr, Call):
            self.fail(
                expr.span.col,
                expr.span.end_col,
                "each line must be one instruction call name(arguments)",
                LINE_HINT,
            )
        return expr

    # -- expressions

    def expr(self, min_bp: int) -> Expr:
        """An expression whose infix operators bind at least as tightly as `min_bp`."""
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                tok = self.peek()
                self.fail(
                    tok.col,
                    tok.end_col,
                    f"expression nested too deeply (more than {MAX_NESTING} levels)",
                    "split it over several assign(...) lines",
                )
            start = self.peek().col
            left = self.prefix(min_bp)
            return self.infix(left, start, min_bp)
        finally:
            self.depth -= 1

    def prefix(self, min_bp: int) -> Expr:
        tok = self.peek()
        if tok.kind == "keyword" and tok.text == "not":
            if min_bp > _NOT_BP:
                self.fail(
                    tok.col,
                    tok.end_col,
                    "'not' must be parenthesised here",
                    "write it as (not ...), as in Python",
                )
            self.advance()
            operand = self.expr(_NOT_BP)
            return UnaryOp(self.span_from(tok.col), "not", operand)
        if tok.kind == "op" and tok.text == "-":
            self.advance()
            operand = self.expr(_UNARY_BP)
            return UnaryOp(self.span_from(tok.col), "-", operand)
        if tok.kind == "op" and tok.text == "+":
            self.fail(tok.col, tok.end_col, "unary '+' is not supported in XGL", "remove it")
        return self.postfix()

    def infix(self, left: Expr, start: int, min_bp: int) -> Expr:
        while True:
            tok = self.peek()
            if tok.kind == "keyword" and tok.text in ("or", "and"):
                bp = _OR_BP if tok.text == "or" else _AND_BP
                if bp < min_bp:
                    return left
                values = [left]
                while self.at(tok.text):
                    self.advance()
                    values.append(self.expr(bp + 1))
                left = BoolOp(
                    self.span_from(start), "or" if tok.text == "or" else "and", tuple(values)
                )
            elif self.compare_op() is not None:
                if min_bp > _CMP_BP:
                    return left
                ops: list[CompareKind] = []
                comparators: list[Expr] = []
                while (op_kind := self.compare_op()) is not None:
                    self.advance()
                    if op_kind == "not in":
                        self.advance()
                    ops.append(op_kind)
                    comparators.append(self.expr(_CMP_BP + 1))
                left = Compare(self.span_from(start), left, tuple(ops), tuple(comparators))
            elif tok.kind == "op" and tok.text in _BINARY:
                bp, bin_op = _BINARY[tok.text]
                if bp < min_bp:
                    return left
                self.advance()
                right = self.expr(bp + 1)
                left = BinOp(self.span_from(start), bin_op, left, right)
            else:
                return left

    def compare_op(self) -> CompareKind | None:
        """The comparison operator next, if any, without consuming it (`not in` is two
        tokens)."""
        tok = self.peek()
        if tok.kind == "keyword" and tok.text == "not":
            nxt = self.peek(1)
            return "not in" if nxt.kind == "keyword" and nxt.text == "in" else None
        if tok.kind in ("op", "keyword") and tok.text in _COMPARE:
            return _COMPARE[tok.text]
        return None

    def postfix(self) -> Expr:
        start = self.peek().col
        expr = self.atom()
        while True:
            tok = self.peek()
            if tok.kind == "op" and tok.text == "[":
                self.open_brackets.append(self.advance())
                if self.at("]"):
                    self.fail(tok.col, self.peek().end_col, "missing index", "e.g. l[0]")
                index = self.expr(0)
                if self.at(":"):
                    colon = self.peek()
                    self.fail(
                        colon.col, colon.end_col, "slices are not supported", "index one item: l[0]"
                    )
                self.expect_close("]", "expected ']' after the index")
                expr = Subscript(self.span_from(start), expr, index)
            elif tok.kind == "op" and tok.text == "(":
                self.fail(
                    tok.col,
                    tok.end_col,
                    "only built-in functions can be called, by their name",
                    "write e.g. xed(s | t)",
                )
            elif tok.kind == "op" and tok.text == ".":
                self.unexpected(tok, "")
            else:
                return expr

    def atom(self) -> Expr:
        tok = self.peek()
        if tok.kind == "name":
            self.advance()
            _check_name(tok)
            if self.at("("):
                return self.call(tok)
            return Name(Span(self.line, tok.col, tok.end_col), tok.text)
        if tok.kind == "int":
            self.advance()
            assert isinstance(tok.value, int)
            return Int(Span(self.line, tok.col, tok.end_col), tok.value)
        if tok.kind == "str":
            return self.string()
        if tok.kind == "op" and tok.text == "(":
            return self.parenthesised()
        if tok.kind == "op" and tok.text == "[":
            return self.list_literal()
        self.unexpected(
            tok, "expected a value: a register, a string, an integer, a list or a function call"
        )

    def string(self) -> Str:
        """One string literal, or several adjacent ones joined (as in Python)."""
        first = self.peek()
        parts: list[str] = []
        while self.peek().kind == "str":
            value = self.advance().value
            assert isinstance(value, str)
            parts.append(value)
        return Str(self.span_from(first.col), "".join(parts))

    def parenthesised(self) -> Expr:
        opener = self.advance()
        self.open_brackets.append(opener)
        if self.at(")"):
            self.fail(
                opener.col,
                self.peek().end_col,
                "empty parentheses are not an XGL value",
                'tuples are not XGL values; use a list literal, e.g. ["a", "b"]',
            )
        inner = self.expr(0)
        if self.at(","):
            tok = self.peek()
            self.fail(
                tok.col,
                tok.end_col,
                "tuples are not XGL values",
                'use a list literal, e.g. ["a", "b"]',
            )
        self.expect_close(")", "expected ')'")
        return inner

    def list_literal(self) -> ListLit:
        opener = self.advance()
        self.open_brackets.append(opener)
        items: list[Expr] = []
        while not self.at("]"):
            items.append(self.expr(0))
            if self.at(","):
                self.advance()
            elif not self.at("]"):
                self.unexpected(self.peek(), "expected ',' or ']' in the list literal")
        self.expect_close("]", "expected ']'")
        return ListLit(self.span_from(opener.col), tuple(items))

    def call(self, name: Token) -> Call:
        self.open_brackets.append(self.advance())
        args: list[Expr] = []
        keywords: list[Keyword] = []
        while not self.at(")"):
            tok = self.peek()
            if tok.kind == "op" and tok.text in ("*", "**"):
                self.fail(
                    tok.col,
                    tok.end_col,
                    f"'{tok.text}' unpacking is not allowed in XGL",
                    "pass each argument explicitly",
                )
            after = self.peek(1)
            if tok.kind in ("name", "keyword") and after.kind == "op" and after.text == "=":
                # The instruction's own keywords may repeat: the checker decides per dialect
                # (dialect xent keeps the last value, as the reference; xgl reports it).
                keywords.append(self.keyword([] if name is self.tokens[0] else keywords))
            else:
                arg = self.expr(0)
                if keywords:
                    self.fail(
                        arg.span.col,
                        arg.span.end_col,
                        "positional argument after keyword arguments",
                        'put positional arguments first, e.g. xed(s | t, o="...")',
                    )
                if self.at("="):
                    self.fail(
                        arg.span.col,
                        arg.span.end_col,
                        "a keyword argument name must be a plain name",
                        "e.g. assign(s=story())",
                    )
                args.append(arg)
            if self.at(","):
                self.advance()
            elif not self.at(")"):
                self.unexpected(self.peek(), "expected ',' or ')' between arguments")
        self.expect_close(")", "expected ')'")
        return Call(
            self.span_from(name.col),
            name.text,
            Span(self.line, name.col, name.end_col),
            tuple(args),
            tuple(keywords),
        )

    def keyword(self, earlier: list[Keyword]) -> Keyword:
        tok = self.advance()
        if tok.kind == "keyword":
            self.fail(
                tok.col, tok.end_col, f"'{tok.text}' cannot be a keyword argument name", LINE_HINT
            )
        _check_name(tok)
        if any(kw.name == tok.text for kw in earlier):
            self.fail(
                tok.col,
                tok.end_col,
                f"keyword argument '{tok.text}' is given twice",
                "give each keyword argument once",
            )
        self.advance()  # '='
        value = self.expr(0)
        return Keyword(tok.text, value, self.span_from(tok.col))


def _describe(tok: Token) -> str:
    if tok.kind == "str":
        return "string literal"
    if tok.kind == "int":
        return f"number {tok.text}"
    return f"'{tok.text}'"


def _check_name(tok: Token) -> None:
    if tok.text.startswith("__"):
        raise XGLSyntaxProblem(
            tok.col,
            tok.end_col,
            f"dunder names such as '{tok.text}' are not allowed in XGL",
            "use registers (s, t1, ...), players, flags and the built-in functions",
        )




def _check_depth(root: Expr) -> None:
    """Reject trees deeper than MAX_DEPTH, so that tree walkers never hit RecursionError."""
    stack: list[tuple[Expr, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise XGLSyntaxProblem(
                node.span.col,
                node.span.end_col,
                f"expression nested too deeply (more than {MAX_DEPTH} levels)",
                "split it over several assign(...) lines",
            )
        stack.extend((child, depth + 1) for child in iter_children(node))


def parse_line(text: str, line: int, limits: ResourceLimits = DEFAULT_LIMITS) -> Call | None:
    """The instruction call on one line, or None for a blank or comment line.

    Raises XGLSyntaxProblem (also for a line or literal over its size limit); the
    instruction name is not checked here."""
    check_line_size(text, limits)
    tokens = tokenize_line(text)
    check_literals(tokens, limits)
    if tokens[0].kind == "end":
        return None
    call = _LineParser(tokens, line).parse_instruction()
    _check_depth(call)
    return call
