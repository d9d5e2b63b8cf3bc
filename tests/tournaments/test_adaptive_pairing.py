"""Adaptive pairing as a pure policy (issue 33 item 1): given the candidates (planned
matches), the matches played and those in flight, which to play next. The engine's use of it
is tested in test_adaptive_runs.py."""

from __future__ import annotations

import itertools

import numpy as np

from arena.tournaments.ratings.adaptive import (
    AdaptivePairing,
    AdaptiveSettings,
    Candidate,
    map_share,
    next_matches,
)
from arena.tournaments.ratings.bradley_terry import fit
from arena.tournaments.ratings.comparisons import comparisons_from_records
from arena.tournaments.ratings.records import MatchRecord, SeatRecord

GAME = "g"


def duels(names: list[str], maps: int) -> list[Candidate]:
    """Head-to-head candidates: every ordered pair on each map."""
    return [
        Candidate(f"m{m}:{a}:{b}", GAME, (("first", a), ("second", b)))
        for m in range(maps)
        for a, b in itertools.permutations(names, 2)
    ]


def duel(key: str, first: str, second: str, first_wins: bool) -> MatchRecord:
    won = 1.0 if first_wins else 0.0
    seats = (SeatRecord("first", first, won), SeatRecord("second", second, 1.0 - won))
    return MatchRecord(key, GAME, "m" + key.split(":")[0], seats)


def pair(key: str) -> frozenset[str]:
    return frozenset(key.split(":")[1:])


def test_the_next_match_is_between_the_neighbours_still_unseparated() -> None:
    """a beat b in 36 of 40 duels, b and c split their ten: a and b are separated, b and c
    are not, so the next matches are b against c."""
    names = ["a", "b", "c"]
    records = [duel(f"x{i}:a:b", "a", "b", i % 10 != 0) for i in range(40)]
    records += [duel(f"y{i}:b:c", "b", "c", i % 2 == 0) for i in range(10)]
    picks = next_matches(duels(names, 6), records, 3)
    assert picks and all(pair(k) == {"b", "c"} for k in picks), picks


def test_picks_are_deterministic_and_never_repeat_what_is_played_in_flight_or_skipped() -> None:
    names = ["a", "b", "c", "d"]
    candidates = duels(names, 3)
    records = [duel("m0:a:b", "a", "b", True), duel("m0:c:d", "c", "d", False)]
    flying, skipped = ["m1:a:c"], ["m2:b:d"]
    first = next_matches(candidates, records, 10, in_flight=flying, skip=skipped)
    assert first == next_matches(candidates, records, 10, in_flight=flying, skip=skipped)
    assert len(first) == len(set(first)) == 10
    assert not {"m0:a:b", "m0:c:d", *flying, *skipped} & set(first)
    everything = next_matches(candidates, records, 1000)
    assert len(everything) == len(candidates) - len(records)  # then the pool is empty


def test_the_same_pair_alternates_its_seats() -> None:
    """Two participants, many maps: the picks give each the first seat half the time."""
    picks = next_matches(duels(["a", "b"], 8), [], 8)
    firsts = [k.split(":")[1] for k in picks]
    assert sorted(firsts) == ["a"] * 4 + ["b"] * 4, picks


def test_an_eval_entrant_joins_a_map_that_others_played() -> None:
    """Eval mode: entrants compare on a map both played. x and y played map 0; z joining map
    0 makes two comparisons at once, a fresh map none yet."""
    names = ["x", "y", "z"]
    cells = {m: (GAME, "1", "main", m, (("npc", "npc"),), 1) for m in range(4)}
    candidates = [
        Candidate(f"m{m}:{n}", GAME, (("main", n),), cells[m]) for m in range(4) for n in names
    ]

    def played(m: int, n: str, score: float) -> MatchRecord:
        seats = (SeatRecord("main", n, score), SeatRecord("npc", "npc", 0.0, npc=True))
        return MatchRecord(f"m{m}:{n}", GAME, f"map{m}", seats, mode="eval")

    records = [played(0, "x", 3.0), played(0, "y", 1.0)]
    assert next_matches(candidates, records, 1) == ["m0:z"]


def test_placing_a_newcomer_plays_only_its_matches() -> None:
    """Incumbents well known, a newcomer with no match: with the focus on it every pick
    involves it."""
    names = ["a", "b", "c", "new"]
    records = [
        duel(f"r{i}:{win}:{loss}", win, loss, True)
        for i in range(6)
        for win, loss in (("a", "b"), ("b", "c"), ("a", "c"))
    ]
    policy = AdaptivePairing(duels(names, 4), AdaptiveSettings(focus=("new",)))
    picks = policy.next(records, 6)
    assert len(picks) == 6 and all("new" in pair(k) for k in picks), picks


def test_map_share_is_what_the_board_fit_learns_from_a_map() -> None:
    """The policy's count of what an eval map's comparisons tell (`map_share`) against the
    board's own fit: the spread of a fitted strength difference over seeded plays of maps of
    m entrants (equal strengths, Gumbel noise) gives the information per match. For m = 8
    the count is within 20 % of it, where the old 2 / m count is off by more than 20 %."""
    n, matches = 8, 480
    rng = np.random.default_rng(5)
    measured = {}
    for m in (2, 8):
        diffs = []
        for draw in range(80):
            records = []
            for k in range(matches // m):
                noise = rng.gumbel(size=m)
                for j, who in enumerate(rng.choice(n, m, replace=False)):
                    seats = (SeatRecord("main", f"p{who}", float(noise[j])),
                             SeatRecord("npc", "npc", 0.0, npc=True))
                    records.append(MatchRecord(f"{draw}:{k}:{who}", GAME, f"map{k}", seats,
                                               mode="eval"))
            data = comparisons_from_records(records)
            strengths = fit(data).strengths
            diffs.append(strengths[data.participants.index("p0")]
                         - strengths[data.participants.index("p1")])
        # var(difference) = 2 / (matches per entrant * information per match)
        measured[m] = 2.0 / (float(np.var(diffs)) * matches / n)
    for m in (2, 8):
        predicted = (m - 1) / 4 * map_share(m)  # per match: m - 1 comparisons of p(1-p) = 1/4
        assert abs(measured[m] / predicted - 1) < 0.2, (m, measured[m], predicted)
    assert abs(measured[8] / ((8 - 1) / 4 * 2 / 8) - 1) > 0.2, measured


def eval_cells(maps: int) -> dict[int, tuple[object, ...]]:
    return {m: (GAME, "1", "main", m, (("npc", "npc"),), 1) for m in range(maps)}


def scored(m: int, who: str, score: float) -> MatchRecord:
    seats = (SeatRecord("main", who, score), SeatRecord("npc", "npc", 0.0, npc=True))
    return MatchRecord(f"m{m}:{who}", GAME, f"map{m}", seats, mode="eval")


def test_an_eval_map_of_the_top_leaves_out_those_settled_far_below() -> None:
    """Only the best two must be settled; after six full maps the three at the bottom are
    far below them: the next maps are the top's (a map's entrants share what it tells, so a
    far-off entrant adds little to a map of the top)."""
    strengths = {"e0": 3.0, "e1": 2.6, "e2": 2.2, "e3": 0.6, "e4": 0.2, "e5": -0.2}
    cells = eval_cells(12)
    candidates = [
        Candidate(f"m{m}:{n}", GAME, (("main", n),), cells[m])
        for m in range(12) for n in strengths
    ]
    rng = np.random.default_rng(3)
    records = [scored(m, n, s + float(rng.gumbel())) for m in range(6)
               for n, s in strengths.items()]
    picks = AdaptivePairing(candidates, AdaptiveSettings(settle_top=2)).next(records, 12)
    who = [k.split(":")[1] for k in picks]
    top = sum(w in ("e0", "e1", "e2") for w in who)
    assert len(picks) == 12 and top >= 9, who


def test_a_barely_measured_participant_whose_interval_reaches_the_top_is_played() -> None:
    """a, b, c are well measured and apart; d has two matches, a win over c and a loss to b:
    ranked fourth by its point, but its interval reaches b's, so the top two are not settled
    until d is measured, and the picks involve d."""
    records = [duel(f"r{i}:{w}:{lo}", w, lo, True)
               for i in range(30) for w, lo in (("a", "b"), ("b", "c"), ("a", "c"))]
    records += [duel("s0:d:c", "d", "c", True), duel("s1:b:d", "b", "d", True)]
    picks = AdaptivePairing(duels(["a", "b", "c", "d"], 4),
                            AdaptiveSettings(settle_top=2)).next(records, 4)
    assert picks and all("d" in pair(k) for k in picks), picks
