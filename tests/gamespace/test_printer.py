"""The AST printer is the parser's inverse: every bundled game prints to text that parses
back to the same tree, and printing that again gives the same text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.lang import ast
from arena.lang.loader import load_game
from arena.lang.parser import parse_program
from arena.lang.printer import header_text, render_program, render_string

GAMES = sorted((Path(__file__).resolve().parents[2] / "arena" / "games").glob("*.x*"))


def shape(node: Any) -> Any:
    """A node without its spans, as nested tuples (what the program means)."""
    if isinstance(node, ast.Keyword):
        return ("kw", node.name, shape(node.value))
    if isinstance(node, ast.Expr):
        fields = [
            shape(getattr(node, f)) for f in node.__dataclass_fields__
            if f not in ("span", "func_span")
        ]
        return (type(node).__name__, *fields)
    if isinstance(node, tuple):
        return tuple(shape(item) for item in node)
    return node


def program_shape(program: ast.Program) -> list[Any]:
    return [(ins.name, shape(ins.call)) for ins in program.instructions]


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.name)
def test_every_bundled_game_prints_back_to_the_same_program(path: Path) -> None:
    original = load_game(path.read_text(), filename=path.name)
    text = render_program(original)
    again = load_game(text, filename=path.name)
    assert program_shape(again) == program_shape(original)
    assert render_program(again) == text
    assert text.splitlines()[: len(header_text(original.source))] == header_text(original.source)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_any_string_literal_round_trips(value: str) -> None:
    program = parse_program(f"assign(s={render_string(value)})")
    literal = program.instructions[0].call.keywords[0].value
    assert isinstance(literal, ast.Str) and literal.value == value
