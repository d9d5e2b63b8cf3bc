"""Dialect xent behaves like the reference implementation (XGL.md section 9), whose own
language tests are the authority for it: each case below restates one behaviour those tests
assert, run through our checker and runtime; dialect xgl keeps its own rules."""

from __future__ import annotations

import pytest

from arena.errors import GameSyntaxError
from arena.judges.ngram import NgramJudge
from arena.lang.loader import load_game
from tests.runtime.helpers import ListPlayer, events_of, run_game


@pytest.fixture
def judge() -> NgramJudge:
    return NgramJudge()


def _quoted(text: str) -> str:
    return repr(text)  # a Python string literal is an XGL string literal


async def _assigned(judge: NgramJudge, expr: str, dialect: str, setup: str = "") -> str | list[str]:
    source = f"{setup}assign(s={expr})\nelicit(x, 5)\n"
    result = await run_game(source, {"black": ListPlayer(["m"])}, judge, dialect=dialect)
    (value,) = [e.values["s"] for e in events_of(result, "assign") if "s" in e.values]
    return value  # type: ignore[no-any-return]


async def _holds(judge: NgramJudge, condition: str, dialect: str = "xent", setup: str = "") -> bool:
    """Whether `ensure(condition)` lets the move through (else the round is forfeited in
    xgl, and the match has no result in xent)."""
    source = f"{setup}elicit(x, 5)\nensure({condition})\n"
    result = await run_game(
        source, {"black": ListPlayer(["m"])}, judge, dialect=dialect, ensure_budget=0
    )
    return not events_of(result, "forfeit") and not events_of(result, "no_result")


# ---------------------------------------------------------------- remove_common_words


@pytest.mark.parametrize(
    ("text", "other", "expected"),
    [
        # only the words both texts share go; the rest keeps its spelling
        ("a red fox and a hen", "a hen and an owl", "red fox"),
        ("we sing songs", "we hum", "sing songs"),
        # the punctuation around a removed word stays (XGL.md section 9's example)
        ("Hello, world!", "world!", "Hello, !"),
        ("Stop! Look, listen.", "look", "Stop! , listen."),
        ("[quiet] night", "quiet", "[] night"),
        # ASCII punctuation separates words: a word glued to one by - or _ still goes
        ("sun_dial sun", "sun", "_dial"),
        ("sun-dial sun", "Sun", "-dial"),
        # every occurrence, whatever its case; nothing left is an empty string
        ("Rain rain RAIN", "rain", ""),
        ("no, no; no!", "no", ", ; !"),
        # a word inside a longer word is not a separate word
        ("seven7 seven", "seven", "seven7"),
        # non-ASCII letters and emoji are word characters
        ("naïve idea", "naïve", "idea"),
        ("🍫💙 🍫🥳", "🍫 🍫💙", "🍫🥳"),
        # nothing in common: unchanged
        ("nothing shared", "by these texts", "nothing shared"),
        # runs of whitespace become one space, ends are trimmed
        ("  keep   this  gap ", "gap", "keep this"),
    ],
)
async def test_remove_common_words_keeps_the_punctuation_around_removed_words(
    judge: NgramJudge, text: str, other: str, expected: str
) -> None:
    expr = f"remove_common_words({_quoted(text)}, {_quoted(other)})"
    assert await _assigned(judge, expr, "xent") == expected


async def test_remove_common_words_in_xgl_keeps_its_own_rule(judge: NgramJudge) -> None:
    # dialect xgl drops whole whitespace-separated pieces (XGL.md section 6)
    expr = "remove_common_words('Hello, world!', 'world!')"
    assert await _assigned(judge, expr, "xgl") == "Hello,"
    assert await _assigned(judge, expr, "xent") == "Hello, !"


async def test_remove_common_words_accepts_a_list_of_words_in_xent(judge: NgramJudge) -> None:
    setup = "assign(l=['red', 'Green'])\n"
    assert await _assigned(judge, "remove_common_words('blue red green', l)", "xent", setup) == "blue"
    assert await _assigned(judge, "remove_common_words('a, b. c', ['b', 'c'])", "xent") == "a, ."
    with pytest.raises(GameSyntaxError) as info:
        load_game(setup + "assign(s=remove_common_words('blue red', l))\n", dialect="xgl")
    assert "argument 2 of remove_common_words() must be a string, not a list" in str(info.value)
    assert "a list is accepted here in dialect xent only" in str(info.value)


# ---------------------------------------------------------------- only_uses_words / chars


async def test_only_uses_words_with_a_string_or_a_list(judge: NgramJudge) -> None:
    assert await _holds(judge, "only_uses_words('red blue', 'red blue')")
    assert not await _holds(judge, "only_uses_words('red blue', 'red green')")
    setup = "assign(l=['red', 'green'])\n"
    assert await _holds(judge, "only_uses_words(l, 'red green')", setup=setup)
    assert not await _holds(judge, "only_uses_words(l, 'red blue')", setup=setup)


async def test_only_uses_words_compares_space_separated_pieces_exactly(judge: NgramJudge) -> None:
    # the reference splits on single spaces: case and punctuation are part of a word
    assert not await _holds(judge, "only_uses_words('red blue', 'red, blue')")
    assert not await _holds(judge, "only_uses_words('red blue', 'Red blue')")
    assert await _holds(judge, "only_uses_words('red blue', 'red, blue')", dialect="xgl")


@pytest.mark.parametrize(
    ("allowed", "text", "holds"),
    [
        ("abck", "back", True),
        ("abc", "back", False),
        # whitespace is a character like any other
        (".,;:!? ", "!., ", True),
        (".,;:!?", "!., ", False),
        # characters are code points: an emoji with a skin tone is two of them
        ("😀😃😄", "😀", True),
        ("🌟✨💫", "🌙", False),
        ("👍🏽👍🏻", "👍🏽", True),
        ("👍🏽👍🏻", "👍", True),
        ("👍", "👍🏽👍🏻", False),
        # a flag is two regional-indicator code points
        ("🇺🇸🇬🇧", "🇺🇸", True),
        ("🇺🇸", "🇺🇸🇬🇧", False),
        ("你好世界", "你好世界", True),
        ("你好世界", "再见", False),
    ],
)
async def test_only_uses_chars_counts_every_code_point(
    judge: NgramJudge, allowed: str, text: str, holds: bool
) -> None:
    condition = f"only_uses_chars({_quoted(allowed)}, {_quoted(text)})"
    assert await _holds(judge, condition) is holds


async def test_only_uses_chars_ignores_whitespace_in_xgl_only(judge: NgramJudge) -> None:
    condition = "only_uses_chars('ab', 'a b')"
    assert await _holds(judge, condition, dialect="xgl")
    assert not await _holds(judge, condition, dialect="xent")


async def test_num_words_counts_distinct_words_in_xent(judge: NgramJudge) -> None:
    assert await _holds(judge, "num_words('the cat, the hat') == 3")
    assert await _holds(judge, "num_words('the cat, the hat') == 4", dialect="xgl")


# ---------------------------------------------------------------- conditions


@pytest.mark.parametrize("dialect", ["xgl", "xent"])
async def test_list_equality_is_a_condition(judge: NgramJudge, dialect: str) -> None:
    setup = "assign(l=['a', 'b'], l1=['a'] + ['b'])\n"
    assert await _holds(judge, "l == l1, l != ['b', 'a']", dialect=dialect, setup=setup)
    assert not await _holds(judge, "l == ['b', 'a']", dialect=dialect, setup=setup)


async def test_conditions_of_the_reference_tests(judge: NgramJudge) -> None:
    setup = "assign(s1='hello', s2='world', s3='hello world')\n"
    assert await _holds(judge, "1 == 1, 2 == 2, len(s1) == 5", setup=setup)
    assert not await _holds(judge, "1 == 1, 2 == 3", setup=setup)
    assert await _holds(judge, "(s1 + ' ' + s2) == s3, len(s1) < len(s3)", setup=setup)
    assert not await _holds(judge, "len(s1) > len(s3) or s2 not in s3", setup=setup)
    assert await _holds(judge, "'world' in s3", setup=setup)
    assert not await _holds(judge, "'xyz' in s3", setup=setup)
    assert await _holds(judge, "xent('hello') == xent('hello')")
    assert await _holds(judge, "xent(s3) > xent('hi')", setup=setup)


async def test_a_statement_string_condition_is_is_true_of_it_in_xgl(judge: NgramJudge) -> None:
    """XGL.md section 5: in dialect xgl, ensure("text") means ensure(is_true("text"))."""
    load_game("elicit(x, 5)\nensure('the move is short')\n", dialect="xgl")
    for statement in ("the sky is blue", "two plus two is five", "m"):
        bare = await _holds(judge, _quoted(statement), dialect="xgl")
        assert bare == await _holds(judge, f"is_true({_quoted(statement)})", dialect="xgl")
        assert bare != await _holds(judge, f"is_false({_quoted(statement)})", dialect="xgl")


@pytest.mark.parametrize(
    ("line", "col"),
    [("ensure('not a boolean')", 7), ("ensure(x)", 7), ("ensure(1 == 1, x + 'y')", 15)],
)
def test_ensure_of_a_string_is_an_error_in_xent(line: str, col: int) -> None:
    """The reference's test_ensure_non_boolean_condition: ensure('not a boolean') raises."""
    with pytest.raises(GameSyntaxError) as caught:
        load_game(f"elicit(x, 5)\n{line}\n", dialect="xent")
    (diag,) = caught.value.diagnostics
    assert (diag.line, diag.col) == (2, col)
    assert "must be a condition, not a string" in diag.message
    assert "dialect xent" in diag.message and "is_true(" in diag.hint
    text = str(caught.value)
    assert line in text and " " * col + "^" in text  # the caret under the string


# ---------------------------------------------------------------- assign twice


async def test_a_register_given_twice_keeps_the_last_value_in_xent(judge: NgramJudge) -> None:
    """Python reads assign(a='x', a='y') and the reference keeps the last keyword."""
    source = "assign(s='first', t='mid', s='last')\nelicit(x, 5)\nreveal(s, t)\n"
    result = await run_game(source, {"black": ListPlayer(["m"])}, judge, dialect="xent")
    (event,) = events_of(result, "assign")
    assert event.values == {"s": "last", "t": "mid"}


async def test_the_last_value_is_what_later_lines_read(judge: NgramJudge) -> None:
    setup = "assign(s1='a', s1='b')\n"
    assert await _holds(judge, "s1 == 'b'", setup=setup)
    assert not await _holds(judge, "s1 == 'a'", setup=setup)


def test_a_register_given_twice_is_an_error_with_a_caret_in_xgl() -> None:
    with pytest.raises(GameSyntaxError) as caught:
        load_game("assign(s='first', t='mid', s='last')\nelicit(x, 5)\n", dialect="xgl")
    (diag,) = caught.value.diagnostics
    assert (diag.line, diag.col, diag.end_col) == (1, 27, 28)
    assert diag.message == "keyword argument 's' is given twice"
    assert "^" in str(caught.value)


@pytest.mark.parametrize("dialect", ["xgl", "xent"])
def test_a_function_keyword_given_twice_is_an_error_in_both(dialect: str) -> None:
    """Inside an expression Python itself refuses a repeated keyword, so the reference does."""
    with pytest.raises(GameSyntaxError, match="given twice"):
        load_game("elicit(x, 5)\nreward(xed(x, o='a', o='b'))\n", dialect=dialect)


# ---------------------------------------------------------------- string and integer


@pytest.mark.parametrize(
    ("condition", "holds"),
    [
        ("s != 123", True),
        ("s == 123", False),
        ("123 != s", True),
        ("123 == s", False),
        ("'123' != 123", True),  # no conversion: the string '123' is not the integer 123
        ("len(s) == 3, s != 3", True),
    ],
)
async def test_a_string_and_an_integer_compare_as_unequal_in_xent(
    judge: NgramJudge, condition: str, holds: bool
) -> None:
    """The reference's test_equality_and_inequality: XString('abc') != 123."""
    setup = "assign(s='abc')\n"
    assert await _holds(judge, condition, setup=setup) is holds


@pytest.mark.parametrize("condition", ["s != 123", "123 == s"])
def test_a_string_and_an_integer_cannot_be_compared_in_xgl(condition: str) -> None:
    with pytest.raises(GameSyntaxError) as caught:
        load_game(f"elicit(s, 5)\nensure({condition})\n", dialect="xgl")
    (diag,) = caught.value.diagnostics
    assert "cannot compare" in diag.message and diag.line == 2 and diag.col == 7


def test_ordering_a_string_and_an_integer_stays_an_error_in_xent() -> None:
    with pytest.raises(GameSyntaxError, match="'<' cannot compare"):
        load_game("elicit(s, 5)\nensure(s < 123)\n", dialect="xent")


# ---------------------------------------------------------------- strings


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("'hello' + ' ' + 'world'", "hello world"),
        ("'hello' + 'world'", "helloworld"),  # plain concatenation
        ("'hello world again' // 'world'", "hello "),
        ("'hello world again' // 'hello'", ""),
        ("'hello world again' // 'xyz'", "hello world again"),
        ("'hello world again' // ''", "hello world again"),
        ("'hello world again' % 'world'", " again"),
        ("'hello world again' % 'again'", ""),
        ("'hello world again' % 'xyz'", ""),
        ("'hello world again' % ''", ""),
        ("'hello' // ''", "hello"),
        ("'tab\\there'", "tab\there"),
    ],
)
async def test_string_operators(judge: NgramJudge, expr: str, expected: str) -> None:
    assert await _assigned(judge, expr, "xent") == expected
