"""Static checker tests: one per rule, plus "every problem at once" and the rendering."""

from __future__ import annotations

import pytest

from arena.errors import Diagnostic, GameSyntaxError
from arena.lang.checker import check_program
from arena.lang.loader import load_game
from arena.lang.parser import parse_program

SETUP = "assign(s=story(), t1=story())\n"


def problems(source: str, filename: str = "<game>") -> list[Diagnostic]:
    with pytest.raises(GameSyntaxError) as info:
        load_game(source, filename=filename)
    return list(info.value.diagnostics)


def one_problem(source: str, filename: str = "<game>") -> Diagnostic:
    found = problems(source, filename)
    assert len(found) == 1, [d.message for d in found]
    return found[0]


def ok(source: str, filename: str = "<game>") -> None:
    load_game(source, filename=filename)


# ---------------------------------------------------------------- names and functions


def test_unknown_register_suggests_and_lists_registers() -> None:
    diag = one_problem(SETUP + "elicit(t, 10)\nreveal(q1)")
    assert (diag.line, diag.col, diag.end_col) == (3, 7, 9)
    assert diag.message.startswith("Unknown register 'q1'. Did you mean 's1'? Valid options:")
    assert "l3" in diag.message and "y3" in diag.message


def test_unknown_function_lists_functions() -> None:
    diag = one_problem(SETUP + "elicit(t, 10)\nreward(xedd(s | t))")
    assert (diag.line, diag.col, diag.end_col) == (3, 7, 11)
    assert "Unknown function 'xedd'. Did you mean 'xed'?" in diag.message
    assert "remove_common_words" in diag.message


def test_instruction_inside_an_expression_is_an_error() -> None:
    diag = one_problem("assign(s=elicit(t, 10))")
    assert "instruction 'elicit' cannot be used inside an expression" in diag.message


def test_wrong_function_arity() -> None:
    diag = one_problem(SETUP + "elicit(t, 10)\nreward(xed(s, t, x))")
    assert "xed() takes 1 to 2 arguments, got 3" in diag.message
    assert "xed(s | t, o='')" in diag.hint


def test_wrong_function_argument_kind() -> None:
    diag = one_problem("assign(s=first_n_tokens(s, t))")
    assert "argument 2 of first_n_tokens() must be an integer, not a string" in diag.message
    assert diag.col == 27


def test_unknown_keyword_argument() -> None:
    diag = one_problem(SETUP + "elicit(t, 10)\nreward(xed(s | t, q=t))")
    assert (diag.col, diag.end_col) == (18, 19)
    assert "Unknown keyword argument 'q' of xed()" in diag.message


def test_o_keyword_only_on_xent_functions() -> None:
    ok(SETUP + 'elicit(t, 10)\nreward(xed(s | t, o="pre") + nex(s, o=t) + dex(s) + xent(t))')
    diag = one_problem('assign(s=remove_common_words(s, t, o="x"))')
    assert "remove_common_words() takes no keyword arguments" in diag.message


def test_o_given_twice_is_an_error() -> None:
    diag = one_problem(SETUP + 'elicit(t, 10)\nreward(xed(s, "a", o="b"))')
    assert "got 'o' twice" in diag.message


def test_story_argument_must_be_a_literal() -> None:
    ok('assign(s=story(), s1=story(20), s2=story("a fable"))')
    diag = one_problem("assign(s=story(t))")
    assert "story() must be an integer or string literal" in diag.message


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("assign(s=alice)", "'alice' is a player, not a value"),
        ("assign(s=flag_1)", "'flag_1' is a flag, not a value"),
        ("assign(s=story)", "function 'story' must be called"),
    ],
)
def test_players_flags_and_functions_are_not_values(line: str, fragment: str) -> None:
    diag = one_problem(line)
    assert fragment in diag.message
    assert diag.col == 9


# ---------------------------------------------------------------- static kinds


@pytest.mark.parametrize(
    "expr",
    [
        "xed(s | t)",
        "xent(s) + xed(s | t) - nex(t)",
        "-xed(s | t)",
        "2*xed(s | t)",
        "xed(s | t)*3",
        "-2*xed(s)",
        "(xed(s) - xent(t)) * -1",
        "xed(s2 | s + t1)",
        'xed(s // "#", "white=")',
        "xed(s % t | t1)",
    ],
)
def test_signed_xent_sums_are_valid_rewards(expr: str) -> None:
    ok(SETUP + f"elicit(t, 10)\nreward({expr})")


@pytest.mark.parametrize(
    ("expr", "fragment"),
    [
        ('"text"', "a reward must be a signed xent sum, not a string"),
        ("3", "a reward must be a signed xent sum, not an integer"),
        ("xed(s) > 0", "a reward must be a signed xent sum, not a condition"),
        ("word_set(s)", "a reward must be a signed xent sum, not a list"),
        ("num_words(s)*xed(s)", "can only be multiplied by an integer literal"),
        ("xed(s)*xed(t)", "'*' cannot combine a xent sum and a xent sum"),
        ("xed(s) + 1", "'+' cannot combine a xent sum and an integer"),
        ("xed(s + 1)", "'+' cannot combine a string and an integer"),
        ("xed(s | l)", "'|' cannot combine a string and a list"),
        ("-s", "unary '-' cannot negate a string"),
    ],
)
def test_reward_amount_kind_errors(expr: str, fragment: str) -> None:
    diag = one_problem(SETUP + f"elicit(t, 10)\nreward({expr})")
    assert fragment in diag.message
    if "signed xent sum" in fragment:
        assert "xent/xed/nex/dex" in diag.hint


@pytest.mark.parametrize(
    "cond",
    [
        "xed(s | t) >= xed(t1 | s)",
        "xent(t) < 10",
        "3 <= xent(t)",
        "num_words(t) < 5",
        "len(l) == 2",
        "s == t",
        "s != t",
        "t in s",
        "t not in word_set(s)",
        "l[0] in l",
        "is_true(t, s) and not is_false(t) or only_uses_words(s, t)",
        '"no common words between" + s + "&" + t',
        "0 < xent(t) < 20",
        "num_words(t) * 2 + 1 > len(s)",
        'only_uses_chars("abc", t)',
        't in ["a", "b"]',
        'l == ["a"] + l',  # XGL.md section 9: list == list is a condition in both dialects
        "l != l",
    ],
)
def test_valid_ensure_conditions(cond: str) -> None:
    ok(SETUP + f"elicit(t, 10)\nensure({cond})")


@pytest.mark.parametrize(
    ("cond", "fragment"),
    [
        ("xed(s)", "an ensure condition must be a condition or a string, not a xent sum"),
        ("l", "an ensure condition must be a condition or a string, not a list"),
        ("s < t", "'<' cannot compare a string with a string"),
        ("l < l", "'<' cannot compare a list with a list"),
        ("s in 3", "'in' cannot compare a string with an integer"),
        ("xed(s) == s", "'==' cannot compare a xent sum with a string"),
        ("t and xed(s) > 0", "'and' needs conditions, not a string"),
        ("not s", "'not' needs a condition, not a string"),
        ("s[0] == t", "only lists can be indexed, not a string"),
        ('l["a"] == t', "a list index must be an integer, not a string"),
        ('["a", 1] == l', "a list item must be a string, not an integer"),
    ],
)
def test_ensure_condition_kind_errors(cond: str, fragment: str) -> None:
    diag = one_problem(SETUP + f"elicit(t, 10)\nensure({cond})")
    assert fragment in diag.message


# ---------------------------------------------------------------- assign


def test_assign_takes_keywords_only() -> None:
    diag = one_problem('assign(s, t="x")')
    assert "keyword arguments only" in diag.message and diag.col == 7


def test_assign_needs_a_register() -> None:
    assert "at least one" in one_problem("assign()").message


def test_assign_keyword_must_be_a_register() -> None:
    diag = one_problem('assign(z1="x")')
    assert "Unknown register 'z1'" in diag.message and (diag.col, diag.end_col) == (7, 9)
    assert "'alice' is a player, not a register" in one_problem('assign(alice="x")').message


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("assign(s=word_set(t))", "cannot store a list in the string register 's'"),
        ('assign(l="x")', "cannot store a string in the list register 'l'"),
        ("assign(s=3)", "cannot store an integer in the string register 's'"),
        ("assign(s=xent(t))", "cannot store a xent sum in the string register 's'"),
    ],
)
def test_assign_value_kind_must_match_register(line: str, fragment: str) -> None:
    assert fragment in one_problem(line).message


def test_list_registers_take_lists() -> None:
    ok('assign(l=["a", "b"], l1=word_set(s), l2=shuffle(l) + common_word_set(s, t))')
    ok('assign(l=["a"])\nassign(s=sample(l), t=l[0] + l[1])')


def test_constants_only_in_setup_block() -> None:
    ok('assign(a="x", b1="y")\nassign(c="z")\nreveal(a)\nassign(s=a+b1+c)\nelicit(t, 10)')
    diag = one_problem('assign(a="x")\nelicit(t, 10)\nassign(s="ok", a="late")')
    assert (diag.line, diag.col, diag.end_col) == (3, 15, 16)
    assert "constant register 'a' can only be assigned in the setup block" in diag.message
    assert "line 2" in diag.message


@pytest.mark.parametrize("ender", ["reward(xed(s))", "beacon(flag_1)", "elicit(t, 10)"])
def test_setup_block_ends_at_first_elicit_reward_ensure_or_beacon(ender: str) -> None:
    diag = one_problem(f'{ender}\nassign(c2="late")')
    assert diag.line == 2 and "setup block" in diag.message


# ---------------------------------------------------------------- elicit


def test_elicit_forms() -> None:
    ok("elicit(t, 10)\nelicit(alice, t1, t2, 10)\nelicit(env, x, y3, p, 1)")


def test_elicit_missing_max_len() -> None:
    diag = one_problem("elicit(alice, t)")
    assert diag.message == "elicit is missing its maximum length"
    assert diag.hint == "add the maximum move length in judge tokens, e.g. elicit(t, 10)"
    assert (diag.col, diag.end_col) == (15, 16)


@pytest.mark.parametrize("bad", ["0", "-1", "2*5"])
def test_elicit_max_len_must_be_positive_literal(bad: str) -> None:
    assert "integer literal >= 1" in one_problem(f"elicit(t, {bad})").message


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ("a, 10", "constant register 'a'"),
        ("l, 10", "'l' is a list register"),
        ("s + t, 10", "not in an expression"),
        ("q, t, 10", "Unknown player or register 'q'"),
        ("t, q, 10", "Unknown register 'q'"),
        ("t, alice, 10", "the player 'alice' must be the first argument"),
        ("t, t, 10", "elicited twice"),
        ("alice, 10", "at least one register"),
        ("flag_1, 10", "'flag_1' is a flag"),
    ],
)
def test_elicit_register_errors(args: str, fragment: str) -> None:
    assert fragment in one_problem(f"elicit({args})").message


def test_elicit_misspelt_player_suggests_player() -> None:
    diag = one_problem("elicit(alcie, t, 10)")
    assert "Did you mean 'alice'?" in diag.message


def test_elicit_takes_no_keywords() -> None:
    assert "takes no keyword arguments" in one_problem("elicit(t, 10, n=2)").message


# ---------------------------------------------------------------- reveal / reward


def test_reveal_forms_and_errors() -> None:
    ok('assign(s=story())\nreveal(s)\nreveal(alice, s2 + t, l, "x")')
    assert "at least one expression" in one_problem("reveal(bob)").message
    assert "must be the first argument" in one_problem("reveal(s, alice)").message
    assert "revealed value must be a string or a list" in one_problem("reveal(xed(s))").message


def test_reward_player_forms() -> None:
    ok("reward(xed(s))\nreward(white, xed(s))\nreward(env, -xent(s))")
    assert "must be a player" in one_problem("reward(s, xed(s))").message
    assert "Unknown player 'alcie'" in one_problem("reward(alcie, xed(s))").message
    assert "got 3 arguments" in one_problem("reward(alice, bob, xed(s))").message
    assert "needs an amount" in one_problem("reward(alice)").message


# ---------------------------------------------------------------- ensure


def test_ensure_needs_an_earlier_elicit() -> None:
    diag = one_problem('assign(s=story())\nensure("true")\nelicit(t, 10)')
    assert (diag.line, diag.col, diag.end_col) == (2, 0, 6)
    assert "no elicit on an earlier line" in diag.message


def test_ensure_needs_a_condition() -> None:
    assert "at least one condition" in one_problem("elicit(t, 10)\nensure()").message


# ---------------------------------------------------------------- beacon / replay


def test_beacon_and_replay_forms() -> None:
    ok("beacon(flag_1)\nelicit(t, 10)\nbeacon(flag_2)\nreplay(flag_2, 0)\nreplay(flag_1, 3)")
    assert "Did you mean 'flag_1'?" in one_problem("beacon(flag1)").message
    assert "one flag" in one_problem("beacon(flag_1, flag_2)").message
    assert "integer literal >= 0" in one_problem("replay(flag_1, -1)").message
    assert "integer literal >= 0" in one_problem("replay(flag_1, t)").message
    assert "flag and a count" in one_problem("replay(flag_1)").message


def test_replay_without_beacon_depends_on_dialect() -> None:
    source = "elicit(t, 10)\nreplay(flag_1, 2)\nbeacon(flag_1)"
    ok(source, "game.xgl")
    diag = one_problem(source, "game.xent")
    assert (diag.line, diag.col, diag.end_col) == (2, 7, 13)
    assert "no beacon(flag_1) on an earlier line" in diag.message
    ok("beacon(flag_1)\nelicit(t, 10)\nreplay(flag_1, 2)", "game.xent")


def test_order_rules_are_not_judged_below_a_line_that_may_be_the_missing_one() -> None:
    # Line 1 may be the elicit (misspelt): no ensure complaint, only the real problem.
    diag = one_problem("elicitt(t, 10)\nensure(t == s)")
    assert diag.line == 1
    # A broken reward line cannot be an elicit: the ensure rule still applies.
    found = problems("reward(1.5)\nensure(t == s)")
    assert [d.line for d in found] == [1, 2]


# ---------------------------------------------------------------- all at once


BROKEN = """\
assign(s=story(), q1="x")
reward(1.5)
elicitt(t, 10)
elicit(alice, t)
assign(a="late")
reveal(s, alice)
reward(alice, s + t)
ensure(xed(s | t))
"""


def test_all_problems_are_reported_at_once_in_line_order() -> None:
    found = problems(BROKEN, "broken.xgl")
    located = [(d.line, d.col) for d in found]
    assert located == [(1, 18), (2, 7), (3, 0), (4, 15), (5, 7), (6, 10), (7, 14), (8, 7)]
    assert all(d.filename == "broken.xgl" and d.hint for d in found)
    assert all(d.source_line == BROKEN.splitlines()[d.line - 1] for d in found)


def test_rendered_error_has_file_line_column_source_caret_and_hint() -> None:
    with pytest.raises(GameSyntaxError) as info:
        load_game(BROKEN, filename="broken.xgl")
    text = str(info.value)
    assert text.startswith("8 problems in game file:")
    expected = (
        "broken.xgl:4:16: error: elicit is missing its maximum length\n"
        "    elicit(alice, t)\n"
        "                   ^\n"
        "    hint: add the maximum move length in judge tokens, e.g. elicit(t, 10)"
    )
    assert expected in text
    assert "broken.xgl:1:19: error: Unknown register 'q1'" in text
    assert '    assign(s=story(), q1="x")\n                      ^^\n' in text


def test_check_program_on_a_clean_program_is_empty() -> None:
    program = parse_program(SETUP + "elicit(t, 10)\nreward(xed(s | t))")
    assert check_program(program) == []
