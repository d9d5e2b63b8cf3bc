"""Parser tests: precedence, spans, literals, comments, header, dialect and line limit."""

from __future__ import annotations

import pytest

from arena.errors import GameSyntaxError, UnknownNameError
from arena.lang.ast import (
    BinOp,
    BoolOp,
    Call,
    Compare,
    Expr,
    Int,
    ListLit,
    Name,
    Span,
    Str,
    Subscript,
    UnaryOp,
)
from arena.lang.limits import DEFAULT_LIMITS, ResourceLimits
from arena.lang.loader import detect_dialect
from arena.lang.parser import parse_program, parse_source


def arg(line: str) -> Expr:
    """The first positional argument of the single instruction on `line`."""
    program = parse_program(line)
    return program.instructions[0].call.args[0]


def show(expr: Expr) -> str:
    """A fully parenthesised rendering of an expression, to compare tree shapes."""
    if isinstance(expr, Name):
        return expr.id
    if isinstance(expr, Int):
        return str(expr.value)
    if isinstance(expr, Str):
        return repr(expr.value)
    if isinstance(expr, BinOp):
        return f"({show(expr.left)} {expr.op} {show(expr.right)})"
    if isinstance(expr, UnaryOp):
        return f"({expr.op} {show(expr.operand)})"
    if isinstance(expr, Compare):
        parts = [show(expr.left)]
        for op, right in zip(expr.ops, expr.comparators, strict=True):
            parts += [op, show(right)]
        return "(" + " ".join(parts) + ")"
    if isinstance(expr, BoolOp):
        return "(" + f" {expr.op} ".join(show(v) for v in expr.values) + ")"
    if isinstance(expr, Subscript):
        return f"{show(expr.value)}[{show(expr.index)}]"
    if isinstance(expr, ListLit):
        return "[" + ", ".join(show(i) for i in expr.items) + "]"
    assert isinstance(expr, Call)
    inner = [show(a) for a in expr.args] + [f"{k.name}={show(k.value)}" for k in expr.keywords]
    return f"{expr.func}(" + ", ".join(inner) + ")"


def errors_of(
    source: str, filename: str = "<game>", limits: ResourceLimits = DEFAULT_LIMITS
) -> list[tuple[int, int, str]]:
    with pytest.raises(GameSyntaxError) as info:
        parse_program(source, filename, limits=limits)
    return [(d.line, d.col, d.message) for d in info.value.diagnostics]


# ---------------------------------------------------------------- precedence


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("s2 | s + s1", "(s2 | (s + s1))"),
        ("s + s1 | s2", "((s + s1) | s2)"),
        ("s | t | x", "((s | t) | x)"),
        ("a // b + c % d", "((a // b) + (c % d))"),
        ("a + b // c", "(a + (b // c))"),
        ("a - b - c", "((a - b) - c)"),
        ("-2 * xed(s)", "((- 2) * xed(s))"),
        ("-xed(s) + xent(t)", "((- xed(s)) + xent(t))"),
        ("a * -b", "(a * (- b))"),
        ("- - a", "(- (- a))"),
        ("not a == b", "(not (a == b))"),
        ("not a and b", "((not a) and b)"),
        ("a or b and c", "(a or (b and c))"),
        ("a and b and c", "(a and b and c)"),
        ("not not a", "(not (not a))"),
        ("a < b <= c", "(a < b <= c)"),
        ("s not in l", "(s not in l)"),
        ("s in t == x", "(s in t == x)"),
        ("x | y < z", "((x | y) < z)"),
        ("a + b < c and d", "(((a + b) < c) and d)"),
        ("(a + b) * c", "((a + b) * c)"),
        ("l[0] + l1[1]", "(l[0] + l1[1])"),
        ('["a", "b"] + l', "(['a', 'b'] + l)"),
        ("xed(s | t, o=x)", "xed((s | t), o=x)"),
        ('"a" "b"', "'ab'"),
    ],
)
def test_precedence_follows_python(text: str, tree: str) -> None:
    assert show(arg(f"ensure({text})")) == tree


def test_chained_comparison_is_one_compare_node() -> None:
    expr = arg("ensure(xent(s) < xent(t) <= xent(x))")
    assert isinstance(expr, Compare)
    assert expr.ops == ("<", "<=")
    assert len(expr.comparators) == 2


def test_not_inside_comparison_operand_is_rejected() -> None:
    [(line, col, message)] = errors_of("ensure(a == not b)")
    assert (line, col) == (1, 12)
    assert "'not' must be parenthesised" in message


# ---------------------------------------------------------------- spans


def test_spans_with_leading_spaces_and_trailing_comment() -> None:
    line = "   reward(alice, xed(s | t1))   # the (score)"
    ins = parse_program("assign(s=story())\n" + line).instructions[1]
    assert ins.line == 2 and ins.source == line
    call = ins.call
    assert call.span == Span(2, 3, 29)
    assert call.func_span == Span(2, 3, 9)
    player, amount = call.args
    assert player == Name(Span(2, 10, 15), "alice")
    assert isinstance(amount, Call)
    assert amount.span == Span(2, 17, 28)
    assert amount.func_span == Span(2, 17, 20)
    cond = amount.args[0]
    assert isinstance(cond, BinOp) and cond.span == Span(2, 21, 27)
    assert line[cond.span.col : cond.span.end_col] == "s | t1"


def test_binop_span_includes_parentheses_of_left_operand() -> None:
    expr = arg("reward((xed(s) + xed(t)) * 2)")
    assert isinstance(expr, BinOp)
    assert (expr.span.col, expr.span.end_col) == (7, 28)
    assert isinstance(expr.left, BinOp) and expr.left.span == Span(1, 8, 23)


def test_keyword_span_covers_name_and_value() -> None:
    call = parse_program('assign(s1="a",  t = story())').instructions[0].call
    first, second = call.keywords
    assert first.name == "s1" and first.span == Span(1, 7, 13)
    assert second.name == "t" and second.span == Span(1, 16, 27)
    assert isinstance(second.value, Call) and second.value.span == Span(1, 20, 27)


# ---------------------------------------------------------------- literals and comments


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        (r'"a\nb"', "a\nb"),
        (r"'tab\there'", "tab\there"),
        (r'"back\\slash"', "back\\slash"),
        (r"'it\'s'", "it's"),
        (r'"say \"hi\""', 'say "hi"'),
        (r'"\x41\x62"', "Ab"),
        (r'"caf\u00e9"', "café"),
        (r'"\U0001F600"', "\U0001f600"),
        ("'double \" inside single'", 'double " inside single'),
        ('"héllo wörld"', "héllo wörld"),
        ('""', ""),
    ],
)
def test_string_escapes_are_decoded_by_hand(literal: str, value: str) -> None:
    expr = arg(f"reveal({literal})")
    assert isinstance(expr, Str) and expr.value == value


@pytest.mark.parametrize(
    ("literal", "fragment"),
    [
        (r'"\q"', "unknown escape"),
        (r'"\x4"', "invalid \\x escape"),
        (r'"\u12"', "invalid \\u escape"),
        ('"open', "unterminated string"),
        ('"""doc"""', "triple-quoted"),
    ],
)
def test_bad_string_literals_are_diagnostics(literal: str, fragment: str) -> None:
    [(_, _, message)] = errors_of(f"reveal({literal})")
    assert fragment in message


def test_hash_inside_string_is_not_a_comment() -> None:
    program = parse_program('reveal("a # b", \'#\')  # real comment "with quotes"')
    values = [a.value for a in program.instructions[0].call.args if isinstance(a, Str)]
    assert values == ["a # b", "#"]


def test_blank_and_comment_lines_yield_no_instruction_but_count() -> None:
    program = parse_program("# c\n\n   # indented\nelicit(t, 10)  # why\n\n")
    assert [i.line for i in program.instructions] == [4]
    assert program.line_count == 5


def test_list_literal_and_subscript() -> None:
    expr = arg('reveal(["a", "b",][l[1]])')
    assert isinstance(expr, Subscript)
    assert isinstance(expr.value, ListLit) and len(expr.value.items) == 2
    assert isinstance(expr.index, Subscript)


# ---------------------------------------------------------------- rejected Python


@pytest.mark.parametrize(
    ("line", "col", "fragment"),
    [
        ("reward(1.5)", 7, "floats are not XGL values"),
        ("elicit(t, 1e3)", 10, "floats are not XGL values"),
        ("reward(s.upper())", 8, "attribute access"),
        ("assign(s=lambda: 1)", 9, "lambdas"),
        ("reward(2 ** xed(s))", 9, "'**'"),
        ('assign(s=f"x{t}")', 9, "f-strings"),
        ("assign(s={1: 2})", 9, "dict and set"),
        ("assign(l=[x for x in l])", 12, "comprehensions"),
        ("reward(*l)", 7, "unpacking"),
        ("assign(s=__name__)", 9, "dunder"),
        ("__import__('os').system('ls')", 0, "dunder"),
        ("elicit(t, 10); elicit(x, 10)", 13, "one instruction per line"),
        ("s = story()", 2, "assignment statements"),
        ("s += t", 2, "augmented assignment"),
        ("import os", 0, "imports"),
        ("def f(): pass", 0, "Python, not XGL"),
        ("ensure(a is b)", 9, "'is'"),
        ("ensure(True)", 7, "'True' is not an XGL value"),
        ("assign(s=(s, t))", 11, "tuples"),
        ("assign(s=t if x else y)", 11, "conditional expressions"),
        ("reward(xed(s|t)", 6, "never closed"),
        ("reward(xed(s)))", 14, "unmatched ')'"),
        ("xed(s)(t)", 6, "only built-in functions can be called"),
        ("assign(s=t[1:2])", 12, "slices"),
        ("assign(s=xed(t, o=x, o=y))", 21, "given twice"),
        ("reveal(o=s, t)", 12, "positional argument after keyword"),
        ("elicit(t, 010)", 10, "leading zeros"),
        ("elicit(t, 0x10)", 10, "invalid number literal"),
        ("s + t", 0, "one instruction call"),
        ("reward(+xed(s))", 7, "unary '+'"),
        ("ensure(a & b)", 9, "'&'"),
        ("assign(s=t / x)", 11, "'/'"),
        ("elicit(t, 10) $", 14, "unexpected character"),
        ("elicit(t, 1" + "0" * 30 + ")", 10, "too large"),
    ],
)
def test_python_constructs_are_diagnostics_with_a_caret(line: str, col: int, fragment: str) -> None:
    with pytest.raises(GameSyntaxError) as info:
        parse_program(line)
    [diag] = info.value.diagnostics
    assert (diag.line, diag.col) == (1, col)
    assert fragment in diag.message
    assert diag.hint
    assert diag.source_line == line


def test_unknown_instruction_suggests_the_close_one() -> None:
    with pytest.raises(GameSyntaxError) as info:
        parse_program("assign(s=story())\nelicitt(t, 10)")
    [diag] = info.value.diagnostics
    assert (diag.line, diag.col, diag.end_col) == (2, 0, 7)
    assert "Unknown instruction 'elicitt'. Did you mean 'elicit'?" in diag.message
    for name in ("assign", "elicit", "reveal", "reward", "ensure", "beacon", "replay"):
        assert name in diag.message


def test_function_used_as_instruction_gets_a_hint() -> None:
    with pytest.raises(GameSyntaxError) as info:
        parse_program("xed(s | t)")
    assert "reward(xed(s | t))" in info.value.diagnostics[0].hint


def test_parse_errors_on_several_lines_are_all_reported() -> None:
    source = "reward(1.5)\nassign(s=story())\ns.x\nelicit(t, 10)\nimport os\n"
    assert [(line, col) for line, col, _ in errors_of(source)] == [(1, 7), (3, 1), (5, 0)]


def test_nesting_limit_is_a_syntax_error_not_recursion_error() -> None:
    long_lines = ResourceLimits(max_line_chars=100_000)  # the depth guard, not the line limit
    for text in (
        "reward(" + "(" * 5000 + "xed(s)" + ")" * 5000 + ")",
        "reward(" + "-" * 5000 + "xed(s))",
        "ensure(" + "not " * 5000 + "a)",
        "reward(" + "+".join(["xed(s)"] * 3000) + ")",
        "reveal(" + "[" * 5000 + "]" * 5000 + ")",
    ):
        [(_, _, message)] = errors_of(text, limits=long_lines)
        assert "nested too deeply" in message


# ---------------------------------------------------------------- program level


def test_header_is_leading_comments_without_hash_and_one_space() -> None:
    source = "# dialect: xent\n# Title here\n#  indented\n#bare\n\nassign(s=story())\n# later\n"
    program = parse_program(source)
    assert program.header == ("Title here", " indented", "bare")


def test_header_is_empty_without_leading_comments() -> None:
    assert parse_program("assign(s=story())\n# not header").header == ()


@pytest.mark.parametrize(
    ("source", "filename", "override", "expected"),
    [
        ("# dialect: xent\nelicit(t, 10)", "g.xgl", None, "xent"),
        ("# dialect: xgl\nelicit(t, 10)", "g.xent", None, "xgl"),
        ("#dialect:XENT\nelicit(t, 10)", "g", None, "xent"),
        ("elicit(t, 10)", "games/g.xent", None, "xent"),
        ("elicit(t, 10)", "games/g.xgl", None, "xgl"),
        ("elicit(t, 10)", "<game>", None, "xgl"),
        ("# dialect: xent\nelicit(t, 10)", "g.xent", "xgl", "xgl"),
        ("# Title\n\n# dialect: xent\nelicit(t, 10)", "g.xgl", None, "xent"),
    ],
)
def test_dialect_detection(source: str, filename: str, override: str | None, expected: str) -> None:
    assert parse_program(source, filename, dialect=override).dialect == expected
    assert detect_dialect(source, filename, override) == expected


def test_unknown_dialect_argument_raises_unknown_name_error() -> None:
    with pytest.raises(UnknownNameError) as info:
        parse_program("elicit(t, 10)", dialect="python")
    assert "xgl" in str(info.value) and "xent" in str(info.value)
    with pytest.raises(UnknownNameError):
        detect_dialect("# dialect: xentt\nelicit(t, 10)")


def test_unknown_dialect_line_is_a_diagnostic_on_line_one() -> None:
    [(line, col, message)] = errors_of("# dialect: xentt\nelicit(t, 10)")
    assert (line, col) == (1, 11)
    assert "Unknown dialect 'xentt'. Did you mean 'xent'?" in message


def _game(lines: int) -> str:
    return "assign(s=story())\n" + "# filler\n" * (lines - 1)


def test_64_lines_are_allowed_and_a_trailing_newline_does_not_count() -> None:
    assert parse_program(_game(64)).line_count == 64
    assert parse_program(_game(64).rstrip("\n")).line_count == 64
    assert parse_program(_game(64).replace("\n", "\r\n")).line_count == 64


def test_65_lines_are_an_error_pointing_at_line_65() -> None:
    [(line, col, message)] = errors_of(_game(65))
    assert (line, col) == (65, 0)
    assert "65 lines" in message and "64" in message


def test_blank_lines_count_towards_the_limit() -> None:
    assert errors_of("elicit(t, 10)" + "\n" * 65)[0][0] == 65


def test_parse_source_keeps_good_lines_and_names_the_broken_ones() -> None:
    result = parse_source("assign(s=story())\nelicitt(t, 10)\nreward(1.5)\n#x\n")
    assert [i.name for i in result.program.instructions] == ["assign"]
    assert result.unparsed_lines == {2: "elicitt", 3: "reward"}
    assert len(result.diagnostics) == 2
