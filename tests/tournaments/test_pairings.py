"""Schedule builders: balance, determinism and idempotent keys."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import ConfigError
from arena.tournaments.planning.pairings import (
    EVAL,
    HEAD_TO_HEAD,
    GameSlot,
    MatchPlan,
    eval_pairings,
    head_to_head_pairings,
    plan_matches,
    seat_assignments,
)

SPECS = {name: f"random?seed={i}" for i, name in enumerate("abcdefghij")} | {"npc": "random"}
SOLO = GameSlot("solo", "1", "h1", "xgl", ("black",), rounds=2, maps=3)
# black and white see all of every map (arena.tournaments.planning.map_views): they may share maps
OPEN = GameSlot(
    "open", "1", "h4", "xgl", ("black", "white"), maps=2,
    views={"black": "omniscient", "white": "omniscient"},
)
DUEL = GameSlot("duel", "2", "h2", "xgl", ("alice", "bob"), maps=2, npcs={"alice": "npc", "bob": "npc"})
TRIO = GameSlot(
    "trio", "1", "h3", "xent", ("alice", "bob", "carol"), maps=2,
    npcs={"alice": "npc", "bob": "npc", "carol": "npc"},
)


def test_eval_is_a_full_round_robin_over_game_role_map_participant() -> None:
    entrants = ["a", "b", "c"]
    plans = eval_pairings("t", [SOLO, DUEL, TRIO], entrants, SPECS)
    assert len(plans) == 3 * (1 * 3 + 2 * 2 + 3 * 2)
    cells = Counter((p.game, p.main_role, p.map_index, p.seat(p.main_role).participant) for p in plans)  # type: ignore[arg-type]
    assert set(cells.values()) == {1}
    for game in (SOLO, DUEL, TRIO):
        maps_of_role = {}
        for role in game.roles:
            maps_of_role[role] = {i for (g, r, i, _) in cells if (g, r) == (game.name, role)}
            assert len(maps_of_role[role]) == game.maps  # one map per map slot
            for index in maps_of_role[role]:  # every entrant of a role on the same maps
                assert {who for (g, r, i, who) in cells if (g, r, i) == (game.name, role, index)} == set(entrants)
        # roles that see different things of a map never share one (issue 24)
        pools = list(maps_of_role.values())
        assert len(set().union(*pools)) == sum(len(p) for p in pools)
    assert sorted({p.map_index for p in plans if p.game == "solo"}) == [0, 1, 2]
    assert sorted({p.map_index for p in plans if p.game == "trio"}) == list(range(6))


def test_eval_seats_npcs_without_memory_in_every_other_role() -> None:
    for plan in eval_pairings("t", [TRIO], ["a", "b"], SPECS):
        assert plan.mode == EVAL
        main = [s for s in plan.seats if s.main]
        assert [s.role for s in main] == [plan.main_role]
        assert all(s.participant == "npc" and s.spec == "random" for s in plan.seats if not s.main)
        assert [s.role for s in plan.seats] == ["alice", "bob", "carol"]


def test_eval_without_an_npc_for_a_role_is_an_error() -> None:
    game = dataclasses.replace(DUEL, npcs={"alice": "npc"})
    with pytest.raises(ConfigError, match=r"no NPC for role.*bob"):
        eval_pairings("t", [game], ["a"], SPECS)


def test_every_entrant_plays_identical_maps() -> None:
    plans = eval_pairings("t", [SOLO, DUEL], ["a", "b", "c"], SPECS)
    by_map: dict[tuple[str, int], set[tuple[int, int]]] = {}
    for p in plans:
        by_map.setdefault((p.game, p.map_index), set()).add((p.map_seed, p.play_seed))
    assert all(len(seeds) == 1 for seeds in by_map.values())
    assert len({seeds.pop()[0] for seeds in by_map.values()}) == len(by_map)  # maps differ


def test_keys_are_unique_deterministic_and_track_what_determines_a_match() -> None:
    first = eval_pairings("t", [SOLO, DUEL], ["a", "b"], SPECS, seed=1, judge="ngram")
    again = eval_pairings("t", [SOLO, DUEL], ["a", "b"], SPECS, seed=1, judge="ngram")
    keys = [p.key for p in first]
    assert len(set(keys)) == len(keys)
    assert keys == [p.key for p in again]

    def keys_with(**change: object) -> set[str]:
        args: dict[str, object] = {"seed": 1, "judge": "ngram"}
        games = [SOLO, DUEL]
        specs = dict(SPECS)
        if "game" in change:
            games = [dataclasses.replace(SOLO, **change["game"]), DUEL]  # type: ignore[arg-type]
        if "spec" in change:
            specs["a"] = str(change["spec"])
        for key in ("seed", "judge"):
            if key in change:
                args[key] = change[key]
        return {p.key for p in eval_pairings("t", games, ["a", "b"], specs, **args)}  # type: ignore[arg-type]

    base = set(keys)
    for change in (
        {"game": {"code_hash": "other"}},
        {"game": {"version": "9"}},
        {"game": {"rounds": 5}},
        {"game": {"dialect": "xent"}},
        {"spec": "random?seed=99"},
        {"seed": 2},
        {"judge": "hf:gpt2"},
    ):
        assert keys_with(**change) != base, change
    renamed = {p.key for p in eval_pairings("u", [SOLO, DUEL], ["a", "b"], SPECS, seed=1, judge="ngram")}
    assert renamed.isdisjoint(base)


def seat_counts(plans: list[MatchPlan]) -> Counter[tuple[str, str]]:
    return Counter((s.participant, s.role) for p in plans for s in p.seats)


def test_head_to_head_small_uses_every_permutation() -> None:
    game = dataclasses.replace(DUEL, npcs={})
    plans = head_to_head_pairings("t", [game], list("abcd"), SPECS)
    assert len(plans) == 2 * 12  # 2 map slots x 4P2
    pairs = [tuple(s.participant for s in p.seats) for p in plans]
    for slot in (pairs[:12], pairs[12:]):
        assert sorted(slot) == sorted((x, y) for x in "abcd" for y in "abcd" if x != y)
    assert set(seat_counts(plans).values()) == {6}
    assert all(p.mode == HEAD_TO_HEAD and p.main_role is None for p in plans)
    assert all(s.main for p in plans for s in p.seats)
    # alice and bob see different things: each map is one entrant's as alice, the others
    # each meet it there as bob, so a seat swap lands on another map
    for index in {p.map_index for p in plans}:
        on_map = [p for p in plans if p.map_index == index]
        assert len({p.seat("alice").participant for p in on_map}) == 1
        assert len(on_map) == 3
    assert len({p.map_index for p in plans}) == 2 * 4


def test_head_to_head_roles_that_share_a_view_swap_seats_on_the_same_map() -> None:
    plans = head_to_head_pairings("t", [OPEN], list("abc"), SPECS)
    assert sorted({p.map_index for p in plans}) == [0, 1]
    for index in (0, 1):
        pairs = {tuple(s.participant for s in p.seats) for p in plans if p.map_index == index}
        assert pairs == {(x, y) for x in "abc" for y in "abc" if x != y}


def test_head_to_head_large_samples_balanced_blocks_under_the_budget() -> None:
    game = dataclasses.replace(TRIO, npcs={}, maps=3, max_matches=3 * 40)
    people = list("abcdefghij")
    plans = head_to_head_pairings("t", [game], people, SPECS)
    assert len(plans) == 3 * 40  # 4 blocks of 10 per map, within the budget
    assert len(plans) < 3 * math.perm(10, 3)
    assert set(seat_counts(plans).values()) == {12}  # every participant, every seat, equally
    for p in plans:
        assert len({s.participant for s in p.seats}) == 3
    per_map = Counter((p.map_index, tuple(s.participant for s in p.seats)) for p in plans)
    assert set(per_map.values()) == {1}  # no assignment twice on a map


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(min_value=1, max_value=9),
    k=st.integers(min_value=1, max_value=4),
    limit=st.integers(min_value=1, max_value=400),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_seat_assignments_are_always_seat_balanced(n: int, k: int, limit: int, seed: int) -> None:
    people = [f"p{i}" for i in range(n)]
    if k > n or limit < min(n, math.perm(n, k)):
        with pytest.raises(ConfigError):
            seat_assignments(people, k, limit, seed)
        return
    chosen = seat_assignments(people, k, limit, seed)
    assert len(chosen) <= limit
    assert len(set(chosen)) == len(chosen)
    assert all(len(set(a)) == k for a in chosen)
    counts = Counter((who, seat) for a in chosen for seat, who in enumerate(a))
    assert len(counts) == n * k and len(set(counts.values())) == 1
    assert chosen == seat_assignments(people, k, limit, seed)  # deterministic


def test_budget_smaller_than_one_rotation_is_refused() -> None:
    with pytest.raises(ConfigError, match="max_matches"):
        seat_assignments(list("abcde"), 2, 4, 0)


def test_plan_matches_dispatches_on_mode() -> None:
    game = dataclasses.replace(DUEL, npcs={"alice": "npc", "bob": "npc"})
    assert {p.mode for p in plan_matches("t", EVAL, [game], ["a", "b"], SPECS)} == {EVAL}
    assert {p.mode for p in plan_matches("t", HEAD_TO_HEAD, [game], ["a", "b"], SPECS)} == {
        HEAD_TO_HEAD
    }
