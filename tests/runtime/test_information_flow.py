"""Which reward terms a seat gets in full is decided by where values come from
(`arena.lang.flow`), not by their text: each case plays a small game and reads what alice
was sent."""

from __future__ import annotations

from arena.judges.ngram import NgramJudge
from arena.protocols.player import RewardTermView
from arena.runtime.maps import GameMap
from tests.runtime.helpers import ListPlayer, run_game

STORY = "the old miller walked to the river at dawn"


async def alice_terms(
    body: str, moves: list[str] | None = None, bob: list[str] | None = None
) -> dict[str, RewardTermView]:
    """alice's reward terms by source after `body` (line 1 sets s from a map text); a
    hidden one is listed under each of its sources."""
    source = f"assign(s=story())\n{body}\nelicit(alice, x, 1)\n"
    players = {"alice": ListPlayer(moves or ["river"])}
    if bob is not None:
        players["bob"] = ListPlayer(bob)
    result = await run_game(source, players, NgramJudge(), game_map=GameMap(0, {"1:9": STORY}))
    assert result.error is None, result.error
    last = players["alice"].requests[-1]
    found: dict[str, RewardTermView] = {}
    for item in last.history:
        for term in item.terms:
            for part in term.source.split(" + ") if term.hidden else [term.source]:
                found[part] = term
    return found


def seen(term: RewardTermView) -> bool:
    full = not term.hidden and len(term.bits) == len(term.tokens) > 0
    assert full or (term.hidden and not term.bits and not term.tokens)
    return full


async def test_own_move_against_a_public_register_comes_in_full() -> None:
    terms = await alice_terms(
        'assign(p="a quiet morning")\nelicit(alice, t, 5)\nreward(alice, xed(t | p))'
    )
    assert seen(terms["xed(t | p)"])


async def test_a_move_equal_to_the_story_does_not_make_the_story_seen() -> None:
    terms = await alice_terms(
        "elicit(alice, t, 20)\nreward(alice, xent(t))\nreward(alice, xent(s))", moves=[STORY]
    )
    assert seen(terms["xent(t)"])  # her own move, same text as s
    assert not seen(terms["xent(s)"])


async def test_a_revealed_cut_of_the_story_does_not_reveal_the_story() -> None:
    terms = await alice_terms('reveal(alice, s // " river")\nreward(alice, xent(s))')
    assert not seen(terms["xent(s)"])


async def test_values_computed_from_revealed_values_and_own_moves_are_seen() -> None:
    terms = await alice_terms(
        "reveal(alice, s)\nelicit(alice, t, 5)\n"
        "reward(alice, xed(s + t | t))\nreward(alice, xent(first_n_tokens(s, 2)))"
    )
    assert seen(terms["xed(s + t | t)"]) and seen(terms["xent(first_n_tokens(s, 2))"])


async def test_a_revealed_register_computed_from_the_story_is_seen_the_story_is_not() -> None:
    terms = await alice_terms(
        "elicit(alice, t, 5)\nassign(t1=remove_common_words(t, s))\nreveal(alice, t1)\n"
        "reward(alice, xent(t1))\nreward(alice, xed(s | t1))",
        moves=["the quiet river"],
    )
    assert seen(terms["xent(t1)"])
    assert not seen(terms["xed(s | t1)"])


async def test_anything_computed_from_the_story_stays_hidden() -> None:
    terms = await alice_terms(
        "elicit(alice, t, 5)\n"
        'reward(alice, xent(s // " "))\nreward(alice, xent(first_n_tokens(s, 1)))\n'
        "reward(alice, xed(t | s))\nreward(alice, xent(t, o=s))"
    )
    for source in ('xent(s // " ")', "xent(first_n_tokens(s, 1))", "xed(t | s)", "xent(t, o=s)"):
        assert not seen(terms[source]), source


async def test_a_draw_from_a_public_list_is_hidden_until_revealed() -> None:
    # Both items are literals of the public code; which one was drawn is not.
    body = (
        'assign(l=["red fox", "blue jay"])\nassign(s1=sample(l))\nreward(alice, xent(s1))\n'
        "reveal(alice, s1)\nreward(alice, xent(s1 + l[0]))"
    )
    terms = await alice_terms(body)
    assert not seen(terms["xent(s1)"])
    assert seen(terms["xent(s1 + l[0])"])


async def test_another_seats_move_is_hidden_until_revealed() -> None:
    body = (
        "elicit(bob, t, 5)\nreward(alice, xent(t))\nreveal(alice, t)\n"
        "reward(alice, xent(t + t))\nelicit(bob, t, 5)\nreward(alice, nex(t))"
    )
    terms = await alice_terms(body, bob=["a stone", "a new stone"])
    assert not seen(terms["xent(t)"])
    assert seen(terms["xent(t + t)"])
    assert not seen(terms["nex(t)"])  # bob's second move was never revealed


async def test_a_story_published_in_a_public_register_is_seen() -> None:
    body = 'assign(p=s // " river")\nreward(alice, xent(p))\nreward(alice, xent(s))'
    terms = await alice_terms(body)
    assert seen(terms["xent(p)"]) and not seen(terms["xent(s)"])


async def test_a_reveal_shows_the_value_of_that_moment_only() -> None:
    body = (
        "elicit(bob, t1, 5)\nreveal(alice, t1)\nreward(alice, xent(t1))\n"
        'assign(t1=t1 + s // " river")\nreward(alice, nex(t1))'
    )
    terms = await alice_terms(body, bob=["a stone"])
    assert seen(terms["xent(t1)"])
    assert not seen(terms["nex(t1)"])  # t1 now holds a cut of s too, never revealed
