"""Every runtime rule of XGL.md, each with a test that fails if the rule breaks."""

from __future__ import annotations

import pytest

from arena.judges.ngram import NgramJudge
from arena.protocols.judge import ScoreRequest
from arena.runtime.maps import GameMap
from tests.runtime.helpers import ListPlayer, events_of, run_game


def assigned(result, register: str) -> list:  # type: ignore[no-untyped-def]
    return [e.values[register] for e in events_of(result, "assign") if register in e.values]


# ---------------------------------------------------------------- cat and cut


async def test_cat_inserts_one_space_in_xgl_only_when_needed(judge: NgramJudge) -> None:
    source = (
        'assign(s="a" + "b", t="a " + "b", x="a" + " b", y="" + "b")\n'
        "elicit(p, 5)\n"
    )
    result = await run_game(source, {"black": ListPlayer(["m"])}, judge)
    (values,) = [e.values for e in events_of(result, "assign")]
    assert values == {"s": "a b", "t": "a b", "x": "a b", "y": "b"}


async def test_cat_is_plain_concatenation_in_xent_dialect(judge: NgramJudge) -> None:
    source = 'assign(s="a" + "b", t="a " + "b")\nelicit(p, 5)\n'
    result = await run_game(source, {"black": ListPlayer(["m"])}, judge, dialect="xent")
    (values,) = [e.values for e in events_of(result, "assign")]
    assert values == {"s": "ab", "t": "a b"}


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ('"one two three" // "two"', "one "),
        ('"one two three" // "four"', "one two three"),  # absent: all of a
        ('"one two three" // ""', "one two three"),  # empty: all of a
        ('"one two three" % "two"', " three"),
        ('"one two three" % "four"', ""),  # absent: empty
        ('"one two three" % ""', ""),  # empty: empty
        ('"a-b-c" // "-"', "a"),  # first occurrence
        ('"a-b-c" % "-"', "b-c"),
        ('"x" + "one two" // "two"', "x one "),  # // binds tighter than +
    ],
)
async def test_cut_edge_cases(judge: NgramJudge, expr: str, expected: str) -> None:
    result = await run_game(f"assign(s={expr})\nelicit(p, 5)\n", {"black": ListPlayer(["m"])}, judge)
    assert assigned(result, "s") == [expected]


async def test_assign_is_simultaneous(judge: NgramJudge) -> None:
    source = 'assign(s="first", t="second")\nassign(s=t, t=s)\nelicit(p, 5)\n'
    result = await run_game(source, {"black": ListPlayer(["m"])}, judge)
    assert assigned(result, "s") == ["first", "second"]
    assert assigned(result, "t") == ["second", "first"]


async def test_lists_index_len_and_concat(judge: NgramJudge) -> None:
    source = (
        'assign(l=["a", "b"], l1=["c"])\n'
        "assign(l2=l + l1)\n"
        "assign(s=l2[2], t=l2[-1])\n"
        "elicit(p, 5)\n"
        "ensure(len(l2) == 3 and \"b\" in l2 and \"z\" not in l2)\n"
    )
    result = await run_game(source, {"black": ListPlayer(["m"])}, judge)
    assert assigned(result, "l2") == [["a", "b", "c"]]
    assert assigned(result, "s") == ["c"]
    assert not events_of(result, "failed_ensure")


# ---------------------------------------------------------------- xent functions


async def test_xed_is_xent_minus_conditioned_xent_per_token(judge: NgramJudge) -> None:
    source = 'assign(s="the cat sat on the mat", t="a cat on a mat")\nelicit(p, 3)\nreward(xed(s | t))\n'
    result = await run_game(source, {"black": ListPlayer(["m"])}, judge)
    (reward,) = events_of(result, "reward")
    plain, conditioned = await judge.score(
        [ScoreRequest("the cat sat on the mat", ""), ScoreRequest("the cat sat on the mat", "a cat on a mat")]
    )
    expected = [a - b for a, b in zip(plain.bits, conditioned.bits, strict=True)]
    assert reward.terms[0].bits == pytest.approx(expected)
    assert reward.total == pytest.approx(sum(expected))
    assert reward.terms[0].kind == "xed"
    assert reward.terms[0].source == "xed(s | t)"


async def test_pipe_binds_looser_than_plus(judge: NgramJudge) -> None:
    source = 'assign(s="b c", s1="d", s2="a story")\nelicit(p, 3)\nreward(xent(s2 | s + s1))\n'
    result = await run_game(source, {"black": ListPlayer(["m"])}, judge)
    (reward,) = events_of(result, "reward")
    assert reward.terms[0].target == "a story"
    assert reward.terms[0].context == "b c d"


async def test_pre_instruction_o_precedes_the_condition(judge: NgramJudge) -> None:
    source = 'assign(s="x y", t="cond")\nelicit(p, 3)\nreward(xent(s | t, "pre") + xent(s, o="only"))\n'
    result = await run_game(source, {"black": ListPlayer(["m"])}, judge)
    (reward,) = events_of(result, "reward")
    assert [t.context for t in reward.terms] == ["pre cond", "only"]


async def test_xent_dialect_never_scores_first_target_token(judge: NgramJudge) -> None:
    source = 'assign(s="the cat sat")\nelicit(p, 3)\nreward(xent(s))\n'
    xgl = await run_game(source, {"black": ListPlayer(["m"])}, judge)
    xent = await run_game(source, {"black": ListPlayer(["m"])}, judge, dialect="xent")
    assert len(events_of(xgl, "reward")[0].terms[0].bits) == 3
    assert len(events_of(xent, "reward")[0].terms[0].bits) == 2


async def test_signed_sums_nex_dex_and_integer_multiples(judge: NgramJudge) -> None:
    source = (
        'assign(s="the cat sat", t="cat")\n'
        "elicit(p, 3)\n"
        "reward(2*xed(s | t) - xent(t) + nex(t) + dex(s | t) + -xed(s | t))\n"
    )
    result = await run_game(source, {"black": ListPlayer(["m"])}, judge)
    (reward,) = events_of(result, "reward")
    by_source = {(t.source, t.coefficient): t for t in reward.terms}
    xed = by_source[("xed(s | t)", 2)].total / 2
    xent_t = by_source[("xent(t)", -1)].total * -1
    assert by_source[("nex(t)", 1)].total == pytest.approx(-xent_t)
    assert by_source[("dex(s | t)", 1)].total == pytest.approx(-xed)
    assert by_source[("xed(s | t)", -1)].total == pytest.approx(-xed)
    assert reward.total == pytest.approx(2 * xed - 2 * xent_t - xed - xed)


async def test_empty_target_scores_zero(judge: NgramJudge) -> None:
    result = await run_game('assign(s="")\nelicit(p, 3)\nreward(xent(s))\n', {"black": ListPlayer(["m"])}, judge)
    (reward,) = events_of(result, "reward")
    assert reward.total == 0 and reward.terms[0].bits == []


async def test_is_true_and_is_false_are_opposites(judge: NgramJudge) -> None:
    source = (
        'assign(s="the sky is blue")\n'
        "elicit(p, 3)\n"
        'ensure(is_true("it is a sentence", s) or is_false("it is a sentence", s))\n'
        'ensure(not (is_true("it is a sentence", s) and is_false("it is a sentence", s)))\n'
    )
    result = await run_game(source, {"black": ListPlayer(["m"])}, judge)
    assert not events_of(result, "failed_ensure")


# ---------------------------------------------------------------- control flow


async def test_replay_runs_body_n_plus_one_times(judge: NgramJudge) -> None:
    source = "beacon(flag_1)\nelicit(t, 3)\nreplay(flag_1, 2)\n"
    player = ListPlayer(["m"])
    await run_game(source, {"black": player}, judge)
    assert len(player.requests) == 3


async def test_nested_replay_resets_inner_counter(judge: NgramJudge) -> None:
    source = (
        "beacon(flag_1)\n"
        "elicit(t, 3)\n"  # outer body: 3 times
        "beacon(flag_2)\n"
        "elicit(x, 3)\n"  # inner body: 2 per outer pass -> 6
        "replay(flag_2, 1)\n"
        "replay(flag_1, 2)\n"
    )
    player = ListPlayer(["m"])
    await run_game(source, {"black": player}, judge)
    asked = [r.registers[0] for r in player.requests]
    assert asked.count("t") == 3 and asked.count("x") == 6


async def test_xgl_flags_default_to_line_one(judge: NgramJudge) -> None:
    player = ListPlayer(["m"])
    await run_game("elicit(t, 3)\nreplay(flag_1, 1)\n", {"black": player}, judge)
    assert len(player.requests) == 2


async def test_ensure_jumps_back_to_most_recent_elicit(judge: NgramJudge) -> None:
    source = (
        "elicit(alice, s, 5)\n"
        "elicit(bob, t, 5)\n"
        'assign(x=t + "!")\n'
        'ensure(t == "good")\n'
        "reward(alice, xent(t))\n"
    )
    alice, bob = ListPlayer(["a"]), ListPlayer(["bad", "bad", "good"])
    result = await run_game(source, {"alice": alice, "bob": bob}, judge)
    assert len(alice.requests) == 1  # not re-asked: bob's elicit is the most recent one
    assert len(bob.requests) == 3
    assert [r.attempt for r in bob.requests] == [1, 2, 3]
    assert bob.requests[1].failed_condition == 't == "good"'
    failures = events_of(result, "failed_ensure")
    assert [(f.player, f.failures) for f in failures] == [("bob", 1), ("bob", 2)]
    assert assigned(result, "x") == ["bad !", "bad !", "good !"]  # assign re-ran each time


async def test_ensure_budget_exceeded_forfeits_the_round(judge: NgramJudge) -> None:
    source = 'assign(s="x")\nelicit(t, 5)\nensure(t == "never")\nreward(xent(s))\n'
    player = ListPlayer(["no"])
    result = await run_game(source, {"black": player}, judge, ensure_budget=3, rounds=2)
    assert len(player.requests) == 2 * 4  # 3 tolerated failures + the forfeiting one, per round
    forfeits = events_of(result, "forfeit")
    assert [f.round for f in forfeits] == [1, 2]
    assert not events_of(result, "reward")  # the round stopped at once
    score = result.scores["black"]
    assert score.forfeit and score.best is None and score.rounds == (None, None)
    finished = events_of(result, "round_finished")
    assert finished[0].forfeited_by == "black" and finished[0].scores == {"black": None}


async def test_instruction_budget_stops_runaway_loops(judge: NgramJudge) -> None:
    source = "elicit(t, 3)\nbeacon(flag_1)\nassign(s=t)\nreplay(flag_1, 100000)\n"
    result = await run_game(source, {"black": ListPlayer(["m"])}, judge, instruction_budget=500)
    assert result.error is not None and "500 instructions" in result.error
    (error,) = events_of(result, "runtime_error")
    assert error.line == 3  # the 501st instruction: 1 elicit + 166 loops of 3 + beacon, assign
    assert result.events[-1].type == "runtime_error"


# ---------------------------------------------------------------- elicit and moves


async def test_moves_are_cut_to_max_len_judge_tokens(judge: NgramJudge) -> None:
    source = "elicit(t, x, 2)\nreward(xent(t))\n"
    player = ListPlayer(["one two three four", "short"])
    result = await run_game(source, {"black": player}, judge)
    (response,) = events_of(result, "elicit_response")
    assert response.values == {"t": "one two", "x": "short"}
    assert response.cut and response.cut_registers == ["t"]
    assert player.requests[0].registers == ("t", "x")  # one request for both registers


async def test_player_told_its_move_was_cut(judge: NgramJudge) -> None:
    source = "elicit(t, 1)\nreplay(flag_1, 1)\n"
    player = ListPlayer(["one two"])
    await run_game(source, {"black": player}, judge)
    (move,) = [h for h in player.requests[1].history if h.kind == "move"]
    assert move.cut == ("t",) and move.moves == {"t": "one"}


async def test_crashing_player_is_retried_then_forfeits(judge: NgramJudge) -> None:
    player = ListPlayer([RuntimeError("boom")])
    result = await run_game("elicit(t, 3)\nreward(xent(t))\n", {"black": player}, judge)
    assert len(player.requests) == 3  # 1 + 2 retries
    (forfeit,) = events_of(result, "forfeit")
    assert "boom" in forfeit.reason
    assert result.scores["black"].forfeit
    assert result.events[-1].type == "round_finished"


async def test_non_string_move_is_retried_then_forfeits(judge: NgramJudge) -> None:
    player = ListPlayer([42])
    result = await run_game("elicit(t, 3)\n", {"black": player}, judge)
    assert len(player.requests) == 3
    assert "int" in events_of(result, "forfeit")[0].reason


async def test_flaky_player_recovers_within_retries(judge: NgramJudge) -> None:
    player = ListPlayer([RuntimeError("once"), "fine"])
    result = await run_game("elicit(t, 3)\n", {"black": player}, judge)
    assert not events_of(result, "forfeit")
    assert events_of(result, "elicit_response")[0].values == {"t": "fine"}


async def test_slow_player_times_out(judge: NgramJudge) -> None:
    from arena.runtime.seat import MovePolicy
    from tests.runtime.helpers import SlowPlayer

    result = await run_game(
        "elicit(t, 3)\n", {"black": SlowPlayer(5.0)}, judge, policy=MovePolicy(timeout_s=0.05, retries=1)
    )
    assert "timed out" in events_of(result, "forfeit")[0].reason


# ---------------------------------------------------------------- rewards


async def test_black_and_white_are_zero_sum(judge: NgramJudge) -> None:
    source = 'assign(s="a b c")\nelicit(white, t, 3)\nelicit(black, x, 3)\nreward(black, xent(s | t))\n'
    result = await run_game(source, {"black": ListPlayer(["m"]), "white": ListPlayer(["w"])}, judge)
    black, white = events_of(result, "reward")
    assert (black.player, white.player, white.mirrored) == ("black", "white", True)
    assert white.total == pytest.approx(-black.total)
    assert result.scores["white"].best == pytest.approx(-result.scores["black"].best)


async def test_reward_default_player_is_black(judge: NgramJudge) -> None:
    result = await run_game('assign(s="a")\nelicit(t, 3)\nreward(xent(s))\n', {"black": ListPlayer(["m"])}, judge)
    assert events_of(result, "reward")[0].player == "black"


async def test_env_is_never_rewarded(judge: NgramJudge) -> None:
    source = 'assign(s="a b")\nelicit(env, t, 3)\nelicit(alice, x, 3)\nreward(env, xent(s))\nreward(alice, xent(s))\n'
    result = await run_game(source, {"env": ListPlayer(["e"]), "alice": ListPlayer(["a"])}, judge)
    assert [r.player for r in events_of(result, "reward")] == ["alice"]
    assert result.scores["env"].best == 0.0


async def test_match_score_is_best_round_and_keeps_all_rounds(judge: NgramJudge) -> None:
    source = "elicit(t, 5)\nreward(xent(t))\n"
    player = ListPlayer(["the", "zzqx qqzv", "the cat"])
    result = await run_game(source, {"black": player}, judge, rounds=3)
    rounds = result.scores["black"].rounds
    assert len(rounds) == 3 and result.scores["black"].best == max(rounds)  # type: ignore[type-var]


# ---------------------------------------------------------------- maps and seeds


async def test_story_is_resolved_per_map_and_seeded(judge: NgramJudge) -> None:
    source = "assign(s=story(), t=story(12))\nelicit(x, 3)\n"
    first = await run_game(source, {"black": ListPlayer(["m"])}, judge, seed=7)
    again = await run_game(source, {"black": ListPlayer(["m"])}, judge, seed=7)
    other = await run_game(source, {"black": ListPlayer(["m"])}, judge, seed=8)
    values = events_of(first, "assign")[0].values
    assert values == events_of(again, "assign")[0].values
    assert values != events_of(other, "assign")[0].values
    assert values["s"] != values["t"]  # each call site has its own text


async def test_story_texts_come_from_the_map(judge: NgramJudge) -> None:
    game_map = GameMap(seed=1, stories={"1:9": "a fixed map text"})
    result = await run_game("assign(s=story())\nelicit(x, 3)\n", {"black": ListPlayer(["m"])}, judge, game_map=game_map)
    assert assigned(result, "s") == ["a fixed map text"]


async def test_sample_and_shuffle_are_seeded_by_the_play_seed(judge: NgramJudge) -> None:
    source = 'assign(l=["a","b","c","d","e","f"])\nassign(s=sample(l), l1=shuffle(l))\nelicit(x, 3)\n'
    runs = [await run_game(source, {"black": ListPlayer(["m"])}, judge, seed=s) for s in (1, 1, 2)]
    values = [events_of(r, "assign")[1].values for r in runs]
    assert values[0] == values[1]
    assert sorted(values[0]["l1"]) == ["a", "b", "c", "d", "e", "f"]
    assert values[0] != values[2]


async def test_word_helpers_in_games(judge: NgramJudge) -> None:
    source = (
        'assign(s="The Cat, the dog!", t="a cat and a bird")\n'
        "assign(x=remove_common_words(t, s), l=common_word_set(s, t), l1=word_set(s))\n"
        "elicit(y, 3)\n"
        'ensure(num_words(s) == 4, only_uses_words("cat dog the", s), only_uses_chars("abc ", "cab"))\n'
        'ensure(first_n_tokens(t, 2) == "a cat", last_n_tokens(t, 1) == " bird")\n'
    )
    result = await run_game(source, {"black": ListPlayer(["m"])}, judge)
    values = events_of(result, "assign")[1].values
    assert values == {"x": "a and a bird", "l": ["cat"], "l1": ["cat", "dog", "the"]}
    assert not events_of(result, "failed_ensure")


async def test_player_usage_is_recorded_per_move(judge: NgramJudge) -> None:
    from dataclasses import dataclass

    @dataclass
    class Usage:
        calls: int = 0
        prompt_tokens: int = 0

        def as_dict(self) -> dict[str, int]:
            return {"calls": self.calls, "prompt_tokens": self.prompt_tokens}

    class CountingPlayer(ListPlayer):
        def __init__(self) -> None:
            super().__init__(["a", "b"])
            self.usage = Usage()

        async def move(self, request):  # type: ignore[no-untyped-def]
            self.usage.calls += 1
            self.usage.prompt_tokens += 10
            return await super().move(request)

    result = await run_game("elicit(t, 3)\nreplay(flag_1, 1)\n", {"black": CountingPlayer()}, judge)
    usages = [e.usage for e in events_of(result, "elicit_response")]
    assert usages == [{"calls": 1.0, "prompt_tokens": 10.0}] * 2
