"""Issue 19 item 7 / Def. 45: the optimal η-cover of a scope from measured transfer values
(exhaustive for small scopes), the greedy one with its H(n) bound for large scopes."""

from __future__ import annotations

import itertools
import math
import random

from arena.gamespace.scope.cover import EXACT_LIMIT, eta_cover, transfer_cover

VALUES = {
    ("a", "b"): 0.9, ("a", "c"): 0.2, ("b", "a"): 0.8, ("b", "c"): 0.6,
    ("c", "a"): 0.5, ("c", "b"): 0.7, ("d", "a"): None,
}


def test_the_smallest_cover_then_the_best_transfer_cover() -> None:
    found = eta_cover(["a", "b", "c", "d"], VALUES, 0.5)
    # d is covered by nothing but itself; {b, d} reaches a (0.8), c (0.6); {c, d} reaches
    # a (0.5), b (0.7); both size 2: b's cover min(0.8, 0.6) beats c's min(0.5, 0.7)
    assert found.exact and set(found.games) == {"b", "d"}
    assert found.cover.value == 0.6
    assert eta_cover(["a", "b", "c"], VALUES, 0.95).games == ("a", "b", "c")  # nothing reaches


def test_exhaustive_search_agrees_with_a_brute_force_on_random_scopes() -> None:
    rng = random.Random(4)
    for _ in range(20):
        games = [f"g{i}" for i in range(6)]
        values = {(s, t): rng.random() for s in games for t in games if s != t}
        found = eta_cover(games, values, 0.7)
        sizes = [
            size for size in range(1, 7)
            for subset in itertools.combinations(games, size)
            if transfer_cover(games, subset, values).value >= 0.7
        ]
        assert len(found.games) == min(sizes)
        assert transfer_cover(games, found.games, values).value >= 0.7


def test_large_scopes_use_the_greedy_cover_within_its_bound() -> None:
    rng = random.Random(1)
    games = [f"g{i}" for i in range(EXACT_LIMIT + 4)]
    values = {(s, t): rng.random() for s in games for t in games if s != t}
    found = eta_cover(games, values, 0.8)
    assert not found.exact and found.cover.value >= 0.8
    assert math.isclose(found.bound, sum(1 / k for k in range(1, len(games) + 1)))
