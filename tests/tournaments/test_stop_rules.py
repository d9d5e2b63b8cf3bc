"""Stopping rules (issue 33 item 2): a run stops at the first rule met (`max_matches`,
`stop_when = "settled"`, `budget_tokens`, `budget_usd`), stores why with its status, and
says so; matches in flight finish. Real runs of the engine on SQLite."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import build_app
from arena.events import ElicitResponse
from arena.storage import MATCH_DONE, Store, sqlite_url
from arena.storage.read_model.catalogue import tournaments as tournament_table
from arena.tournaments.ratings.leaderboard import LeaderboardRow
from arena.tournaments.ratings.service import RatingOptions, compute_ratings
from arena.tournaments.ratings.stopping import StopRules, settled
from arena.tournaments.records.rating_store import load_inputs
from arena.tournaments.running.stop_watch import StopWatch
from tests.tournaments.arena_fixtures import KEY, THREE_ENTRANTS, fix_seed_key

APP = build_app()


def run(
    tmp_path: Path, rules: str, maps: int = 2, key: str | None = None
) -> tuple[int, str, str]:
    """Run the small tournament under `rules`; `key`: its seed key (the maps and players'
    seeds, so the outcomes), else a fresh one."""
    (tmp_path / "t.toml").write_text(THREE_ENTRANTS.format(maps=maps, rules=rules), encoding="utf-8")
    db = sqlite_url(tmp_path / "a.db")
    if key is not None:
        fix_seed_key(db, key)
    ran = CliRunner().invoke(APP, ["run", str(tmp_path / "t.toml"), "--db", db, "--no-progress"],
                             env={"COLUMNS": "200"})
    return ran.exit_code, ran.output, db


def stored(db: str) -> int:
    store = Store.open(db)
    try:
        return len(store.stored_matches("small", status=MATCH_DONE))
    finally:
        store.close()


def test_max_matches_stops_the_run_even_with_every_match_free_to_start(tmp_path: Path) -> None:
    """16 slots for 12 planned matches: the limit still holds (a match counts once it
    starts), the run's status says why, and running again plays nothing more."""
    code, said, db = run(tmp_path, "max_matches = 5")
    assert code == 0, said
    assert stored(db) == 5
    assert "stopped: max_matches: 5 matches stored, the limit is 5; 7 planned match(es) " \
        "not played" in said
    code, said, _ = run(tmp_path, "max_matches = 5")
    assert code == 0 and stored(db) == 5 and "0 match(es) stored this run" in said
    store = Store.open(db)
    try:
        table = tournament_table(store.engine)  # the dashboard's Tournaments page
    finally:
        store.close()
    status = table.set_index("name").loc["small", "last_run_status"]
    assert status == "stopped: max_matches: 5 matches stored, the limit is 5"


def test_a_settled_ranking_stops_the_run_early_and_is_settled(tmp_path: Path) -> None:
    """Clearly different players on many maps: the ranks separate long before the 72
    planned matches, the run stops, and the board of the matches the verdict names (the
    first ones stored; matches in flight finish after it) has one rank per participant at
    the file's confidence, as `arena ratings` computes it."""
    # a fixed seed key: with some keys search and random stay within 50 % all 72 matches
    code, said, db = run(tmp_path, 'stop_when = "settled"\nconfidence = 0.5', maps=12, key=KEY)
    assert code == 0, said
    done = stored(db)
    assert 3 <= done < 72, said
    found = re.search(r"stopped: settled: the 50% intervals of the top 3 no longer overlap "
                      r"after (\d+) matches", said)
    assert found, said
    verdict = int(found.group(1))
    assert 3 <= verdict <= done, said
    store = Store.open(db)
    try:
        inputs = load_inputs(store, ["small"])
    finally:
        store.close()
    first = replace(inputs, records=inputs.records[:verdict])  # stored in order (by id)
    board = compute_ratings(first, RatingOptions(confidence=0.5, min_comparisons=0)).rows
    assert len(board) == 3 and all(r.rank_low == r.rank_high for r in board), board


async def test_a_token_budget_stops_on_the_players_reported_usage(tmp_path: Path) -> None:
    """What the players report spending (a move's usage) counts toward the run's budget;
    a player that reports nothing spends nothing."""
    db = sqlite_url(tmp_path / "b.db")
    store = Store.open(db)
    try:
        watch = StopWatch(StopRules(budget_tokens=1000), store, "none", ["a", "b"], 0)
        quiet = ElicitResponse(player="a", round=1, line=1, values={"t": "x"}, cut=False)
        watch.on_event(quiet)
        assert not await watch.should_stop()
        spent = ElicitResponse(player="a", round=1, line=1, values={"t": "x"}, cut=False,
                               usage={"prompt_tokens": 900.0, "completion_tokens": 150.0})
        watch.on_event(spent)
        assert await watch.should_stop()
        assert watch.decision is not None and watch.decision.rule == "budget_tokens"
        assert "1,050 tokens, the budget is 1,000" in watch.decision.reason
    finally:
        store.close()


@pytest.mark.parametrize(("rules", "expected"), [
    ("settle_top = 2", 'applies only when the run stops once settled; add stop_when = "settled"'),
    ('stop_when = "settled"\nsettle_top = 9', "is more than the 3 rated participant(s)"),
    ('stop_when = "settled"\nconfidence = 0.2', "a number from 0.5 to 0.999"),
    ('stop_when = "done"', "stop_when"),
])
def test_stopping_keys_that_cannot_work_are_one_clear_error(
    tmp_path: Path, rules: str, expected: str
) -> None:
    code, said, db = run(tmp_path, rules)
    assert code == 2 and expected in " ".join(said.split()) and "Traceback" not in said, said
    assert not (tmp_path / "a.db").exists() or stored(db) == 0


def test_a_provisional_row_keeps_the_ranking_unsettled() -> None:
    """Separated intervals are not enough while a row the verdict vouches for is still
    provisional (a dozen comparisons all won give one narrow interval in every resample):
    all rows for the whole ranking; the top and the row below it for ``settle_top``."""
    def row(name: str, rank: int, provisional: bool) -> LeaderboardRow:
        centre = 1000.0 - 100 * rank
        return LeaderboardRow(name, centre, centre - 10, centre + 10, rank, rank, 40, provisional)

    solid = [row("a", 1, False), row("b", 2, False), row("c", 3, False)]
    assert settled(solid) is None
    early_last = [*solid[:2], row("c", 3, True)]
    reason = settled(early_last)
    assert reason is not None and "c has too few comparisons" in reason, reason
    assert settled(early_last, settle_top=1) is None  # c is neither the top nor below it
    assert settled(early_last, settle_top=2) is not None
