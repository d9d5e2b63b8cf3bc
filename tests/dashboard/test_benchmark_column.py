"""The leaderboard's Xent benchmark column (issue 20): the published benchmark's score, the
same numbers as `arena scores --normalisation benchmark`, for our runs and imported ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.storage import Store
from arena.tournaments.ratings.normalisation_benchmark import benchmark_normalisation
from arena.tournaments.records.rating_store import load_inputs, store_snapshot
from arena.tournaments.services.exchange.importers import import_file
from tests.dashboard.conftest import OpenApp, no_exception

EDGE = Path(__file__).resolve().parents[1] / "data" / "xent_results" / "edge_cases.json"


def test_the_column_is_the_benchmark_score_of_the_tournament(
    open_app: OpenApp, arena_db: str
) -> None:
    at = open_app("views/leaderboard.py", {"tournament": "nightly"})
    no_exception(at)
    board = at.dataframe[0].value
    store = Store.open(arena_db)
    try:
        expected = benchmark_normalisation(load_inputs(store, ["nightly"]).records)
    finally:
        store.close()
    shown = dict(zip(board["participant"], board["xent_benchmark"], strict=True))
    assert shown == pytest.approx(dict(expected.overall))


def test_an_imported_benchmark_result_shows_the_scripts_scores(
    open_app: OpenApp, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'bench.db'}"
    store = Store.open(url, create=True)
    try:
        import_file(store, EDGE, "bench")
        store_snapshot(store, "bench")
    finally:
        store.close()
    at = open_app("views/leaderboard.py", {"tournament": "bench"}, url=url)
    no_exception(at)
    board = at.dataframe[0].value
    shown = dict(zip(board["participant"], board["xent_benchmark"], strict=True))
    assert shown == {"p-alpha": 37.5, "p-beta": 12.5, "p-delta": 0.0, "p-zeta": -56.25,
                     "p-gamma": -56.25}
