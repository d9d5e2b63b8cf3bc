"""A move that is not text (a lone surrogate) is a forfeit with a reason, not a match that
cannot be stored (issue 24 item 5)."""

from __future__ import annotations

import json

from arena.judges.ngram import NgramJudge
from tests.runtime.helpers import ListPlayer, events_of, run_game

GAME = 'assign(s="the river at dawn")\nelicit(t, 5)\nreward(xed(s | t))\n'


async def test_a_lone_surrogate_in_a_move_forfeits_with_a_reason() -> None:
    player = ListPlayer(["ok \ud800 then"])
    result = await run_game(GAME, {"black": player}, NgramJudge())
    (forfeit,) = events_of(result, "forfeit")
    assert "move for 't' is not valid text: character 3 is a lone surrogate (U+D800)" in (
        forfeit.reason
    )
    assert result.scores["black"].forfeit
    assert not events_of(result, "elicit_response")
    for event in result.events:  # every event is storable text
        json.dumps(event.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")


async def test_a_player_error_holding_a_surrogate_is_stored_escaped() -> None:
    player = ListPlayer([ValueError("bad \udcff reply")])
    result = await run_game(GAME, {"black": player}, NgramJudge())
    (forfeit,) = events_of(result, "forfeit")
    assert "bad \\udcff reply" in forfeit.reason
    forfeit.reason.encode("utf-8")
