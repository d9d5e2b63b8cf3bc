"""The Live page says when a run is making its maps (issue 18, item 3): "preparing maps
k/N" instead of "0/N · ETA —", and no ETA until play begins."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from arena.storage import Store
from arena.storage.live import PLAYING, PREPARING, RunProgress, write_live
from tests.dashboard.conftest import OpenApp, no_exception
from tests.dashboard.test_live import copy_db


def test_a_run_making_its_maps_says_so(open_app: OpenApp, arena_db: str, tmp_path: Path) -> None:
    url = copy_db(arena_db, tmp_path)
    store = Store.open(url)
    try:
        with store.engine.connect() as conn:
            run_id, tournament_id = conn.exec_driver_sql(
                "SELECT r.id, r.tournament_id FROM runs r JOIN tournaments t ON "
                "t.id = r.tournament_id WHERE t.name = 'nightly' ORDER BY r.id DESC").first()
        write_live(store.engine, RunProgress(
            run_id=run_id, tournament_id=tournament_id, status="running", total=300,
            done_before=0, started_at=datetime.now(UTC), phase=PREPARING, maps_done=4,
            maps_total=30))
    finally:
        store.close()
    at = open_app(None, {"tournament": "nightly"}, url=url)
    no_exception(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Phase"] == "preparing maps 4/30"
    assert metrics["ETA"] == "after preparation" and metrics["Finished"] == "0/300"


def test_a_run_playing_while_maps_are_made_shows_both(open_app: OpenApp, arena_db: str,
                                                      tmp_path: Path) -> None:
    """Issue 35: matches of a ready map play while the other maps are made: the page shows
    the match rate and ETA, and how many maps are made."""
    url = copy_db(arena_db, tmp_path)
    store = Store.open(url)
    try:
        with store.engine.connect() as conn:
            run_id, tournament_id = conn.exec_driver_sql(
                "SELECT r.id, r.tournament_id FROM runs r JOIN tournaments t ON "
                "t.id = r.tournament_id WHERE t.name = 'nightly' ORDER BY r.id DESC").first()
        write_live(store.engine, RunProgress(
            run_id=run_id, tournament_id=tournament_id, status="running", total=300,
            done_before=0, done=12, matches_per_min=6.0, eta_s=2880.0,
            started_at=datetime.now(UTC), phase=PLAYING, maps_done=17, maps_total=30))
    finally:
        store.close()
    at = open_app(None, {"tournament": "nightly"}, url=url)
    no_exception(at)
    metrics = {m.label: m.value for m in at.metric}
    assert "Phase" not in metrics and metrics["ETA"] == "48m00s"
    bars = [e.proto.text for e in at.get("progress")]
    assert any("maps 17/30 made, the rest as play needs them" in text for text in bars), bars
