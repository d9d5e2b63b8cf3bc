"""Property: any program built from XGL's instructions and expressions (loops, string and
list concatenation, the string and list functions, judge calls) finishes within the
instruction budget and under a memory ceiling; it either completes or stops with one of
the runtime errors a game can legitimately hit. Nothing else escapes."""

from __future__ import annotations

import asyncio
import re
import tracemalloc
from datetime import timedelta

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from arena.judges.ngram import NgramJudge
from arena.lang.limits import ResourceLimits
from tests.runtime.helpers import ListPlayer, run_game

INSTRUCTION_BUDGET = 1_000
LIMITS = ResourceLimits(
    max_value_chars=20_000,
    max_list_items=2_000,
    max_register_chars=100_000,
    max_round_chars=1_000_000,
    max_judge_chars=15_000,  # the n-gram judge scores about 15,000 characters a second
)
MEMORY_CEILING = 48 * 1024 * 1024
# What a generated game may legitimately run into.
EXPECTED_ERRORS = re.compile(
    r"over the limit max_\w+ = |executed more than \d+ instructions|is out of range|"
    r"sample\(\) of an empty list"
)
MOVES = ["red fox", "", "word " * 3_000, "the cat sat on the mat", "ab"]  # one far too long

STRING_REGISTERS = st.sampled_from(["s", "t", "x", "y", "p", "s1", "t2"])
LIST_REGISTERS = st.sampled_from(["l", "l1"])
STRING_LITERALS = st.sampled_from(['"ab"', '""', '"the cat"', '"x, y. z"', "'é ü'"])
SMALL = st.integers(0, 6).map(str)


def strings(depth: int) -> st.SearchStrategy[str]:
    """String expressions up to `depth` operators deep."""
    leaf = st.one_of(STRING_REGISTERS, STRING_LITERALS)
    if depth == 0:
        return leaf
    inner, items = strings(depth - 1), lists(depth - 1)
    return st.one_of(
        leaf,
        st.builds("({} + {})".format, inner, inner),
        st.builds("({} // {})".format, inner, inner),
        st.builds("({} % {})".format, inner, inner),
        st.builds("remove_common_words({}, {})".format, inner, inner),
        st.builds("first_n_tokens({}, {})".format, inner, SMALL),
        st.builds("last_n_tokens({}, {})".format, inner, SMALL),
        st.builds("sample({})".format, items),
        st.builds("{}[{}]".format, LIST_REGISTERS, SMALL),
    )


def lists(depth: int) -> st.SearchStrategy[str]:
    """List expressions up to `depth` operators deep."""
    leaf = st.one_of(LIST_REGISTERS, st.just('["a", "b"]'))
    if depth == 0:
        return leaf
    inner, texts = lists(depth - 1), strings(depth - 1)
    return st.one_of(
        leaf,
        st.builds("({} + {})".format, inner, inner),
        st.builds("[{}, {}]".format, texts, texts),
        st.builds("word_set({})".format, texts),
        st.builds("common_word_set({}, {})".format, texts, texts),
        st.builds("shuffle({})".format, inner),
    )


TEXT = strings(2)
LIST = lists(2)
CONDITIONS = st.one_of(
    st.builds("len({}) < {}".format, TEXT, st.integers(0, 50).map(str)),
    st.builds("{} in {}".format, TEXT, st.one_of(TEXT, LIST)),
    st.builds("num_words({}) <= {}".format, TEXT, SMALL),
    st.builds("only_uses_chars({}, {})".format, TEXT, TEXT),
    st.builds("xent({}) > 0".format, TEXT),
)
REWARDS = st.one_of(
    st.builds("xent({} | {})".format, TEXT, TEXT),
    st.builds("xed({} | {})".format, TEXT, TEXT),
    st.builds("nex({}) - 2*dex({})".format, TEXT, TEXT),
)
FLAGS = st.sampled_from(["flag_1", "flag_2"])
INSTRUCTIONS = st.one_of(
    st.builds("assign({}={})".format, STRING_REGISTERS, TEXT),
    st.builds("assign({}={})".format, LIST_REGISTERS, LIST),
    st.builds("assign({0}={0} + {0})".format, STRING_REGISTERS),  # the doubling attack
    st.builds("assign({0}={0} + {0})".format, LIST_REGISTERS),
    st.builds("beacon({})".format, FLAGS),
    st.builds("replay({}, {})".format, FLAGS, st.integers(0, 60)),
    st.builds("elicit({}, {})".format, STRING_REGISTERS, st.integers(1, 12)),
    st.builds("ensure({})".format, CONDITIONS),
    st.builds("reveal(alice, {})".format, st.one_of(TEXT, LIST)),
    st.builds("reward({})".format, REWARDS),
)
# beacon, a few instructions, replay: a loop of up to 61 passes (at most 5 lines).
LOOPS = st.builds(
    lambda flag, body, count: "\n".join([f"beacon({flag})", *body, f"replay({flag}, {count})"]),
    FLAGS,
    st.lists(INSTRUCTIONS, min_size=1, max_size=3),
    st.integers(0, 60),
)
# An elicit first, so that every later ensure has one to return to; at most 51 lines.
PROGRAMS = st.lists(st.one_of(INSTRUCTIONS, LOOPS), min_size=1, max_size=10).map(
    lambda parts: "\n".join(["elicit(s0, 5)", *parts]) + "\n"
)


@settings(
    max_examples=60,
    deadline=timedelta(seconds=20),  # generous: the machine is shared; no example is close
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(PROGRAMS)
def test_generated_programs_stay_within_their_budgets(source: str) -> None:
    judge = NgramJudge()
    tracemalloc.start()
    try:
        result = asyncio.run(
            run_game(
                source,
                {"black": ListPlayer(MOVES)},
                judge,
                instruction_budget=INSTRUCTION_BUDGET,
                limits=LIMITS,
            )
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    found = EXPECTED_ERRORS.search(result.error or "")
    assert result.error is None or found, result.error
    event(found.group() if found else "completed")  # see --hypothesis-show-statistics
    assert peak < MEMORY_CEILING
    # Each executed instruction records at most a few events; the budget bounds them all.
    assert len(result.events) <= 4 * INSTRUCTION_BUDGET + 4
