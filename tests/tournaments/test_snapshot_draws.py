"""Rating snapshots keep their bootstrap draws, so viewers get intervals and P(rank = k)
from the stored draws without refitting."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from arena.storage import Store, sqlite_url
from arena.storage.snapshot_draws import decode_draws, encode_draws
from arena.storage.snapshots import rating_snapshots
from arena.tournaments.ratings import rank_probabilities
from arena.tournaments.records.rating_store import store_snapshot
from arena.tournaments.services.run_config import run_file
from tests.tournaments import arena_fixtures as fx


def test_rank_probabilities_count_ranks_over_draws() -> None:
    draws = np.array([[3.0, 2.0, 1.0], [3.0, 1.0, 2.0], [1.0, 3.0, 2.0], [3.0, 2.0, 2.0]])
    p = rank_probabilities(draws)
    assert np.allclose(p.sum(axis=1), 1.0)
    assert np.allclose(p[0], [0.75, 0.0, 0.25])  # first in three draws, last in one
    assert np.allclose(p[1], [0.25, 0.5, 0.25])
    assert np.allclose(p[2], [0.0, 0.75, 0.25])  # a tie with 1 shares rank 2 in the last draw


def test_draws_round_trip_as_float32() -> None:
    ratings = np.array([[1000.25, 987.5], [1010.0, 990.125]])
    back = decode_draws({"draws": encode_draws(["a", "b"], ratings)})
    assert back is not None and back.participants == ("a", "b")
    assert np.allclose(back.ratings, ratings) and back.ratings.shape == (2, 2)
    assert decode_draws({"rows": []}) is None  # an older snapshot


async def test_a_snapshot_stores_draws_that_reproduce_its_intervals(tmp_path: Path) -> None:
    db = sqlite_url(tmp_path / "d.db")
    await run_file(fx.tournament_file(tmp_path, fx.SMALL), db=db, registry=fx.registry())
    store = Store.open(db)
    try:
        store_snapshot(store, "small")
        (snap,) = rating_snapshots(store.engine, "small")
    finally:
        store.close()
    draws = decode_draws(snap.payload)
    assert draws is not None
    rows = {r["participant"]: r for r in snap.payload["rows"]}
    assert set(draws.participants) == set(rows) == {"alpha", "beta"}  # npc seats are not rated
    assert draws.ratings.shape == (snap.payload["config"]["n_resamples"], 2)
    low, high = np.percentile(draws.ratings, [2.5, 97.5], axis=0)
    for j, name in enumerate(draws.participants):
        assert abs(low[j] - rows[name]["ci_low"]) < 0.01 and abs(high[j] - rows[name]["ci_high"]) < 0.01
    probs = rank_probabilities(draws.ratings)
    assert np.allclose(probs.sum(axis=1), 1.0)
    for j, name in enumerate(draws.participants):  # ranks with mass lie in the CI-aware range
        likely = np.flatnonzero(probs[j] > 0.05) + 1
        assert rows[name]["rank_low"] <= likely.min() and likely.max() <= rows[name]["rank_high"]
