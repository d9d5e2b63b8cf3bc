"""The Leaderboard shows what each participant cost (issue 33 item 4): tokens, dollars and
seconds on moves over its rated seats, as stored with each seat, and the board's spend per
settled rank."""

from __future__ import annotations

import pytest

from arena.storage import Store
from arena.tournaments.ratings.spend import participant_costs
from tests.dashboard.conftest import OpenApp, no_exception


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
    for name, cost in costs.items():
        if name in board.index:
            assert board.loc[name, "move_s"] == pytest.approx(cost.move_s)
            assert board.loc[name, "tokens"] == pytest.approx(cost.spend.tokens)
    shown = " ".join(c.value for c in at.caption)
    assert "Cost per settled rank" in shown
