"""What-if simulation used by search players."""

from __future__ import annotations

import math

from arena.judges.ngram import NgramJudge
from arena.lang.loader import load_game
from arena.runtime.simulate import simulate_move
from tests.runtime.helpers import ListPlayer, events_of, run_game

GAME = (
    'assign(s="the old miller walked to the river at dawn")\n'
    "elicit(t, 6)\n"
    'ensure(t != "forbidden")\n'
    "reward(xed(s | t))\n"
)


async def test_simulation_matches_the_real_reward(judge: NgramJudge) -> None:
    player = ListPlayer(["miller river dawn"])
    result = await run_game(GAME, {"black": player}, judge)
    (reward,) = events_of(result, "reward")
    program = load_game(GAME)
    estimate = await simulate_move(program, player.requests[0], {"t": "miller river dawn"}, judge)
    assert estimate.feasible
    assert math.isclose(estimate.reward, reward.total, rel_tol=1e-9)


async def test_simulation_flags_moves_that_fail_ensures(judge: NgramJudge) -> None:
    player = ListPlayer(["x"])
    await run_game(GAME, {"black": player}, judge)
    estimate = await simulate_move(load_game(GAME), player.requests[0], {"t": "forbidden"}, judge)
    assert not estimate.feasible and estimate.failed_condition == 't != "forbidden"'


async def test_simulation_only_uses_the_players_information(judge: NgramJudge) -> None:
    # alice cannot see s: from her viewpoint the story is empty, so xed(s | t) is 0.
    source = 'assign(s="a hidden story")\nelicit(alice, t, 5)\nreward(alice, xed(s | t))\n'
    player = ListPlayer(["story"])
    result = await run_game(source, {"alice": player}, judge)
    assert events_of(result, "reward")[0].total != 0
    estimate = await simulate_move(load_game(source), player.requests[0], {"t": "story"}, judge)
    assert estimate.reward == 0.0
