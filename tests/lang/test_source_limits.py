"""Source size limits at load time: a game too big to be sensible is refused by the parser
or the checker, before any model is loaded, as a GameSyntaxError with a caret, without
tokenizing (or echoing) megabytes and with memory bounded."""

from __future__ import annotations

import tracemalloc

import pytest

from arena.errors import Diagnostic, GameSyntaxError
from arena.lang.limits import DEFAULT_LIMITS, ResourceLimits, admitting
from arena.lang.loader import load_game

MiB = 1024 * 1024
TAIL = "elicit(t, 5)\nreward(xed(s | t))\n"


def refused(source: str, limits: ResourceLimits = DEFAULT_LIMITS) -> tuple[Diagnostic, str, int]:
    """The single diagnostic, the rendered error and the peak memory of loading `source`."""
    tracemalloc.start()
    try:
        with pytest.raises(GameSyntaxError) as info:
            load_game(source, filename="big.xgl", limits=limits)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    (diagnostic,) = info.value.diagnostics
    return diagnostic, str(info.value), peak


def assert_names_how_to_raise(diagnostic: Diagnostic, limit: str) -> None:
    assert f"over the limit {limit} = " in diagnostic.message
    assert "[limits] in the tournament file" in diagnostic.hint
    assert "arena play --limit" in diagnostic.hint


def test_a_two_megabyte_literal_is_refused_with_a_caret_on_it() -> None:
    source = 'assign(s="' + "x" * 2_000_000 + '")\n' + TAIL
    diagnostic, text, peak = refused(source)
    assert (diagnostic.line, diagnostic.col) == (1, 9)
    assert "this string literal is 2,000,000 characters" in diagnostic.message
    assert "max_source_chars" in diagnostic.message  # the whole file is too big as well
    assert_names_how_to_raise(diagnostic, "max_literal_chars")
    assert "big.xgl:1:10: error:" in text
    assert "\n             ^^^" in text  # the caret under the literal's opening quote
    assert len(text) < 2_000  # the literal is not echoed
    assert peak < 16 * MiB


def test_a_literal_over_its_limit_on_an_ordinary_line() -> None:
    source = 'assign(s="' + "y" * 6_000 + '")\n' + TAIL
    diagnostic, text, _ = refused(source)
    assert (diagnostic.line, diagnostic.col, diagnostic.end_col) == (1, 9, 9 + 6_002)
    assert "this string literal is 6,000 characters" in diagnostic.message
    assert_names_how_to_raise(diagnostic, "max_literal_chars")
    assert len(text) < 2_000
    load_game(source, limits=ResourceLimits(max_literal_chars=6_000))  # raised: accepted


def test_a_long_line_is_refused_without_being_tokenized() -> None:
    source = 'assign(s="ab")\nassign(s=s' + "+s" * 20_000 + ")\n" + TAIL
    diagnostic, text, peak = refused(source)
    assert (diagnostic.line, diagnostic.col) == (2, 10_000)
    assert "this line is 40,011 characters" in diagnostic.message
    assert_names_how_to_raise(diagnostic, "max_line_chars")
    assert len(text) < 2_000
    assert peak < 4 * MiB  # a tokenized line would hold 40,000 Token objects


def test_a_comment_may_hold_quotes_but_not_be_too_long() -> None:
    source = "# it's a 'game'\n# " + "z" * 12_000 + "\n" + 'assign(s="ab")\n' + TAIL
    diagnostic, _, _ = refused(source)
    assert diagnostic.line == 2
    assert_names_how_to_raise(diagnostic, "max_line_chars")


def test_a_huge_source_is_refused_at_the_line_where_it_crosses_the_limit() -> None:
    source = "".join(f"# {i:02d} " + "w" * 1_990 + "\n" for i in range(60)) + TAIL
    diagnostic, text, _ = refused(source)
    assert diagnostic.line == 100_000 // 1_996 + 1
    assert "the game source is 119," in diagnostic.message
    assert_names_how_to_raise(diagnostic, "max_source_chars")
    assert len(text) < 2_000


def test_a_gigantic_source_is_not_split_into_lines() -> None:
    source = "# comment\n" * 3_000_000  # 30 MB, three million lines
    tracemalloc.start()
    try:
        with pytest.raises(GameSyntaxError) as info:
            load_game(source, filename="big.xgl")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info.value.diagnostics[0].line == 10_001
    assert peak < 4 * MiB  # three million line strings would take ~200 MB


def test_a_story_longer_than_the_limit_is_a_check_error() -> None:
    diagnostic, _, _ = refused("assign(s=story(1000000))\n" + TAIL)
    assert (diagnostic.line, diagnostic.col) == (1, 15)
    assert "this story length is 1,000,000 tokens" in diagnostic.message
    assert_names_how_to_raise(diagnostic, "max_story_tokens")


def test_code_the_arena_already_checked_is_admitted_whatever_its_size() -> None:
    source = 'assign(s="' + "y" * 6_000 + '", t=story(9000))\n' + TAIL
    refused(source)
    assert load_game(source, limits=admitting(source)).instructions


def test_a_move_length_over_the_limit_is_a_check_error() -> None:
    # issue 24 item 4: elicit(t, 999999999999999999) made the built-in players build a
    # move of that many words, blocking the event loop.
    source = 'assign(s="ab")\nelicit(t, 999999999999999999)\nreward(xed(s | t))\n'
    diagnostic, text, _ = refused(source)
    assert (diagnostic.line, diagnostic.col) == (2, 10)
    assert "this move length is 999,999,999,999,999,999 tokens" in diagnostic.message
    assert_names_how_to_raise(diagnostic, "max_move_tokens")
    assert "big.xgl:2:11: error:" in text
    load_game(source.replace("999999999999999999", "4000"))  # at the limit: accepted
    raised = ResourceLimits(max_move_tokens=10**18)
    load_game(source, limits=raised)
    load_game(source, limits=admitting(source))  # a game the arena already checked


def test_a_lone_surrogate_in_a_game_is_a_load_time_error() -> None:
    # issue 24 item 5: a game literal with a lone surrogate made every match unstorable.
    escaped, escaped_text, _ = refused('assign(s="a\\ud800b")\n' + TAIL)
    assert (escaped.line, escaped.col, escaped.end_col) == (1, 11, 17)
    assert "\\ud800 is a lone surrogate" in escaped.message
    raw, raw_text, _ = refused('assign(s="a\ud800b")\n' + TAIL)
    assert (raw.line, raw.col) == (1, 11)
    assert "lone surrogate (U+D800)" in raw.message
    in_comment, _, _ = refused("# \udfff\n" + 'assign(s="ab")\n' + TAIL)
    assert in_comment.line == 1
    for text in (escaped_text, raw_text):
        text.encode("utf-8")  # the error itself can be printed
    load_game('assign(s="\\U0001F600 \\u00e9")\n' + TAIL)  # whole characters are fine
