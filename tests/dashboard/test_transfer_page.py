"""The Transfer page: stored verdicts and the transfer matrix with intervals, undefined
values said so, game names shown as text; a database holding only transfer results (no
tournament) still shows it."""

from __future__ import annotations

from pathlib import Path

from arena.storage import Store
from tests.dashboard.conftest import OpenApp, no_exception
from tests.storage.transfer_rows import HOSTILE_GAME, SETTING_SHA, store_example

PAGE = "views/transfer.py"


def test_the_matrix_shows_values_intervals_and_undefined_cells(open_app: OpenApp) -> None:
    at = open_app(PAGE, {"tournament": "nightly"})
    no_exception(at)
    assert at.title[0].value == "Transfer"
    assert SETTING_SHA[:12] in at.selectbox(key="t_setting").format_func(0)
    verdicts = at.dataframe[0].value
    assert list(verdicts["game"]) == ["condense", HOSTILE_GAME, "flat"]
    assert list(verdicts["playable"]) == [True, True, False]
    matrix = at.dataframe[1].value
    assert list(matrix.index) == ["condense", HOSTILE_GAME, "flat"]  # the name as text
    assert matrix.loc["condense", HOSTILE_GAME] == "0.62 [0.31, 0.97]"
    assert matrix.loc["condense", "condense"] == "1 [1, 1]"
    assert set(matrix.loc["flat"]) == {"undefined"}
    values = at.dataframe[2].value
    assert len(values) == 9 and values["value"].isna().sum() == 3
    assert list(values.columns)[:5] == ["source", "target", "value", "low", "high"]
    assert not at.markdown or all(HOSTILE_GAME not in m.value for m in at.markdown)


def test_a_database_with_transfer_results_only_shows_the_transfer_page(
    open_app: OpenApp, tmp_path: Path
) -> None:
    url = str(tmp_path / "transfer-only.db")
    store = Store.open(url)
    store.close()
    empty = open_app(url=url)  # an arena database with nothing in it
    assert any("holds no tournament yet" in e.value for e in empty.error)
    store = Store.open(url)
    try:
        store_example(store.engine)
    finally:
        store.close()
    at = open_app(url=url)
    no_exception(at)
    assert not at.error
    assert at.title[0].value == "Transfer"
    assert len(at.dataframe[1].value) == 3
