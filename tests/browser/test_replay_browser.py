"""The replay in a real browser (Playwright + chromium-headless-shell, `arena dashboard` on
loopback): as bob in describe_to_partner no word of the story bob never saw reaches the
browser at all (page HTML and every websocket frame); a short key in the URL opens its
replay; the judged text reads as shaded, escaped text with a gain/loss legend."""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Iterator

import pytest

from arena.storage.match_keys import short_key
from tests.browser.dashboard_server import CHROMIUM_ARGS, chromium_path, serve_dashboard
from tests.browser.test_dashboard_browser import Watched
from tests.dashboard import partners_db

playwright_api = pytest.importorskip("playwright.sync_api")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(chromium_path() is None, reason="chromium-headless-shell not installed"),
]


@pytest.fixture(scope="module")
def partners(tmp_path_factory: pytest.TempPathFactory) -> str:
    return partners_db.build(tmp_path_factory.mktemp("partners-browser-db"))


@pytest.fixture(scope="module")
def dashboard(partners: str) -> Iterator[str]:
    with serve_dashboard(partners) as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with playwright_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def watched(browser: object) -> Iterator[Watched]:
    page = Watched(browser)
    yield page
    page.close()


def words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]{4,}", text)}


def everything_received(watched: Watched) -> str:
    """The page's HTML and every websocket frame the server sent (tables' data included)."""
    frames = b"".join(watched.received).decode("latin-1")
    return str(watched.page.content()) + "\n" + frames


def visit(watched: Watched, url: str) -> str:
    watched.received.clear()
    watched.open(url)
    watched.check_clean(url)
    return everything_received(watched)


def test_as_bob_no_word_of_the_hidden_story_reaches_the_browser(
        dashboard: str, partners: str, watched: Watched) -> None:
    key, events = partners_db.first_match(partners, "describe_to_partner", "bob", "mallory")
    other, _ = partners_db.first_match(partners, "describe_to_partner", "bob", "mallory",
                                      skip=1)
    story = str(next(e.values["s"] for e in events if e.type == "assign"))
    shown = " ".join(v for e in events if e.player == "bob"
                     and e.type in ("reveal", "elicit_response") for v in e.values.values())
    interface = visit(watched, f"{dashboard}/replay?match={short_key(other)}&seat=bob").lower()
    # story words bob never saw, matched as substrings (frames hold table cells back to back)
    unseen = {w for w in words(story) if w not in (shown.lower() + interface)}
    assert len(unseen) >= 5, unseen
    referee = visit(watched, f"{dashboard}/replay?match={short_key(key)}").lower()
    assert all(w in referee for w in unseen)  # the referee view reads the story
    page = visit(watched, f"{dashboard}/replay?match={short_key(key)}&seat=bob").lower()
    assert not sorted(w for w in unseen if w in page), "story words reached bob's page"
    watched.page.get_by_text("Map and code").first.click()
    watched.settle()
    after = everything_received(watched).lower()
    assert not sorted(w for w in unseen if w in after)
    watched.screenshot("replay-as-bob")


def test_a_short_key_in_the_url_opens_its_replay(dashboard: str, partners: str,
                                                 watched: Watched) -> None:
    key, _ = partners_db.first_match(partners, "describe_to_partner", "alice")
    watched.open(f"{dashboard}/replay?match={short_key(key)}")
    watched.check_clean("replay by key")
    picker = watched.page.locator('[data-testid="stSelectbox"]').filter(has_text="Match").first
    label = picker.locator("input").first.input_value()
    assert label.startswith(f"{short_key(key)} · describe_to_partner · alice: ")
    assert "bob: " in label and "round(s)" in label
    assert f"match={short_key(key)}" in watched.page.url


def test_the_judged_text_reads_as_escaped_shaded_text_with_a_legend(
        dashboard: str, partners: str, watched: Watched) -> None:
    key, events = partners_db.first_match(partners, "echo", participant="mallory")
    watched.open(f"{dashboard}/replay?match={short_key(key)}&seat=black")
    watched.check_clean("reading")
    page = watched.page
    reading = page.locator(".xa-reading").first
    # the hostile move is text: no script ran, no element was made of it
    assert reading.inner_text().endswith(partners_db.HOSTILE_MOVE)
    assert page.locator(".xa-reading script, .xa-reading b").count() == 0
    assert watched.dialogs == []
    tokens = page.locator(".xa-token")
    term = next(e for e in events if e.type == "reward").terms[0]
    assert tokens.count() == len(term.tokens)
    assert "bits for black" in (tokens.nth(3).get_attribute("title") or "")
    # tokens flow as text: several per line, not one cell per grid column
    tops = {round(tokens.nth(i).bounding_box()["y"]) for i in range(tokens.count())}
    assert len(tops) < tokens.count() / 3
    legend = page.locator(".xa-legend").first
    assert "loss for black" in legend.inner_text() and "gain for black" in legend.inner_text()
    fits = page.evaluate("() => { const e = document.querySelector('.xa-legend');"
                         " return e.scrollWidth <= e.clientWidth + 1; }")
    assert fits, "the legend is cut off"
    watched.screenshot("replay-reading")


def _in_flight(url: str, texts: list[str]) -> None:
    """The heartbeat of a run whose match 'follow-me' has played `texts` so far (what the
    executor writes at each beat: schema v9's live_matches.events_json)."""
    from datetime import UTC, datetime

    from arena.events import EVENT_ADAPTER
    from arena.storage import Store
    from arena.storage.live import MatchInFlight, RunProgress, write_live

    store = Store.open(url)
    try:
        with store.engine.connect() as conn:
            run_id, tournament_id = conn.exec_driver_sql(
                "SELECT id, tournament_id FROM runs ORDER BY id DESC LIMIT 1").one()
        moves = tuple(EVENT_ADAPTER.validate_python({
            "type": "elicit_response", "round": i + 1, "line": 2, "player": "black",
            "cut": False, "values": {"t": text}}) for i, text in enumerate(texts))
        write_live(store.engine, RunProgress(run_id=run_id, tournament_id=tournament_id,
                                             status="running", total=9, done_before=8),
                   [MatchInFlight(run_id=run_id, key="follow-me", game="condense",
                                  seats=(("black", "alpha"),), round=max(len(texts), 1),
                                  rounds=3, started_at=datetime.now(UTC), events=moves)])
    finally:
        store.close()


def _until_received(watched: Watched, text: str, limit_s: float = 90.0) -> bool:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if text.encode() in b"".join(watched.received):
            return True
        watched.page.wait_for_timeout(250)
    return False


def test_the_follow_view_shows_each_move_of_a_match_in_flight_as_it_is_played(
        dashboard: str, partners: str, watched: Watched) -> None:
    """Issue 18, Replay as reading: opened on a match still being played (`?key=`), the
    Replay shows its moves move by move, from its live row, without the page being
    reloaded and before the match is stored."""
    played = ["first quokka move", "second pangolin move", "third axolotl move"]
    _in_flight(partners, [])
    try:
        watched.open(f"{dashboard}/replay?key=follow-me")
        watched.check_clean("follow view")
        watched.page.evaluate("window.__sameDocument = 'yes'")  # gone on a reload
        body = watched.page.inner_text("body")
        assert "This match is being played" in body and "No move played yet" in body
        for n in range(1, len(played) + 1):
            watched.received.clear()
            _in_flight(partners, played[:n])
            # The view polls every 2 s; its tables come as websocket frames (the grid is
            # drawn on a canvas, out of innerText). A generous bound, not a fixed sleep.
            assert _until_received(watched, played[n - 1]), f"move {n} never shown"
            frames = b"".join(watched.received).decode("utf-8", "replace")
            assert all(text in frames for text in played[:n]), n  # the moves so far
        assert watched.page.evaluate("window.__sameDocument") == "yes"
        watched.check_clean("follow view after three moves")
        watched.screenshot("replay-follow-in-flight")
    finally:
        from sqlalchemy import delete
        from sqlmodel import col

        from arena.storage import Store
        from arena.storage.tables import LiveMatch

        store = Store.open(partners)
        try:
            with store.engine.begin() as conn:
                conn.execute(delete(LiveMatch).where(col(LiveMatch.key) == "follow-me"))
        finally:
            store.close()
    with sqlite3.connect(partners.removeprefix("sqlite:///")) as conn:  # never stored
        assert conn.execute("SELECT count(*) FROM matches WHERE key = 'follow-me'").fetchone() == (0,)
