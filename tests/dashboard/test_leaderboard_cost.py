"""The Leaderboard shows what each participant cost (issue 33 item 4): seconds on moves over
its rated seats (and tokens and dollars when some player reported them), as stored with
each seat, and the board's spend per settled rank."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.storage import Store
from arena.tournaments.ratings.spend import participant_costs
from tests.dashboard.conftest import OpenApp, no_exception, run_app
from tests.tournaments import arena_fixtures as fx
from tests.tournaments.test_run_cost import paid_tournament


def test_the_leaderboard_shows_each_participant_s_cost(open_app: OpenApp, arena_db: str) -> None:
    store = Store.open(arena_db)
    try:
        costs = participant_costs(store.seat_spend("nightly"))
    finally:
        store.close()
    assert costs and all(c.measured and c.move_s > 0 for c in costs.values())
    at = open_app("views/leaderboard.py", {"tournament": "nightly"})
    no_exception(at)
    board = at.dataframe[0].value.set_index("participant")
    paid = any(c.spend.tokens or c.spend.cost_usd for c in costs.values())
    assert ("tokens" in board) == paid and ("usd" in board) == paid  # shown when reported
    for name, cost in costs.items():
        if name in board.index:
            assert board.loc[name, "move_s"] == pytest.approx(cost.move_s)
            if paid:
                assert board.loc[name, "tokens"] == pytest.approx(cost.spend.tokens)
    shown = " ".join(c.value for c in at.caption)
    assert "Cost per settled rank" in shown


async def test_tokens_and_dollars_show_when_a_player_reported_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = await paid_tournament(tmp_path, fx.registry())
    store = Store.open(db)
    try:
        costs = participant_costs(store.seat_spend("small"))
    finally:
        store.close()
    at = run_app(db, "views/leaderboard.py", {"tournament": "small"}, monkeypatch)
    no_exception(at)
    board = at.dataframe[0].value.set_index("participant")
    assert costs["alpha"].spend.tokens > 0
    assert board.loc["alpha", "tokens"] == pytest.approx(costs["alpha"].spend.tokens)
    assert board.loc["beta", "tokens"] == 0.0  # the random player reports none
    shown = " ".join(c.value for c in at.caption)
    assert "Cost per settled rank" in shown, shown
