"""Reward feedback keeps the information set (XGL.md section 4, arena.runtime.feedback)."""

from __future__ import annotations

from arena.judges.ngram import NgramJudge
from arena.lang.flow import Flow, Origin, union
from arena.protocols.player import HistoryItem, MoveRequest
from arena.runtime.maps import GameMap
from tests.runtime.helpers import ListPlayer, run_game


def rewards(request: MoveRequest) -> list[HistoryItem]:
    return [h for h in request.history if h.kind == "reward"]


def test_a_label_is_known_when_given_or_computed_from_known_labels() -> None:
    flow = Flow.public(["t"])
    story = Origin(frozenset({"story 1:9"}), exact=True)
    move = flow.atomic("move alice t@2")
    flow.store("s1", union([story, move]), line=3)  # s1 = s + t: a new label for it
    (s1,) = flow.register("s1").sources
    assert flow.knows("a", set(), frozenset()) and not flow.knows("b", set(), move.sources)
    assert flow.knows("c", move.sources, move.sources)
    assert not flow.knows("d", move.sources, frozenset({s1}))  # the story is still hidden
    assert flow.knows("e", move.sources | story.sources, frozenset({s1}))  # computable
    assert flow.knows("f", {s1}, frozenset({s1}))  # s1 revealed whole
    assert not flow.knows("f", {s1}, story.sources)  # ...which does not give the story away
    # A smaller set of grants for the same seat starts over rather than trusting the past.
    assert not flow.knows("e", move.sources, frozenset({s1}))


def test_what_a_seat_knows_grows_with_its_grants_and_with_new_values() -> None:
    flow = Flow.public(["s"])
    story = Origin(frozenset({"story 1:9"}), exact=True)
    given: set[str] = set()
    flow.store("s", story, line=1)
    for line in range(2, 5_002):  # s = s + t in a loop, alice's move t each time
        move = flow.atomic(f"move alice t@{line}")
        given |= move.sources
        flow.store("s", union([flow.register("s"), move]), line)
        assert not flow.knows("alice", given, flow.register("s").sources)
    given |= story.sources  # the story is revealed: the whole chain becomes computable
    assert flow.knows("alice", given, flow.register("s").sources)
    flow.store("s1", union([flow.register("s"), flow.atomic("sample@9:1")]), line=9)
    assert not flow.knows("alice", given, flow.register("s1").sources)  # a draw: hidden


async def test_a_hidden_condition_hides_the_breakdown_of_a_seen_target(judge: NgramJudge) -> None:
    # alice has seen the story s but not bob's reconstruction s0, which conditions the term.
    source = (
        "assign(s=story())\nreveal(alice, s)\nelicit(alice, t, 5)\nreveal(bob, t)\n"
        "elicit(bob, s0, 5)\nreward(alice, xed(s | s0))\nreward(alice, xed(s | t))\n"
        "elicit(alice, x, 5)\n"
    )
    alice, bob = ListPlayer(["a clue", "done"]), ListPlayer(["BOB-HIDDEN-GUESS"])
    await run_game(source, {"alice": alice, "bob": bob}, NgramJudge(),
                   game_map=GameMap(0, {"1:9": "the fox sleeps"}))
    hidden, seen = rewards(alice.requests[-1])
    assert hidden.terms[0].hidden and not hidden.terms[0].bits
    assert not seen.terms[0].hidden and "".join(seen.terms[0].tokens).strip() == "the fox sleeps"
    assert len(seen.terms[0].bits) == len(seen.terms[0].tokens)


async def test_hidden_terms_of_one_reward_come_as_one_rounded_total(judge: NgramJudge) -> None:
    source = (
        "assign(s=story())\nelicit(bob, t, 5)\n"
        'reward(bob, xed(s | t) + xed(t | s) - xed(s | t) + xent(t) + xent("the" + t))\n'
        "elicit(bob, x, 5)\n"
    )
    bob = ListPlayer(["river"])
    result = await run_game(source, {"bob": bob}, judge,
                            game_map=GameMap(0, {"1:9": "the fox sleeps"}))
    (reward,) = rewards(bob.requests[-1])
    seen = [t for t in reward.terms if not t.hidden]
    (hidden,) = [t for t in reward.terms if t.hidden]
    # xent(t) and xent("the" + t) score only the bob's move and a literal of the public code
    assert [t.source for t in seen] == ["xent(t)", 'xent("the" + t)']
    assert hidden.source == "xed(s | t) + xed(t | s) - xed(s | t)"
    assert hidden.total == round(hidden.total, 2) and not hidden.bits and not hidden.tokens
    exact = result.scores["bob"].rounds[0]
    assert exact is not None and abs(reward.reward - exact) <= 0.005 + 1e-9


async def test_omniscient_players_get_every_breakdown(judge: NgramJudge) -> None:
    source = 'assign(s=story())\nelicit(black, t, 5)\nreward(black, xed(s | t))\nelicit(black, x, 5)\n'
    black = ListPlayer(["river"])
    await run_game(source, {"black": black}, judge, game_map=GameMap(0, {"1:9": "the fox"}))
    (reward,) = rewards(black.requests[-1])
    assert not reward.terms[0].hidden and reward.terms[0].bits and reward.terms[0].tokens


async def test_remembered_round_scores_are_what_the_seat_was_shown(judge: NgramJudge) -> None:
    source = "assign(s=story())\nelicit(bob, t, 5)\nreward(bob, xed(s | t))\n"
    bob = ListPlayer(["river", "stone"])
    result = await run_game(source, {"bob": bob}, judge, rounds=2,
                            game_map=GameMap(0, {"1:9": "the fox sleeps"}))
    (memory,) = bob.requests[1].previous_rounds
    assert memory.score == round(memory.score or 0.0, 2) == memory.history[-1].reward
    assert memory.score is not None and result.scores["bob"].rounds[0] is not None
    assert abs(memory.score - result.scores["bob"].rounds[0]) <= 0.005 + 1e-9
