"""XGL source text from the AST: the inverse of the parser, up to spans and comments.

Parentheses are written only where precedence needs them (the parser's binding powers,
`arena.lang.line_parser`), so printing a parsed program and parsing the text again gives
the same tree. Generated games (`arena.gamespace`) are written through this printer.
"""

from __future__ import annotations

from collections.abc import Iterable

from arena.lang import ast

_BINARY_PREC = {"|": 5, "+": 6, "-": 6, "*": 7, "//": 7, "%": 7}
_BOOL_PREC = {"or": 1, "and": 2}
_NOT_PREC, _COMPARE_PREC, _UNARY_PREC, _ATOM_PREC = 3, 4, 8, 100
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def render_string(value: str) -> str:
    """A double-quoted XGL literal for `value`; unprintable characters are escaped."""
    out = []
    for ch in value:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) <= 0xFF:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return '"' + "".join(out) + '"'


def render_expr(expr: ast.Expr) -> str:
    """The source text of an expression."""
    return _render(expr)[0]


def _wrap(expr: ast.Expr, minimum: int) -> str:
    """`expr`'s text, parenthesised when it binds looser than `minimum`."""
    text, prec = _render(expr)
    return text if prec >= minimum else f"({text})"


def _render(expr: ast.Expr) -> tuple[str, int]:
    if isinstance(expr, ast.Str):
        return render_string(expr.value), _ATOM_PREC
    if isinstance(expr, ast.Int):
        return str(expr.value), _ATOM_PREC
    if isinstance(expr, ast.Name):
        return expr.id, _ATOM_PREC
    if isinstance(expr, ast.ListLit):
        return "[" + ", ".join(render_expr(item) for item in expr.items) + "]", _ATOM_PREC
    if isinstance(expr, ast.Call):
        return render_call(expr), _ATOM_PREC
    if isinstance(expr, ast.Subscript):
        return f"{_wrap(expr.value, _ATOM_PREC)}[{render_expr(expr.index)}]", _ATOM_PREC
    if isinstance(expr, ast.UnaryOp):
        if expr.op == "not":
            return f"not {_wrap(expr.operand, _NOT_PREC)}", _NOT_PREC
        return f"-{_wrap(expr.operand, _UNARY_PREC)}", _UNARY_PREC
    if isinstance(expr, ast.BinOp):
        prec = _BINARY_PREC[expr.op]
        left = _wrap(expr.left, prec)
        right = _wrap(expr.right, prec + 1)  # left-associative
        return f"{left} {expr.op} {right}", prec
    if isinstance(expr, ast.Compare):
        parts = [_wrap(expr.left, _COMPARE_PREC + 1)]
        for op, other in zip(expr.ops, expr.comparators, strict=True):
            parts += [op, _wrap(other, _COMPARE_PREC + 1)]
        return " ".join(parts), _COMPARE_PREC
    if isinstance(expr, ast.BoolOp):
        prec = _BOOL_PREC[expr.op]
        return f" {expr.op} ".join(_wrap(v, prec + 1) for v in expr.values), prec
    raise TypeError(f"not an XGL expression node: {type(expr).__name__}")


def render_call(call: ast.Call) -> str:
    """`name(arg, ..., key=value, ...)`."""
    args = [render_expr(arg) for arg in call.args]
    args += [f"{kw.name}={render_expr(kw.value)}" for kw in call.keywords]
    return f"{call.func}({', '.join(args)})"


def header_text(source: str) -> list[str]:
    """The leading comment and blank lines of a game's text, as written."""
    lines = []
    for line in source.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            break
        lines.append(line)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def render_program(program: ast.Program, header: Iterable[str] | None = None) -> str:
    """The game's text: `header` lines (default: the program's own leading comments),
    then one instruction per line. Comments between instructions are not kept."""
    lines = list(header_text(program.source) if header is None else header)
    lines += [render_call(ins.call) for ins in program.instructions]
    return "\n".join(lines) + "\n"
