"""The play page's frames carry the seat's information set only: no seed in a request, the
rules a person reads (never the developer notes), a reward over hidden text as a total
without tokens, nothing for another seat's events."""

from __future__ import annotations

import asyncio

from arena.events import Reward, RewardTerm, SeatRewardTerm
from arena.protocols.player import GameView, MoveRequest
from arena.tournaments.play.desk import MatchNote, PendingMove
from arena.tournaments.play.frames import queue_frame, request_frame, seat_frame

HEADER = ("# Guessing\n# about: Guess the hidden word.\n# measures: guessing a word\n"
          "# players: bob (guesses)\n# note: the listing's ensure is rewritten (developers)")


def pending(request: MoveRequest, loop: asyncio.AbstractEventLoop,
            note: MatchNote | None = None) -> PendingMove:
    return PendingMove("id1", "ada", request, 0, loop.create_future(), note=note or MatchNote())


def test_a_request_frame_has_no_seed_and_the_rules_a_person_reads() -> None:
    request = MoveRequest(
        game=GameView(name="g", code=HEADER + "\nelicit(bob, t, 5)\nreward(bob, xed(t | t))",
                      dialect="xgl", header=HEADER),
        role="bob", round=1, rounds=3, line=2, registers=("t",), max_len=5,
        visible={}, reveals=(), history=(), seed=123456789,
    )
    loop = asyncio.new_event_loop()
    try:
        frame = request_frame(pending(request, loop))
    finally:
        loop.close()
    assert "seed" not in frame["request"] and "123456789" not in str(frame)
    rules = frame["request"]["rules"]
    assert (rules["title"], rules["about"], rules["measures"]) == (
        "Guessing", "Guess the hidden word.", "guessing a word")
    assert rules["roles"] == {"bob": "guesses"} and rules["rounds"] == 3
    assert any("best round" in line for line in rules["score"])
    assert any(line.startswith("xed(a | b)") for line in rules["score"])
    assert "developers" not in str(frame["request"]["rules"])  # notes never reach the page


def test_a_queue_item_says_match_opponents_round_and_time_left() -> None:
    request = MoveRequest(
        game=GameView(name="g", code="elicit(t, 5)", dialect="xgl"), role="bob", round=2,
        rounds=3, line=2, registers=("t",), max_len=5, visible={}, reveals=(), history=(),
    )
    loop = asyncio.new_event_loop()
    try:
        move = pending(request, loop, MatchNote(4, "play", {"alice": "random"}, 60.0, True))
        (item,) = queue_frame([move])["moves"]
    finally:
        loop.close()
    assert item["match"] == 4 and item["opponents"] == {"alice": "random"}
    assert (item["round"], item["rounds"], item["map"]) == (2, 3, "new")
    assert 58 <= item["seconds_left"] <= 60


def test_a_reward_over_hidden_text_reaches_the_seat_as_a_total() -> None:
    secret = RewardTerm(source="xed(s|s0)", kind="xed", coefficient=1, target="the secret story",
                        context="guess", tokens=["the", " secret", " story"],
                        bits=[1.0, 2.0, 3.0], total=6.0)
    seen = SeatRewardTerm(source="xed(s|s0)", coefficient=1, tokens=[], bits=[], total=6.0,
                          hidden=True)
    event = Reward(round=1, line=6, player="bob", total=6.0, terms=[secret], seat_view=[seen])
    frame = seat_frame(event, "bob", "m1", None)
    assert frame is not None and frame["total"] == 6.0 and frame["card"] == "m1"
    assert "secret" not in str(frame["terms"]) and frame["terms"][0]["hidden"]
    assert seat_frame(event, "alice", "m1", None) is None  # another seat's reward: nothing
