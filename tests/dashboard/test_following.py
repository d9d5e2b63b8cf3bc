"""The dashboard follows the latest (issue 30, item 4): with no snapshot chosen every page
shows the latest board (and the link pins none); a chosen older snapshot says so; a page
asked for a tournament shows that one, empty before its first match, then its matches; a
run of another tournament is announced, never switched to; runs and snapshots are numbered
within their tournament. (The page left open through a whole run: tests/browser.)"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

from arena.dashboard.live_board import live_board
from arena.storage import Store
from arena.storage.live import RunProgress, write_live
from arena.storage.read_model import ReadModel
from arena.tournaments.services.run_config import run_file
from tests.dashboard.conftest import OpenApp, no_exception
from tests.dashboard.test_live import copy_db
from tests.dashboard.test_live_leaderboard import _late_match
from tests.dashboard.test_pages import PAGES
from tests.tournaments import arena_fixtures as fx

LATER = """
name = "later"
judge = "ngram"
maps = 1

[[participants]]
name = "gamma"
player = "random?words=3"

[[participants]]
name = "delta"
player = "sleepy?words=5"

[[games]]
game = "condense.xgl"
"""


def _info(at: object) -> str:
    return "\n".join(i.value for i in at.info)  # type: ignore[attr-defined]


def _running(url: str, tournament: str) -> int:
    """Write a running heartbeat for the latest run of `tournament`; its database id."""
    store = Store.open(url)
    try:
        with store.engine.connect() as conn:
            run_id, tournament_id = conn.exec_driver_sql(
                "SELECT r.id, r.tournament_id FROM runs r JOIN tournaments t ON t.id = "
                f"r.tournament_id WHERE t.name = '{tournament}' ORDER BY r.id DESC LIMIT 1"
            ).one()
        write_live(store.engine, RunProgress(
            run_id=run_id, tournament_id=tournament_id, status="running", total=4,
            done_before=2, done=1, started_at=datetime.now(UTC)))
    finally:
        store.close()
    return int(run_id)


def test_the_leaderboard_follows_new_matches_and_its_link_pins_no_snapshot(
    open_app: OpenApp, arena_db: str, tmp_path: Path
) -> None:
    url = copy_db(arena_db, tmp_path)
    at = open_app("views/leaderboard.py", {"tournament": "nightly"}, url=url)
    no_exception(at)
    assert at.selectbox(key="f_snapshot").value is None and "snapshot" not in at.query_params
    assert any("Ratings: snapshot #2 of 30 matches" in c.value for c in at.caption)
    _late_match(url, "latecomer", 1e6)  # stored while the page is open
    at.run()  # what the sidebar's watcher does when the data moved
    no_exception(at)
    board = at.dataframe[0].value.set_index("participant")
    assert board["rating"].idxmax() == "latecomer"
    assert any("computed now from the 31 stored matches" in c.value for c in at.caption)
    reader = ReadModel.open(url)
    try:
        expected = live_board(reader, "nightly").set_index("participant")
    finally:
        reader.close()
    assert list(board["rating"]) == list(expected["rating"])
    assert "snapshot" not in at.query_params and not _info(at).startswith("You are viewing")


@pytest.mark.parametrize("page", ["views/pairwise.py", "views/participant.py",
                                  "views/ratings_over_time.py"])
def test_pages_that_show_ratings_say_when_they_show_an_older_snapshot(
    open_app: OpenApp, page: str
) -> None:
    at = open_app(page, {"tournament": "nightly", "snapshot": "1"})
    no_exception(at)
    assert at.selectbox(key="f_snapshot").value == 1
    assert "You are viewing snapshot #1 of 15 matches; 15 newer matches." in _info(at)
    latest = open_app(page, {"tournament": "nightly"})
    assert "You are viewing" not in _info(latest)


def test_the_participant_page_shows_the_latest_rating(open_app: OpenApp) -> None:
    at = open_app("views/participant.py", {"tournament": "nightly", "name": "alpha"})
    rating = next(m for m in at.metric if m.label == "Rating")
    older = open_app("views/participant.py", {"tournament": "nightly", "name": "alpha",
                                              "snapshot": "1"})
    assert "snapshot #2" in (rating.help or "")
    assert "snapshot #1" in (next(m for m in older.metric if m.label == "Rating").help or "")


@pytest.mark.parametrize("page", sorted(PAGES))
def test_a_tournament_asked_for_before_its_first_match_is_shown_empty(
    open_app: OpenApp, page: str
) -> None:
    at = open_app(page, {"tournament": "later"})
    no_exception(at)
    assert at.selectbox(key="f_tournament").value == "later"
    assert at.query_params["tournament"] == "later"
    assert any("No match of later is stored yet" in c.value for c in at.sidebar.caption)
    if page == "views/leaderboard.py":
        assert "No match of tournament later is stored yet" in _info(at)


def test_then_its_matches_appear_without_the_selector_moving(
    open_app: OpenApp, arena_db: str, tmp_path: Path
) -> None:
    url = copy_db(arena_db, tmp_path)
    at = open_app("views/leaderboard.py", {"tournament": "later"}, url=url)
    assert "No match of tournament later is stored yet" in _info(at)
    path = fx.tournament_file(tmp_path, LATER, games=["condense.xgl"])
    asyncio.run(run_file(path, db=url, registry=fx.registry()))  # no snapshot: rated now
    at.run()
    no_exception(at)
    assert at.selectbox(key="f_tournament").value == "later"
    assert set(at.dataframe[0].value["participant"]) == {"gamma", "delta"}
    assert not [c for c in at.sidebar.caption if "is stored yet" in c.value]


def test_a_run_elsewhere_is_announced_not_switched_to(
    open_app: OpenApp, arena_db: str, tmp_path: Path
) -> None:
    url = copy_db(arena_db, tmp_path)
    _running(url, "duel-cup")  # the database's run 3, duel-cup's first
    at = open_app("views/leaderboard.py", {"tournament": "nightly"}, url=url)
    no_exception(at)
    assert at.selectbox(key="f_tournament").value == "nightly"
    said = [i.value for i in at.sidebar.info]
    assert "Run 1 of duel\\-cup is in progress (3/4 matches)." in said
    assert not any(w.value.startswith("Provisional") for w in at.warning)  # not nightly's run
    at.run()
    assert at.selectbox(key="f_tournament").value == "nightly"
    at.query_params["tournament"] = "duel-cup"  # the announcement's link, followed
    at.run()
    no_exception(at)
    assert at.selectbox(key="f_tournament").value == "duel-cup"
    assert any(w.value.startswith("Provisional: run 1 of duel\\-cup is in progress")
               for w in at.warning)


def test_runs_are_numbered_within_their_tournament(
    open_app: OpenApp, arena_db: str, tmp_path: Path
) -> None:
    url = copy_db(arena_db, tmp_path)
    _running(url, "duel-cup")
    live = open_app("views/live.py", {"tournament": "nightly"}, url=url)
    assert "Run 1 of duel-cup on " in "\n".join(t.value for t in live.text)
    page = open_app("views/tournaments.py", {"tournament": "nightly"}, url=url)
    runs = next(d.value for d in page.dataframe if "to play at start" in d.value.columns
                or "pending" in d.value.columns)
    assert sorted(runs["run"]) == [1, 2] and "run_id" not in runs


def test_a_scheduled_run_s_run_and_snapshot_are_numbered_within_their_tournament(
    open_app: OpenApp, arena_db: str, tmp_path: Path
) -> None:
    """A scheduled run of duel-cup (its run 2 and snapshot #2, though the database's fourth
    run and snapshot) is shown so on the schedules page."""
    import shutil

    from arena.tournaments.services.recurring.runner import MANUAL, run_schedule
    from arena.tournaments.services.recurring.schedules import add_schedule

    source = Path(arena_db.removeprefix("sqlite:///"))
    for name in ("arena.db", "duel.toml", "zerosum.xgl"):
        shutil.copy(source.parent / name, tmp_path / name)
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store.open(url)
    try:
        add_schedule(store, tmp_path / "duel.toml", every=3600, name="duel-again",
                     registry=fx.registry())
        done = asyncio.run(run_schedule(store, "duel-again", registry=fx.registry(),
                                        owner="me", trigger=MANUAL))
        assert done is not None and done.status == "done" and done.snapshot_id == 4
        assert store.snapshot_number(done.snapshot_id) == 2  # what `run-now` prints
    finally:
        store.close()
    at = open_app("views/tournaments.py", {"tournament": "duel-cup"}, url=url)
    no_exception(at)
    runs = next(d.value for d in at.dataframe if "trigger" in d.value.columns)
    row = runs.iloc[0]
    assert (row["tournament"], row["tournament_run"], row["snapshot"]) == ("duel-cup", 2, 2)


def test_a_mid_run_note_says_how_far_the_run_is_and_what_its_intervals_are_worth() -> None:
    from arena.dashboard.board import MIDRUN_COVERAGE, progress_note

    early, later = progress_note("t", 2, 10, 80), progress_note("t", 2, 40, 80)
    assert early.startswith("Provisional: run 2 of t is in progress (10/80 matches, 12%)")
    assert "Under a quarter of the run" in early and "Under a quarter" not in later
    assert "(40/80 matches, 50%)" in later and f"held the final rating in {MIDRUN_COVERAGE}" in later
    assert progress_note("t", 1, 0, 0).startswith("Provisional: run 1 of t is in progress (0/0")
    adaptive = progress_note("t", 2, 10, 80, adaptive=True)
    assert adaptive.startswith("Provisional: run 2 of t is in progress (10/80 matches, 12%)")
    assert "chosen adaptively" in adaptive and "balanced order" not in adaptive
