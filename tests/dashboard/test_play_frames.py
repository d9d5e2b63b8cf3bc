"""The play page's frames carry the seat's information set only: no seed in a request, a
reward over hidden text as a total without tokens, nothing for another seat's events."""

from __future__ import annotations

import asyncio

from arena.dashboard.play.frames import request_frame, seat_frame
from arena.events import Reward, RewardTerm, SeatRewardTerm
from arena.human_desk import PendingMove
from arena.protocols.player import GameView, MoveRequest


def test_a_request_frame_has_no_seed_and_the_header_as_rules() -> None:
    request = MoveRequest(
        game=GameView(name="g", code="# rules: be brief\nelicit(t, 5)", dialect="xgl",
                      header="# rules: be brief"),
        role="bob", round=1, rounds=1, line=2, registers=("t",), max_len=5,
        visible={}, reveals=(), history=(), seed=123456789,
    )
    loop = asyncio.new_event_loop()
    try:
        frame = request_frame(PendingMove("id1", "ada", request, 0, loop.create_future()))
    finally:
        loop.close()
    assert "seed" not in frame["request"] and "123456789" not in str(frame)
    assert frame["request"]["rules"] == ["rules: be brief"]


def test_a_reward_over_hidden_text_reaches_the_seat_as_a_total() -> None:
    secret = RewardTerm(source="xed(s|s0)", kind="xed", coefficient=1, target="the secret story",
                        context="guess", tokens=["the", " secret", " story"],
                        bits=[1.0, 2.0, 3.0], total=6.0)
    seen = SeatRewardTerm(source="xed(s|s0)", coefficient=1, tokens=[], bits=[], total=6.0,
                          hidden=True)
    event = Reward(round=1, line=6, player="bob", total=6.0, terms=[secret], seat_view=[seen])
    frame = seat_frame(event, "bob", 1, None)
    assert frame is not None and frame["total"] == 6.0
    assert "secret" not in str(frame["terms"]) and frame["terms"][0]["hidden"]
    assert seat_frame(event, "alice", 1, None) is None  # another seat's reward: nothing
