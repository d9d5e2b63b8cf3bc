"""People in the arena, end to end (issue 32): `arena dashboard --play` as an organiser runs
it (the bundled judge, the default models and opponents), a person plays three matches in a
real browser, breaks a rule once and is told why, and finds their rating on the dashboard's
Leaderboard with a "person" mark, the number the play page showed. Each page state (join,
setup, turn, failed rule, result, queue) is photographed at desktop and phone widths
(build/screenshots/play-<state>-<width>.png), and at phone width no state is wider than the
screen."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from arena.lang.builtins import words
from arena.storage import Store
from arena.storage.queries import stored_matches
from tests.browser.dashboard_server import (
    CHROMIUM_ARGS,
    ROOT,
    SCREENSHOTS,
    chromium_path,
    free_port,
)

playwright_api = pytest.importorskip("playwright.sync_api")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.torch,  # the bundled judge and the hf:bundled model
    pytest.mark.skipif(chromium_path() is None, reason="chromium-headless-shell not installed"),
]
WAIT_MS = 240_000  # the bundled judge on a busy CPU; the models play after each match
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
START_LIMIT_S = 120.0


def _up(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The dashboard and its play page, as `arena dashboard --play` starts them."""
    folder = tmp_path_factory.mktemp("ladder")
    db = f"sqlite:///{folder / 'arena.db'}"
    Store.open(db).close()
    port, play_port = free_port(), free_port()
    log = (folder / "arena.log").open("w")
    child = subprocess.Popen(
        [sys.executable, "-m", "arena", "dashboard", "--play", "--db", db, "--port", str(port),
         "--play-port", str(play_port), "--people", str(folder / "people.json")],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=log,
        stderr=subprocess.STDOUT, start_new_session=True,
    )
    urls = {"db": db, "dashboard": f"http://127.0.0.1:{port}",
            "play": f"http://127.0.0.1:{play_port}"}
    try:
        deadline = time.monotonic() + START_LIMIT_S
        while not (_up(urls["play"] + "/") and _up(urls["dashboard"] + "/_stcore/health")):
            assert child.poll() is None, (folder / "arena.log").read_text()
            assert time.monotonic() < deadline, "arena dashboard --play did not start"
            time.sleep(0.5)
        yield urls
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGTERM)
        try:
            child.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        log.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def shoot(page: Any, state: str) -> None:
    """The page in `state` at desktop and phone widths; at phone width nothing is wider
    than the screen (no sideways scrolling to read a move or a rule)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        page.wait_for_timeout(200)
        page.screenshot(path=str(SCREENSHOTS / f"play-{state}-{name}.png"), full_page=True)
        if name == "phone":
            wide = page.evaluate("() => document.documentElement.scrollWidth")
            assert wide <= PHONE["width"], f"{state}: {wide}px wide at phone width"
    page.set_viewport_size(DESKTOP)


def ladder_now(db: str) -> list[Any]:
    """The play ladder's stored matches."""
    store = Store.open(db)
    try:
        return stored_matches(store.engine, "play")
    finally:
        store.close()


def rated_matches(db: str) -> int:
    """How many matches the ladder's latest rating snapshot rates (0: none yet)."""
    store = Store.open(db)
    try:
        latest = store.rating_snapshots("play", limit=1)
    finally:
        store.close()
    return int(latest[0].payload.get("matches", 0)) if latest else 0


def bits_shown(text: str) -> list[str]:
    """Every score the page shows in bits (a number followed by "bits")."""
    return re.findall(r"(-?\d+(?:\.\d+)?) bits", text)


def play(page: Any, move: str) -> None:
    box = page.wait_for_selector("#turn:not([hidden]) textarea.move", timeout=WAIT_MS)
    box.fill(move)
    playwright_api.expect(page.locator("#turn .count")).to_contain_text("/", timeout=WAIT_MS)
    page.click("#send-button")


def start(page: Any, game: str, role: str, others: dict[str, str], rounds: int = 1) -> None:
    page.select_option("#game", game)
    page.click("#check-button")
    page.wait_for_selector("#start-button:not([disabled])", timeout=WAIT_MS)
    page.select_option("#role", role)
    for other, spec in others.items():
        page.select_option(f"select.other[data-role='{other}']", spec)
    page.fill("#rounds", str(rounds))
    page.click("#start-button")


def test_a_person_is_rated_beside_the_models_after_three_matches(
        arena: dict[str, str], browser: Any) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(arena["play"] + "/")
        assert page.is_hidden("#token-box")  # a loopback server needs no token
        shoot(page, "join")

        page.fill("#person", "ada")
        page.click("#join-button")
        page.wait_for_selector("#setup:not([hidden])", timeout=WAIT_MS)
        # the way back to the dashboard: its Leaderboard of this ladder
        board = page.get_attribute("#nav-leaderboard", "href")
        assert board == arena["dashboard"] + "/leaderboard?tournament=play"
        page.select_option("#game", "single_text")
        page.click("#check-button")
        page.wait_for_selector("#rules-box:not([hidden]) .rules", timeout=WAIT_MS)
        rules = page.inner_text("#rules")
        assert "Sum up the story in 10 tokens" in rules  # the header's about line
        assert "note" not in rules.lower() and "XGL.md" not in rules  # no developer notes
        shoot(page, "setup")

        # match 1: two rounds of single_text, a broken rule explained, then the result
        page.fill("#rounds", "2")
        page.click("#start-button")
        page.wait_for_selector("#turn:not([hidden]) textarea.move", timeout=WAIT_MS)
        story = page.inner_text("#seen .value")
        assert len(words(story)) >= 10, story  # the bundled judge's story: words to read
        assert "round 1 of 2" in page.inner_text("#turn-meta")
        shoot(page, "turn")
        shared = next(w for w in words(story) if len(w) >= 4 and w.isalpha())
        play(page, f"{shared} zebra")
        page.wait_for_selector("#failed:not([hidden])", timeout=WAIT_MS)
        why = page.inner_text("#failed")
        assert "common_word_set" in why and f"'{shared}'" in why and "shares" in why
        shoot(page, "failed")
        play(page, "zebra quantum xylophone")
        play(page, "quartz jigsaw vortex")  # round 2
        page.wait_for_selector("#feedback .done", timeout=WAIT_MS)
        playwright_api.expect(page.locator("#rating")).to_contain_text(
            "comparison", timeout=WAIT_MS)
        shoot(page, "result")

        # matches 2 and 3 waiting together: the queue says which is which
        start(page, "describe_to_partner", "bob", {"alice": "hf:bundled"})
        page.wait_for_selector("#turn:not([hidden])", timeout=WAIT_MS)
        start(page, "single_text", "black", {})
        playwright_api.expect(page.locator("#queue li")).to_have_count(2, timeout=WAIT_MS)
        items = page.locator("#queue li").all_inner_texts()
        assert len(set(items)) == 2, items  # no item twice
        assert any("vs alice: hf:bundled" in i and "round 1/1" in i and "left" in i
                   for i in items), items
        shoot(page, "queue")
        # words no story holds: single_text refuses a move that shares one with its story
        play(page, "xylophone quasar zephyr")
        play(page, "quokka nebula zircon")
        playwright_api.expect(page.locator("#feedback .done")).to_have_count(3, timeout=WAIT_MS)
        page.wait_for_function(
            "() => /from [3-9]\\d* comparisons|from \\d\\d+ comparisons/"
            ".test(document.querySelector('#rating').textContent)", timeout=WAIT_MS)
        text = page.inner_text("main")
        shown_bits = bits_shown(text)
        assert shown_bits and not [b for b in shown_bits if not re.fullmatch(r"-?\d+\.\d\d", b)]
        cards = page.locator("#feedback .match-card .best").all_inner_texts()
        assert len(cards) == 3 and all(c.endswith(" bits") for c in cards)  # per match
        # the models play each of the person's maps after the match: once all have, the
        # page, opened again, shows the final rating
        deadline = time.monotonic() + WAIT_MS / 1000
        while rated_matches(arena["db"]) < 3 * 4 and time.monotonic() < deadline:
            time.sleep(1.0)
        page.reload()  # a returning person: the browser remembers the name and its secret
        playwright_api.expect(page.locator("#person")).to_have_value("ada", timeout=WAIT_MS)
        page.click("#join-button")
        playwright_api.expect(page.locator("#rating")).to_contain_text(
            "comparison", timeout=WAIT_MS)
        shown = page.inner_text("#rating")
        rating = re.match(r"(-?\d+) \(95% interval (-?\d+) to (-?\d+)\)", shown)
        assert rating is not None, shown
        assert not errors
    finally:
        context.close()

    # the Leaderboard of the ladder, with ada marked as a person, at the page's rating
    ladder = ladder_now(arena["db"])
    mine = [m for m in ladder if any(s.participant == "human-ada" for s in m.seats)]
    assert len(mine) == 3 and len(ladder) == 3 * 4  # each map also played by the 3 models
    dash = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        board_page = dash.new_page()
        board_page.goto(arena["dashboard"] + "/leaderboard?tournament=play")
        caption = board_page.get_by_text("👤 person:")
        playwright_api.expect(caption).to_contain_text("human-ada", timeout=WAIT_MS)
        assert f"human-ada {rating.group(1)} [{rating.group(2)}, {rating.group(3)}]" in (
            caption.inner_text())
        play_entry = board_page.get_by_role("link", name="Play", exact=True)
        assert play_entry.get_attribute("href") == arena["play"] + "/"
        board_page.wait_for_timeout(1500)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        board_page.screenshot(path=str(SCREENSHOTS / "play-leaderboard-desktop.png"),
                              full_page=True)
    finally:
        dash.close()

