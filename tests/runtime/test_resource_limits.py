"""Resource limits while a round runs: each attack program is stopped early, with an error
that names the limit, the line and how to raise it, and with memory bounded (the peak of
Python allocations during the match, measured with tracemalloc, under a generous ceiling).
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Awaitable
from typing import TypeVar

from arena.judges.ngram import NgramJudge
from arena.lang.limits import DEFAULT_LIMITS, ResourceLimits
from arena.runtime.match import MatchResult
from tests.runtime.helpers import ListPlayer, events_of, run_game

T = TypeVar("T")
MiB = 1024 * 1024

# The attack from the issue: it grew to 21 GB before it was killed.
DOUBLING = """\
assign(s="ab")
beacon(flag_1)
assign(s=s+s)
replay(flag_1, 60)
elicit(t, 5)
reward(xent(s | t))
"""


async def peak_bytes(work: Awaitable[T]) -> tuple[T, int]:
    """Run `work`; return its result and the peak of memory allocated while it ran."""
    tracemalloc.start()
    try:
        result = await work
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def assert_stopped_by(result: MatchResult, limit: str, line: int) -> None:
    """The match ended with a runtime error on `line` naming `limit` and how to raise it."""
    assert result.error is not None
    assert f"over the limit {limit} = " in result.error
    assert f"{limit} = N` under [limits] in the tournament file" in result.error
    assert f"arena play --limit {limit}=N" in result.error
    (event,) = events_of(result, "runtime_error")
    assert event.line == line
    assert f"(line {line}: " in result.error


async def test_doubling_a_string_stops_at_the_value_limit(judge: NgramJudge) -> None:
    player = ListPlayer(["a move"])
    result, peak = await peak_bytes(run_game(DOUBLING, {"black": player}, judge))
    assert_stopped_by(result, "max_value_chars", line=3)
    # "ab" -> "ab ab" -> ...: 3 * 2**k - 1 characters; the limit stops it at k = 19.
    assert len(events_of(result, "assign")) == 1 + 18
    assert not player.requests  # stopped before any move was asked for
    assert peak < 64 * MiB


async def test_doubling_a_list_stops_at_the_item_limit(judge: NgramJudge) -> None:
    source = 'assign(l=["ab"])\nbeacon(flag_1)\nassign(l=l+l)\nreplay(flag_1, 60)\nelicit(t, 5)\n'
    result, peak = await peak_bytes(run_game(source, {"black": ListPlayer(["x"])}, judge))
    assert_stopped_by(result, "max_list_items", line=3)
    assert "this list is 131,072 items" in (result.error or "")
    assert peak < 64 * MiB


async def test_a_list_of_long_strings_stops_at_the_value_limit(judge: NgramJudge) -> None:
    # Few items, but each one long: the list's total characters are what is limited.
    source = (
        'assign(s="ab")\nbeacon(flag_1)\nassign(s=s+s)\nreplay(flag_1, 13)\n'
        "assign(l=[s, s, s])\nbeacon(flag_2)\nassign(l=l+l)\nreplay(flag_2, 60)\nelicit(t, 5)\n"
    )
    limits = ResourceLimits(max_value_chars=200_000)
    result, peak = await peak_bytes(
        run_game(source, {"black": ListPlayer(["x"])}, judge, limits=limits)
    )
    assert_stopped_by(result, "max_value_chars", line=7)
    assert "this list is " in (result.error or "")
    assert peak < 64 * MiB


async def test_filling_every_register_stops_at_the_register_total(judge: NgramJudge) -> None:
    source = (
        'assign(s="ab")\nbeacon(flag_1)\nassign(s=s+s)\nreplay(flag_1, 17)\n'  # 786,431 chars
        "assign(t=s, x=s, y=s, p=s, s0=s, s1=s)\nelicit(t2, 5)\n"
    )
    result, peak = await peak_bytes(run_game(source, {"black": ListPlayer(["x"])}, judge))
    assert_stopped_by(result, "max_register_chars", line=5)
    assert f"{7 * 786_431:,} characters" in (result.error or "")
    assert peak < 64 * MiB


async def test_rebuilding_a_long_value_in_a_loop_stops_at_the_round_total(
    judge: NgramJudge,
) -> None:
    # Each value is within its limit, but every one is kept in the match's event log.
    source = (
        'assign(s="ab")\nbeacon(flag_1)\nassign(s=s+s)\nreplay(flag_1, 13)\n'  # 49,151 chars
        'beacon(flag_2)\nassign(t=s + "x")\nreplay(flag_2, 5000)\nelicit(x, 5)\n'
    )
    limits = ResourceLimits(max_round_chars=2_000_000)
    result, peak = await peak_bytes(
        run_game(source, {"black": ListPlayer(["x"])}, judge, limits=limits)
    )
    assert_stopped_by(result, "max_round_chars", line=6)
    assert len([e for e in events_of(result, "assign") if e.line == 6]) < 41
    assert peak < 64 * MiB


async def test_revealing_in_a_loop_counts_towards_the_round_total(judge: NgramJudge) -> None:
    source = (
        'assign(s="ab")\nbeacon(flag_1)\nassign(s=s+s)\nreplay(flag_1, 13)\n'
        "beacon(flag_2)\nreveal(alice, s)\nreplay(flag_2, 5000)\nelicit(alice, x, 5)\n"
    )
    limits = ResourceLimits(max_round_chars=2_000_000)
    result, peak = await peak_bytes(
        run_game(source, {"alice": ListPlayer(["x"])}, judge, limits=limits)
    )
    assert_stopped_by(result, "max_round_chars", line=6)
    assert peak < 64 * MiB


async def test_tokenising_a_long_text_in_a_loop_stops_at_the_judge_total(
    judge: NgramJudge,
) -> None:
    source = (
        'assign(s="ab")\nbeacon(flag_1)\nassign(s=s+s)\nreplay(flag_1, 13)\n'  # 49,151 chars
        "beacon(flag_2)\nassign(x=first_n_tokens(s, 2))\nreplay(flag_2, 5000)\nelicit(t, 5)\n"
    )
    limits = ResourceLimits(max_judge_chars=1_000_000)
    result, peak = await peak_bytes(
        run_game(source, {"black": ListPlayer(["x"])}, judge, limits=limits)
    )
    assert_stopped_by(result, "max_judge_chars", line=6)
    assert "characters, not tokens" in (result.error or "")
    assert len([e for e in events_of(result, "assign") if e.line == 6]) == 20
    assert peak < 64 * MiB


async def test_scoring_is_charged_before_the_judge_is_asked(judge: NgramJudge) -> None:
    source = (
        'assign(s="ab")\nbeacon(flag_1)\nassign(s=s+s)\nreplay(flag_1, 10)\n'  # 6,143 chars
        "elicit(t, 5)\nreward(xed(s | t))\n"
    )
    limits = ResourceLimits(max_judge_chars=10_000)  # xed scores s twice: 12,286 + |t|
    result = await run_game(source, {"black": ListPlayer(["a move"])}, judge, limits=limits)
    assert_stopped_by(result, "max_judge_chars", line=6)
    assert not events_of(result, "reward")


async def test_a_huge_move_is_cut_before_the_judge_tokenises_it(judge: NgramJudge) -> None:
    move = "word " * 2_000_000  # 10 MB from a player, allocated before measuring
    source = "elicit(t, 5)\nassign(s=t + t)\nreward(xent(s))\n"
    limits = ResourceLimits(max_value_chars=50_000)
    result, peak = await peak_bytes(
        run_game(source, {"black": ListPlayer([move])}, judge, limits=limits)
    )
    assert result.error is None
    (response,) = events_of(result, "elicit_response")
    assert response.cut and len(response.values["t"]) <= len("word ") * 5
    assert peak < 32 * MiB


async def test_naming_a_long_list_many_times_on_one_line_copies_nothing(
    judge: NgramJudge,
) -> None:
    many = ", ".join(["len(l) > 0"] * 800)  # 9,598 characters: within the line limit
    source = (
        'elicit(t, 5)\nassign(l=["ab"])\nbeacon(flag_1)\nassign(l=l+l)\nreplay(flag_1, 15)\n'
        f"ensure({many})\n"
    )
    result, peak = await peak_bytes(run_game(source, {"black": ListPlayer(["x"])}, judge))
    assert result.error is None
    assert peak < 64 * MiB  # 800 copies of a 65,536-item list would take 420 MB


async def test_the_defaults_leave_an_ordinary_game_alone(judge: NgramJudge) -> None:
    source = (
        'assign(s=story(), l=["a", "b"])\nbeacon(flag_1)\nelicit(t, 10)\n'
        "ensure(num_words(t) <= 10)\nassign(x=x + t, l=l + [t])\nreplay(flag_1, 20)\n"
        "reveal(alice, x)\nreward(xed(s | x))\n"
    )
    result = await run_game(source, {"black": ListPlayer(["one two three"])}, judge)
    assert result.error is None
    assert len(events_of(result, "elicit_response")) == 21
    assert DEFAULT_LIMITS.max_value_chars >= 1_000_000
