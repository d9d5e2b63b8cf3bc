"""Information sets (XGL.md section 4): what each player receives, and nothing more."""

from __future__ import annotations

from dataclasses import asdict

from arena.judges.ngram import NgramJudge
from arena.runtime.maps import GameMap
from tests.runtime.helpers import ListPlayer, events_of, run_game


def everything_received(player: ListPlayer) -> str:
    """Every byte the player was given, flattened (game code included)."""
    return "\n".join(repr(asdict(request)) for request in player.requests)  # type: ignore[arg-type]


async def test_non_omniscient_player_sees_public_registers_and_reveals_only(judge: NgramJudge) -> None:
    # Secrets come from map texts: the game code itself is public.
    source = (
        'assign(a="public fact", c=story(), s=story(), p="public note")\n'
        "reveal(alice, s)\n"
        "assign(s=story())\n"
        "elicit(alice, t, 5)\n"
    )
    stories = {"1:26": "constant secret", "1:37": "private story", "3:9": "changed later"}
    alice = ListPlayer(["m"])
    result = await run_game(source, {"alice": alice}, judge, game_map=GameMap(0, stories))
    (request,) = alice.requests
    assert dict(request.visible) == {"a": "public fact", "p": "public note"}
    assert [(r.label, r.value) for r in request.reveals] == [("s", "private story")]  # snapshot
    assert not request.omniscient
    assert "constant secret" not in everything_received(alice)
    assert "changed later" not in everything_received(alice)
    (elicit_request,) = events_of(result, "elicit_request")
    assert elicit_request.registers == {"a": "public fact", "p": "public note"}


async def test_omniscient_players_see_every_register(judge: NgramJudge) -> None:
    source = 'assign(c="constant secret", s="private story")\nelicit(black, t, 5)\n'
    black = ListPlayer(["m"])
    await run_game(source, {"black": black}, judge)
    visible = black.requests[0].visible
    assert visible["c"] == "constant secret" and visible["s"] == "private story"
    assert black.requests[0].omniscient


async def test_other_players_moves_stay_hidden(judge: NgramJudge) -> None:
    source = "elicit(alice, t, 5)\nelicit(bob, x, 5)\nelicit(alice, y, 5)\n"
    alice, bob = ListPlayer(["ALICE-SECRET-MOVE"]), ListPlayer(["BOB-SECRET-MOVE"])
    await run_game(source, {"alice": alice, "bob": bob}, judge)
    assert "ALICE-SECRET-MOVE" not in everything_received(bob)
    assert "BOB-SECRET-MOVE" not in everything_received(alice)
    # but a player does see its own earlier moves
    assert alice.requests[1].history[0].moves == {"t": "ALICE-SECRET-MOVE"}


async def test_reward_breakdown_withholds_hidden_token_texts(judge: NgramJudge) -> None:
    source = "assign(s=story())\nelicit(bob, t, 5)\nreward(bob, xed(s | t))\nelicit(bob, x, 5)\n"
    bob = ListPlayer(["guess"])
    stories = {"1:9": "zebra quartz hidden words"}
    await run_game(source, {"bob": bob}, judge, game_map=GameMap(0, stories))
    (reward,) = [h for h in bob.requests[1].history if h.kind == "reward"]
    (term,) = reward.terms  # total only: per-token values would spell the hidden story
    assert term.hidden and not term.bits and not term.tokens
    assert term.total == round(reward.reward, 2) and term.total != 0
    assert "zebra" not in everything_received(bob)


async def test_reward_breakdown_shows_tokens_of_known_texts(judge: NgramJudge) -> None:
    source = 'assign(s="zebra quartz")\nreveal(bob, s)\nelicit(bob, t, 5)\nreward(bob, xed(s | t))\nelicit(bob, x, 5)\n'
    bob = ListPlayer(["guess"])
    await run_game(source, {"bob": bob}, judge)
    (reward,) = [h for h in bob.requests[1].history if h.kind == "reward"]
    assert "".join(reward.terms[0].tokens).strip() == "zebra quartz"


async def test_main_character_remembers_earlier_rounds_npcs_do_not(judge: NgramJudge) -> None:
    source = 'assign(s="a story")\nelicit(alice, t, 5)\nelicit(bob, x, 5)\nreward(alice, xed(s | t))\n'
    alice, bob = ListPlayer(["one", "two", "three"]), ListPlayer(["b"])
    await run_game(source, {"alice": alice, "bob": bob}, judge, rounds=3, main=["alice"])
    assert [len(r.previous_rounds) for r in alice.requests] == [0, 1, 2]
    assert [len(r.previous_rounds) for r in bob.requests] == [0, 0, 0]
    memory = alice.requests[2].previous_rounds[1]
    assert memory.round == 2 and memory.history[0].moves == {"t": "two"}
    assert memory.score is not None


async def test_failed_ensure_is_told_to_the_player(judge: NgramJudge) -> None:
    source = 'elicit(alice, t, 5)\nensure(t != "bad")\n'
    alice = ListPlayer(["bad", "good"])
    await run_game(source, {"alice": alice}, judge)
    second = alice.requests[1]
    assert second.failed_condition == 't != "bad"'
    assert [h.kind for h in second.history] == ["move", "failed_ensure"]
