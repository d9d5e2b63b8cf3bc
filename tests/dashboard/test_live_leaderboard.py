"""The Leaderboard follows the stored matches (issue 18, items 1 and 2): with no snapshot,
or matches stored after the latest one, it shows ratings computed from the stored matches
now (the same fit `arena ratings` makes, with intervals), a headline, and marks them
provisional while a run is going."""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from arena.dashboard.live_board import live_board
from arena.storage import Store
from arena.storage.live import RunProgress, write_live
from arena.storage.read_model import ReadModel
from arena.tournaments.records.rating_store import rating_rows
from tests.dashboard.conftest import OpenApp, no_exception
from tests.dashboard.test_live import copy_db


def _without_snapshots(url: str) -> None:
    with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
        conn.execute("DELETE FROM rating_snapshots")


def _done(url: str) -> int:
    with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
        row = conn.execute(
            "SELECT count(*) FROM matches m JOIN tournaments t ON t.id = m.tournament_id "
            "WHERE t.name = 'nightly' AND m.status = 'done'").fetchone()
    return int(row[0])


def test_without_a_snapshot_the_leaderboard_rates_the_stored_matches(
    open_app: OpenApp, arena_db: str, tmp_path: Path
) -> None:
    url = copy_db(arena_db, tmp_path)
    _without_snapshots(url)  # what `arena demo` used to leave: matches, no snapshot
    at = open_app("views/leaderboard.py", {"tournament": "nightly"}, url=url)
    no_exception(at)
    assert not any("No rating snapshot" in i.value for i in at.info)
    shown = " ".join(c.value for c in at.caption)
    assert f"computed now from the {_done(url)} stored matches" in shown
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Matches"] == str(_done(url)) and metrics["Judge"] == "ngram"
    assert metrics["Participants"] == "3" and metrics["Games"] == "3"
    assert re.fullmatch(r"[A-Z][a-z]{2} \d\d \d\d:\d\d", metrics["Last update (UTC)"])
    board = at.dataframe[0].value.set_index("participant")
    assert set(board.index) == {"alpha", "beta", "mallory"}
    assert ((board["ci_low"] <= board["rating"]) & (board["rating"] <= board["ci_high"])).all()
    assert any(e.label == "How to read this" for e in at.expander)


def test_the_live_board_is_the_fit_arena_ratings_makes(arena_db: str) -> None:
    reader = ReadModel.open(arena_db)
    try:
        live = live_board(reader, "nightly").set_index("participant")
        cli = {r["participant"]: r for r in rating_rows(Store(reader.engine), ["nightly"])}
    finally:
        reader.close()
    assert set(live.index) == set(cli)
    for name, row in cli.items():  # the point estimate is the same maximum-likelihood fit
        assert abs(live.loc[name, "rating"] - float(row["rating"])) < 1e-6
        assert live.loc[name, "n_comparisons"] == row["n_comparisons"]
        assert live.loc[name, "ci_low"] <= live.loc[name, "rating"] <= live.loc[name, "ci_high"]


def test_a_running_tournament_marks_the_ratings_provisional(
    open_app: OpenApp, arena_db: str, tmp_path: Path
) -> None:
    url = copy_db(arena_db, tmp_path)
    store = Store.open(url)
    try:
        with store.engine.connect() as conn:
            run_id, tournament_id = conn.exec_driver_sql(
                "SELECT r.id, r.tournament_id FROM runs r JOIN tournaments t ON "
                "t.id = r.tournament_id WHERE t.name = 'nightly' ORDER BY r.id DESC LIMIT 1").one()
        write_live(store.engine, RunProgress(
            run_id=run_id, tournament_id=tournament_id, status="running", total=40,
            done_before=20, done=3, started_at=datetime.now(UTC)))
    finally:
        store.close()
    at = open_app("views/leaderboard.py", {"tournament": "nightly"}, url=url)
    no_exception(at)
    said = [w.value for w in at.warning if w.value.startswith("Provisional")]
    assert said and said[0].startswith(f"Provisional: run {run_id} of nightly is in progress "
                                       "(23/40 matches, 57%)")
    # progress-aware (issue 30): what a mid-run board is worth, no early-run caveat past 1/4
    assert "balanced order" in said[0] and "Under a quarter" not in said[0]


def test_over_the_live_limit_the_latest_snapshot_is_shown_with_what_came_since(
    open_app: OpenApp, arena_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arena.dashboard.live_board

    url = copy_db(arena_db, tmp_path)
    with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:  # keep the first run's only
        conn.execute("DELETE FROM rating_snapshots WHERE id = (SELECT max(id) FROM "
                     "rating_snapshots WHERE tournament_id = (SELECT id FROM tournaments "
                     "WHERE name = 'nightly'))")
    monkeypatch.setattr(arena.dashboard.live_board, "LIVE_MAX_MATCHES", 1)
    at = open_app("views/leaderboard.py", {"tournament": "nightly"}, url=url)
    no_exception(at)
    shown = " ".join(c.value for c in at.caption)
    assert "Ratings: snapshot #1 of" in shown and "matches were stored since" in shown


def test_ratings_over_time_without_a_snapshot_says_what_stores_one(
    open_app: OpenApp, arena_db: str, tmp_path: Path
) -> None:
    url = copy_db(arena_db, tmp_path)
    _without_snapshots(url)
    at = open_app("views/ratings_over_time.py", {"tournament": "nightly"}, url=url)
    no_exception(at)
    said = " ".join(i.value for i in at.info)
    assert "No rating snapshot of tournament nightly is stored yet" in said
    assert "--snapshot" not in said  # an option no command has (issue 18, item 1)
    assert "`arena ratings --tournament NAME`" in said


def _late_match(url: str, name: str, score: float) -> None:
    """Store one more done match of nightly, played by a new participant `name`."""
    from arena.storage import MATCH_DONE, FinishedMatch, ParticipantInfo, SeatResult

    store = Store.open(url)
    try:
        with store.engine.connect() as conn:
            row = conn.exec_driver_sql(
                "SELECT m.tournament_id, m.run_id, m.game_id, m.map_id, m.judge_id, "
                "m.map_index, m.mode, m.main_role, m.rounds, m.dialect FROM matches m JOIN "
                "tournaments t ON t.id = m.tournament_id WHERE t.name = 'nightly' AND "
                "m.status = 'done' AND m.mode = 'eval' AND (SELECT COUNT(*) FROM seats s WHERE "
                "s.match_id = m.id) = 1 ORDER BY m.id LIMIT 1").one()  # no NPC to copy
        who = store.ensure_participant(ParticipantInfo(name, "random?words=9"))
        now = datetime.now(UTC)
        store.save_matches([FinishedMatch(
            key=f"late-{name}", tournament_id=row[0], run_id=row[1], game_id=row[2],
            map_id=row[3], judge_id=row[4], map_index=row[5], play_seed=1, mode=row[6],
            main_role=row[7], rounds=row[8], dialect=row[9], status=MATCH_DONE, error=None,
            started_at=now, finished_at=now,
            seats=(SeatResult(row[7], who, True, score, False, (score,) * row[8]),),
            events=())])
    finally:
        store.close()


def test_the_live_board_reads_new_matches_and_not_a_remade_database_s_old_ones(
    arena_db: str, tmp_path: Path
) -> None:
    """The live board keeps the records it has read (done matches never change): a match
    stored after a first call is rated by the next, and a database made anew at the same
    path is read anew (its match ids are the old ones, its matches are not)."""
    url = copy_db(arena_db, tmp_path)
    reader = ReadModel.open(url)
    try:
        first = live_board(reader, "nightly")
        _late_match(url, "latecomer", 1e6)
        board = live_board(reader, "nightly").set_index("participant")
        assert "latecomer" not in set(first["participant"]) and "latecomer" in board.index
        assert board["rating"].idxmax() == "latecomer"  # its score beats everyone's
    finally:
        reader.close()
    remade = Path(url.removeprefix("sqlite:///"))
    for path in (remade, Path(f"{remade}-wal"), Path(f"{remade}-shm")):
        path.unlink(missing_ok=True)
    copy_db(arena_db, tmp_path)  # the same path again, holding the original matches
    _late_match(url, "other", -1e6)  # the same id as latecomer's, another participant
    reader = ReadModel.open(url)
    try:
        board = live_board(reader, "nightly").set_index("participant")
    finally:
        reader.close()
    assert "latecomer" not in board.index and board["rating"].idxmin() == "other"
