"""The pages' vectorised normalisation (`arena.dashboard.arms_table`, `derived.seat_*`) gives the
numbers of the reference computation over rating records (`arena.tournaments.ratings`), on the
fixture database and on seats with every convention at once (forfeits, forfeited and missing
rounds, maps one participant did not play, several matches on one map, NPC seats)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from arena.dashboard import data, derived
from arena.dashboard.arms_table import arms_from_seats
from arena.dashboard.filters import Filters
from arena.storage.read_model import ReadModel
from arena.tournaments.ratings.normalisation import arms_curves

COLUMNS = ["match", "key", "game", "game_version", "map_id", "mode", "rounds", "role", "participant", "main", "best",
           "forfeit", "round_scores_json"]


def _same_curves(fast: dict, reference: dict) -> None:  # type: ignore[type-arg]
    assert list(fast) == list(reference)
    for cell, curves in reference.items():
        assert list(fast[cell]) == list(curves), cell
        for name, curve in curves.items():
            assert fast[cell][name].shape == curve.shape, (cell, name)
            np.testing.assert_allclose(fast[cell][name], curve, rtol=0, atol=1e-12)


def _same_scores(seats: pd.DataFrame, base: str) -> None:
    records = data.match_records(seats)
    _same_curves(arms_from_seats(seats), arms_curves(records))
    _same_curves(arms_from_seats(seats, horizon=2), arms_curves(records, horizon=2))
    for how in ("catch-up", "narms", "reference"):
        fast, fast_notes = derived.seat_normalised_scores(seats, base, how, 0.5, 2)
        slow, slow_notes = derived.normalised_scores(records, base, how, 0.5, 2)
        assert fast_notes == slow_notes, how
        pd.testing.assert_frame_equal(fast, slow, check_exact=False, rtol=0, atol=1e-12)
    pd.testing.assert_frame_equal(derived.seat_arms(seats), derived.arms(records),
                                  check_exact=False, rtol=0, atol=1e-12)


@pytest.mark.parametrize("tournament", ["nightly", "duel-cup"])
def test_fast_normalisation_equals_the_records_computation_on_the_fixture(
    arena_db: str, tournament: str
) -> None:
    reader = ReadModel.open(arena_db)
    seats = reader.scored_seats(Filters(tournament))
    assert len(seats) >= 8
    _same_scores(seats, "alpha")
    assert not derived.seat_arms(seats).empty
    # the pages read only the rated seats: the same numbers as the records of every seat
    rated = reader.scored_seats(Filters(tournament), rated_only=True)
    assert len(rated) == int(seats["main"].astype(bool).sum())
    records = data.match_records(seats)
    for how in ("catch-up", "narms", "reference"):
        pd.testing.assert_frame_equal(
            derived.seat_normalised_scores(rated, "alpha", how)[0],
            derived.normalised_scores(records, "alpha", how)[0],
            check_exact=False, rtol=0, atol=1e-12)


def _seat(match: int, game: str, map_id: str, role: str, who: str, rounds: list[float | None],
          *, main: bool = True, forfeit: bool = False, mode: str = "eval") -> dict[str, object]:
    numeric = [r for r in rounds if r is not None]
    best = None if forfeit and not numeric else (max(numeric) if numeric else None)
    return {"match": match, "key": f"k{match}", "game": game, "game_version": "1",
            "map_id": map_id, "mode": mode, "rounds": 3,
            "role": role, "participant": who, "main": main, "best": best,
            "forfeit": forfeit or best is None, "round_scores_json": json.dumps(rounds)}


def test_fast_normalisation_equals_the_records_computation_on_every_convention() -> None:
    rows = [
        _seat(1, "g", "m1", "p", "A", [-3.0, -1.0, -2.0]),
        _seat(1, "g", "m1", "npc", "N", [-9.0], main=False),
        _seat(2, "g", "m1", "p", "B", [-4.0, -4.0, -0.5]),
        _seat(3, "g", "m1", "p", "B", [-2.0, None, -1.0]),  # a second match on the map
        _seat(4, "g", "m2", "p", "A", [-5.0, None], forfeit=True),  # forfeited, one round short
        _seat(5, "g", "m2", "p", "B", [-6.0, -3.0, -2.5]),
        _seat(6, "g", "m3", "p", "B", [-1.0, 0.5, 1.0]),  # A never played m3
        _seat(7, "g", "m4", "p", "A", [None, None, None], forfeit=True),  # nobody scored m4
        _seat(8, "h", "m1", "q", "A", [-2.0]),  # one round only
        _seat(9, "h", "m1", "q", "B", []),  # no per-round scores: its match score counts
        _seat(10, "h", "m1", "q", "C", [], forfeit=True),  # forfeited with nothing
        _seat(11, "duel", "m1", "black", "A", [-1.0, -2.0, 0.0], mode="head_to_head"),
        _seat(11, "duel", "m1", "white", "B", [-3.0, -2.0, -1.0], mode="head_to_head"),
    ]
    rows[9]["best"] = -1.5
    seats = pd.DataFrame(rows, columns=COLUMNS)
    for base in ("A", "B"):
        _same_scores(seats, base)
    assert arms_from_seats(seats.iloc[0:0]) == {}
