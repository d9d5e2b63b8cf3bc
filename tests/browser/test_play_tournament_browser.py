"""Tournaments with `human:web` entrants, run by the play server: the person's match waits in
their queue on the page while the others play; the tournament finishes once the browser has
played it (joining from the invite link the server printed for her); a person who never
answers forfeits on the file's move timeout, cleanly."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.storage import Store
from arena.storage.queries import stored_matches
from tests.browser.dashboard_server import CHROMIUM_ARGS, chromium_path
from tests.browser.play_server import db_url, invites, serve_play
from tests.browser.test_play_browser import WAIT_MS, Seat

playwright_api = pytest.importorskip("playwright.sync_api")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(chromium_path() is None, reason="chromium-headless-shell not installed"),
]

TOURNAMENT = """
name = "{name}"
mode = "eval"
judge = "ngram"
maps = 1
move_timeout = {timeout}
move_retries = 0

[[participants]]
name = "{person}"
player = "human:web?name={person}"

[[participants]]
name = "rnd"
player = "random?words=3"

[[games]]
game = "single_text"
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def matches_of(db: str, name: str) -> list[Any]:
    store = Store.open(db)
    try:
        return stored_matches(store.engine, name)
    finally:
        store.close()


def wait_for_matches(db: str, name: str, count: int, limit_s: float = 90.0) -> list[Any]:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        found = matches_of(db, name)
        if len(found) >= count:
            return found
        time.sleep(0.5)
    raise AssertionError(f"tournament {name} stored {len(matches_of(db, name))} of {count}")


def test_a_human_entrant_plays_from_the_queue_and_a_silent_one_forfeits(
        browser: Any, tmp_path: Path) -> None:
    played = tmp_path / "played.toml"
    played.write_text(TOURNAMENT.format(name="humans-play", timeout=300, person="ada"))
    silent = tmp_path / "silent.toml"
    silent.write_text(TOURNAMENT.format(name="humans-silent", timeout=2, person="bea"))
    db = db_url(tmp_path)
    with serve_play(db, ["--tournament", str(played), "--tournament", str(silent)]) as base:
        # bea never comes: her move times out after 2 s and she forfeits like any player
        (forfeited,) = [m for m in wait_for_matches(db, "humans-silent", 2)
                        if any(s.participant == "bea" for s in m.seats)]
        (bea,) = [s for s in forfeited.seats if s.participant == "bea"]
        assert forfeited.status == "done" and bea.forfeit and bea.best is None
        # the random entrant's match of ada's tournament did not wait for ada
        others = wait_for_matches(db, "humans-play", 1)
        assert [m.seats[0].participant for m in others] == ["rnd"]
        links = invites(db, base)  # each entrant's own link, printed once at start
        assert set(links) == {"ada", "bea"}
        seat = Seat(browser, base, "ada", invite=links["ada"])
        try:
            playwright_api.expect(seat.page.locator("#queue li")).to_contain_text(
                "single_text as black", timeout=WAIT_MS)
            seat.play("zebra quantum xylophone")
            playwright_api.expect(seat.page.locator("#feedback .done")).to_contain_text(
                "humans-play", timeout=WAIT_MS)
            assert seat.page.locator("#queue li").count() == 0
            assert not seat.errors
        finally:
            seat.close()
    done = matches_of(db, "humans-play")
    assert len(done) == 2 and all(m.status == "done" for m in done)
    (mine,) = [m for m in done if m.seats[0].participant == "ada"]
    assert not mine.seats[0].forfeit and mine.seats[0].best is not None
