"""No entrant holds two seats on one map whose roles see different things of it (issue 24,
item 3): the views of a game's roles, the plan-time check, and every mode's plans."""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import ConfigError
from arena.lang.loader import load_game
from arena.plugins.registry import Registry
from arena.tournaments.demo import demo_config
from arena.tournaments.planning.config import parse_tournament
from arena.tournaments.planning.config_errors import TournamentConfigError
from arena.tournaments.planning.map_views import SHARED_OMNISCIENT, map_views
from arena.tournaments.planning.pairings import (
    EVAL,
    HEAD_TO_HEAD,
    GameSlot,
    MatchPlan,
    check_map_information,
    plan_matches,
)
from arena.tournaments.running.prepare import prepare_tournament

GAMES = Path(__file__).resolve().parents[2] / "arena" / "games"
SPECS = {name: "random" for name in ("a", "b", "c", "d", "e", "npc", "npc2")}
DUEL = GameSlot(
    "duel", "1", "h", "xgl", ("alice", "bob"), maps=2, npcs={"alice": "npc", "bob": "npc"}
)


def views_of(source: str, roles: tuple[str, ...]) -> dict[str, str]:
    return map_views(load_game(source), roles)


def test_views_of_the_bundled_games() -> None:
    describe = (GAMES / "describe_to_partner.xgl").read_text(encoding="utf-8")
    assert views_of(describe, ("alice", "bob")) == {"alice": "alice", "bob": "bob"}
    derailing = (GAMES / "derailing.xgl").read_text(encoding="utf-8")
    assert views_of(derailing, ("black", "white")) == {
        "black": SHARED_OMNISCIENT, "white": SHARED_OMNISCIENT
    }


@pytest.mark.parametrize(
    "source",
    [
        # a story drawn after black moved: white sees it, black never does
        "assign(s=story())\nelicit(black, t, 5)\nassign(s1=story())\nelicit(white, x, 5)\n"
        "reward(black, xed(s1 | t))\n",
        # a seeded draw after the first move
        'assign(l=["a", "b"])\nelicit(black, t, 5)\nassign(x1=sample(l))\nelicit(white, x, 5)\n'
        "reward(black, xed(x1 | t))\n",
        # a replay before the first move
        "beacon(flag_1)\nassign(s=story())\nreplay(flag_1, 2)\nelicit(black, t, 5)\n"
        "elicit(white, x, 5)\nreward(black, xed(s | t))\n",
    ],
)
def test_omniscient_roles_see_apart_when_the_map_is_not_set_before_the_first_move(
    source: str,
) -> None:
    assert views_of(source, ("black", "white")) == {"black": "black", "white": "white"}


def test_the_old_seat_swap_on_one_map_is_refused_with_a_sentence() -> None:
    """The plans the arena made before the fix: a and b swap alice and bob on map 0."""
    plans = plan_matches("t", HEAD_TO_HEAD, [DUEL], ["a", "b"], SPECS)
    assert len({p.map_index for p in plans}) == 4  # 2 slots x (a's map, b's map)
    old = [dataclasses.replace(p, map_index=p.map_index // 2) for p in plans]
    with pytest.raises(ConfigError) as error:
        check_map_information(old, [DUEL], ["a", "b"])
    assert str(error.value).startswith("Game 'duel': participant '")
    assert re.search(r"would play (alice and bob|bob and alice) on map 0, roles that see", str(error.value))
    check_map_information(plans, [DUEL], ["a", "b"])  # the plans made now pass


@pytest.mark.parametrize("mode", [EVAL, HEAD_TO_HEAD])
def test_an_entrant_that_is_also_an_npc_is_refused(mode: str) -> None:
    game = GameSlot("duel", "1", "h", "xgl", ("alice", "bob"), npcs={"alice": "npc", "bob": "a"})
    if mode == HEAD_TO_HEAD:  # no NPCs in head-to-head: nothing to refuse
        assert plan_matches("t", mode, [game], ["a", "b"], SPECS)
        return
    with pytest.raises(ConfigError) as error:
        plan_matches("t", mode, [game], ["a", "b"], SPECS)
    assert "participant 'a' would play alice and bob in one match" in str(error.value)
    assert "npc_only" in str(error.value)
    # an NPC-only participant may play several seats of a map
    three = GameSlot(
        "trio", "1", "h", "xgl", ("alice", "bob", "carol"),
        npcs={"alice": "npc", "bob": "npc", "carol": "npc"},
    )
    assert plan_matches("t", mode, [three], ["a", "b"], SPECS)


ROLES = ("black", "white", "alice", "bob", "carol")


@st.composite
def games(draw: st.DrawFn) -> GameSlot:
    roles = tuple(draw(st.lists(st.sampled_from(ROLES), min_size=1, max_size=3, unique=True)))
    labels = draw(st.lists(st.sampled_from("xyz"), min_size=len(roles), max_size=len(roles)))
    budget = draw(st.one_of(st.none(), st.integers(min_value=5, max_value=60)))
    return GameSlot(
        f"g{len(roles)}{''.join(labels)}", "1", "h", "xgl", roles,
        maps=draw(st.integers(min_value=1, max_value=3)),
        npcs={r: draw(st.sampled_from(("npc", "npc2"))) for r in roles},
        views=dict(zip(roles, labels, strict=True)), max_matches=budget,
    )


def _held(plans: list[MatchPlan], entrants: list[str]) -> Counter[tuple[str, int, str, str]]:
    return Counter(
        (p.game, p.map_index, s.participant, s.role)
        for p in plans for s in p.seats if s.participant in entrants
    )


@settings(max_examples=80, deadline=None)
@given(
    game=games(),
    n=st.integers(min_value=3, max_value=5),
    mode=st.sampled_from([EVAL, HEAD_TO_HEAD]),
    seed=st.integers(min_value=0, max_value=2**16),
)
def test_every_mode_plans_each_entrant_one_view_per_map_with_the_same_matches(
    game: GameSlot, n: int, mode: str, seed: int
) -> None:
    entrants = list("abcde"[:n])
    k = len(game.roles)
    per_map = None if game.max_matches is None else game.max_matches // game.maps
    if mode == HEAD_TO_HEAD and per_map is not None and per_map < min(n, math.perm(n, k)):
        return  # a budget below one rotation is refused (test_pairings)
    plans = plan_matches("t", mode, [game], entrants, SPECS, seed=seed)  # checks itself
    check_map_information(plans, [game], entrants)
    views: dict[tuple[str, int, str], set[str]] = {}
    for g, index, who, role in _held(plans, entrants):
        views.setdefault((g, index, who), set()).add(game.view(role))
    assert all(len(v) == 1 for v in views.values())
    if mode == EVAL:  # the same matches as before: every role, entrant and map slot
        assert len(plans) == k * n * game.maps
    elif per_map is None or per_map >= math.perm(n, k):
        assert len(plans) == math.perm(n, k) * game.maps
    else:
        assert len(plans) <= per_map * game.maps
    # maps are numbered 0, 1, ... and each is played
    assert sorted({p.map_index for p in plans}) == list(range(len({p.map_index for p in plans})))
    if len(set(game.views.values())) == 1:  # one view: the map slots are the maps
        assert {p.map_index for p in plans} == set(range(game.maps))


def test_the_demo_plays_alice_and_bob_of_describe_to_partner_on_maps_apart() -> None:
    prepared = prepare_tournament(demo_config(), Registry.load(), "demo")
    plans = [p for p in prepared.plans if p.game == "describe_to_partner"]
    maps = {role: {p.map_index for p in plans if p.main_role == role} for role in ("alice", "bob")}
    assert len(maps["alice"]) == len(maps["bob"]) == demo_config().maps
    assert not maps["alice"] & maps["bob"]
    assert len(plans) == 2 * demo_config().maps * len(prepared.entrants)  # as many matches


def test_a_tournament_whose_entrant_is_the_npc_is_refused_before_anything_runs() -> None:
    document = {
        "name": "self-npc", "judge": "ngram", "npc": "random",
        "participants": [{"name": "random", "player": "random"}, {"name": "b", "player": "random"}],
        "games": [{"game": "describe_to_partner"}],
    }
    with pytest.raises(TournamentConfigError) as error:
        prepare_tournament(parse_tournament(document), Registry.load())
    message = str(error.value)
    assert "participant 'random' would play" in message and "in one match" in message
    assert "name an npc_only participant" in message
    assert "  - games: Game 'describe_to_partner'" in message  # no "games = None"
    # the same NPC is fine for a game with one role (no NPC seat)
    document["games"] = [{"game": "condense"}]
    assert prepare_tournament(parse_tournament(document), Registry.load()).plans
