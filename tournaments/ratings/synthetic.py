"""Synthetic head-to-head matches from known strengths, for tests and benchmarks.

Each match picks a game and two distinct participants uniformly at random, seats them in
random order in roles ``"first"`` and ``"second"``, and lets the first win with probability
``sigmoid(theta_first - theta_second + advantage[game:first] - advantage[game:second])``.
The winner scores 1 bit and the loser 0 bits. ``seat_of`` pins participants to one role.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from arena.tournaments.ratings.records import MatchRecord, SeatRecord

ROLES = ("first", "second")


def synthetic_matches(
    strengths: Mapping[str, float],
    n_matches: int,
    *,
    games: Sequence[str] = ("game0",),
    role_advantage: Mapping[str, float] | None = None,
    seat_of: Mapping[str, str] | None = None,
    groups: Sequence[Sequence[str]] | None = None,
    seed: int = 0,
    prefix: str = "m",
) -> list[MatchRecord]:
    """``n_matches`` records; ``groups`` restricts pairings to within each group (to build
    disconnected comparison graphs); ``role_advantage`` maps ``"game:role"`` to a natural-log
    effect."""
    rng = np.random.default_rng(seed)
    names = sorted(strengths)
    pools = [sorted(g) for g in groups] if groups else [names]
    adv = dict(role_advantage or {})
    pinned = dict(seat_of or {})
    width = len(str(max(n_matches - 1, 0)))
    out = []
    for i in range(n_matches):
        game = games[int(rng.integers(len(games)))]
        pool = pools[int(rng.integers(len(pools)))]
        x, y = (pool[int(j)] for j in rng.choice(len(pool), size=2, replace=False))
        if rng.random() < 0.5:
            x, y = y, x
        if pinned.get(y) == "first" or pinned.get(x) == "second":
            x, y = y, x
        margin = (
            strengths[x]
            - strengths[y]
            + adv.get(f"{game}:first", 0.0)
            - adv.get(f"{game}:second", 0.0)
        )
        first_wins = rng.random() < 1.0 / (1.0 + np.exp(-margin))
        seats = (
            SeatRecord("first", x, 1.0 if first_wins else 0.0),
            SeatRecord("second", y, 0.0 if first_wins else 1.0),
        )
        out.append(MatchRecord(f"{prefix}{i:0{width}d}", game, "map0", seats, order=float(i)))
    return out


def synthetic_eval_matches(
    strengths: Mapping[str, float],
    n_matches: int,
    *,
    games: Sequence[str] = ("game0",),
    maps: int = 40,
    seed: int = 0,
) -> list[MatchRecord]:
    """``n_matches`` eval-mode records: each a random participant on a random (game, map),
    main role ``"main"`` against NPC ``"npc"``, scoring its strength plus a per-(game, map)
    shift plus Gaussian noise (comparable matches share game, map and NPC)."""
    rng = np.random.default_rng(seed)
    names = sorted(strengths)
    shift = rng.normal(0.0, 3.0, (len(games), maps))
    width = len(str(max(n_matches - 1, 0)))
    out = []
    for i in range(n_matches):
        g, m = int(rng.integers(len(games))), int(rng.integers(maps))
        who = names[int(rng.integers(len(names)))]
        score = strengths[who] + shift[g, m] + float(rng.normal())
        seats = (SeatRecord("main", who, score), SeatRecord("other", "npc", 0.0, npc=True))
        out.append(MatchRecord(f"e{i:0{width}d}", games[g], f"map{m}", seats, mode="eval",
                               order=float(i)))
    return out
