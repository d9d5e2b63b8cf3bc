"""The dashboard in a real browser: `arena dashboard` on loopback over a real tournament's
database, every page of its navigation visited in headless Chromium, waiting for
Streamlit's script run to settle (it renders over a websocket after the load event), with
no exception element, no console error and a screenshot per page under build/screenshots/.
The Live page follows a tournament run in another process without reloading, and a
player's hostile moves render as text."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.browser import fixture_db
from tests.browser.dashboard_server import (
    CHROMIUM_ARGS,
    ROOT,
    SCREENSHOTS,
    chromium_path,
    serve_dashboard,
)

playwright_api = pytest.importorskip("playwright.sync_api")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(chromium_path() is None, reason="chromium-headless-shell not installed"),
]

SETTLE_LIMIT_MS = 60_000
# Opened at a page's own URL (/replay), Streamlit's frontend first looks for its server
# under that path (/replay/_stcore/health), gets 404, then finds it at the root: expected
# probes, not errors of the app.
STREAMLIT_PROBE = re.compile(r"/[^/]+/_stcore/(health|host-config)$")
NAV_LINKS = '[data-testid="stSidebarNavLink"], [data-testid="stTopNavLink"]'
# The script run is over (Streamlit marks its app root with the run's state), the websocket
# is connected, no skeleton or "running" icon is left, and charts and tables have drawn.
SETTLED = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app) return false;
    if (app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    if (app.getAttribute('data-test-connection-state') !== 'CONNECTED') return false;
    const pending = '[data-testid="stAppSkeleton"], [data-testid="stSkeleton"], '
        + '[data-testid="stStatusWidgetRunningIcon"]';
    if (document.querySelector(pending)) return false;
    const drawn = (selector) => Array.from(document.querySelectorAll(selector))
        .every(e => e.querySelector('canvas, svg'));
    if (!drawn('[data-testid="stVegaLiteChart"], .vega-embed')) return false;
    if (!drawn('[data-testid="stDataFrame"]')) return false;
    const main = document.querySelector('[data-testid="stMainBlockContainer"]');
    return !!main && main.querySelectorAll('[data-testid="stElementContainer"]').length > 0;
}"""


@pytest.fixture(scope="module")
def arena_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    return fixture_db.build(tmp_path_factory.mktemp("browser-db"))


@pytest.fixture(scope="module")
def dashboard(arena_db: str) -> Iterator[str]:
    with serve_dashboard(arena_db) as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with playwright_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Watched:
    """A page with its console errors, uncaught errors and dialogs recorded."""

    def __init__(self, browser: object) -> None:
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})  # type: ignore[attr-defined]
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.received: list[bytes] = []  # websocket frames from the server (the app's data)
        self.page.on("websocket", lambda ws: ws.on("framereceived", self._frame))
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

        def on_dialog(dialog: object) -> None:
            self.dialogs.append(dialog.message)  # type: ignore[attr-defined]
            dialog.dismiss()  # type: ignore[attr-defined]

        self.page.on("dialog", on_dialog)

    def _frame(self, payload: str | bytes) -> None:
        self.received.append(payload.encode() if isinstance(payload, str) else payload)

    def _console(self, message: object) -> None:
        if message.type != "error":  # type: ignore[attr-defined]
            return
        source = message.location.get("url", "")  # type: ignore[attr-defined]
        if STREAMLIT_PROBE.search(source):
            return
        self.errors.append(f"{message.text} ({source})")  # type: ignore[attr-defined]

    def open(self, url: str) -> None:
        self.page.goto(url)
        self.settle()

    def settle(self) -> None:
        self.page.wait_for_function(SETTLED, timeout=SETTLE_LIMIT_MS, polling=200)
        self.page.wait_for_timeout(500)  # a second run may start right after (query params)
        self.page.wait_for_function(SETTLED, timeout=SETTLE_LIMIT_MS, polling=200)

    def check_clean(self, what: str) -> None:
        exceptions = self.page.locator('[data-testid="stException"]')
        assert exceptions.count() == 0, f"{what}: {exceptions.first.inner_text()}"
        assert not self.errors, f"{what}: console errors {self.errors}"
        assert not self.dialogs, f"{what}: dialogs {self.dialogs}"

    def screenshot(self, name: str) -> Path:
        """The whole page: Streamlit scrolls inside its main area, so the viewport is made
        as tall as the content first."""
        height = self.page.evaluate(
            "() => Math.max(...Array.from(document.querySelectorAll("
            "'[data-testid=\"stMain\"], [data-testid=\"stMainBlockContainer\"]'))"
            ".map(e => e.scrollHeight), 800)"
        )
        self.page.set_viewport_size({"width": 1400, "height": min(int(height) + 120, 8000)})
        self.page.wait_for_timeout(300)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path))
        self.page.set_viewport_size({"width": 1400, "height": 1000})
        return path

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def watched(browser: object) -> Iterator[Watched]:
    page = Watched(browser)
    yield page
    page.close()


def _nav_links(watched: Watched) -> list[tuple[str, str]]:
    """(text, href) of the app's navigation links, in order."""
    found: list[list[str]] = watched.page.evaluate(
        f"() => Array.from(document.querySelectorAll('{NAV_LINKS}'))"
        ".map(a => [a.textContent || '', a.getAttribute('href') || ''])"
    )
    return [(text, href) for text, href in found]


def _slug(href: str) -> str:
    path = urlsplit(href).path.strip("/")
    return re.sub(r"[^a-z0-9_-]+", "-", path.lower()) or "home"


def test_every_page_renders_without_errors(dashboard: str, watched: Watched) -> None:
    watched.open(dashboard + "/")
    hrefs = list(dict.fromkeys(href for _, href in _nav_links(watched)))
    assert len(hrefs) >= 2, f"the navigation shows too few pages: {hrefs}"
    failures = []
    for href in hrefs:  # every page is visited and shot, then the failures are reported
        url = href if href.startswith("http") else dashboard + "/" + href.lstrip("/")
        watched.errors.clear()
        try:
            watched.open(url)
        except playwright_api.Error as error:
            failures.append(f"{url}: did not settle: {error}")
        shot = watched.screenshot(_slug(url))
        assert shot.stat().st_size > 10_000  # a rendered page, not a blank one
        try:
            watched.check_clean(url)
        except AssertionError as error:
            failures.append(str(error))
    assert not failures, "\n".join(failures)


def _finished(watched: Watched) -> list[tuple[int, int]]:
    """The Live page's "Finished" metrics as (finished, total), read in one go (the page
    redraws them while we look)."""
    texts = watched.page.evaluate(
        "() => Array.from(document.querySelectorAll('[data-testid=\"stMetric\"]'))"
        ".map(e => e.innerText)"
    )
    found = []
    for text in texts:
        match = re.search(r"Finished\s+(\d+)\s*/\s*(\d+)", text)
        if match:
            found.append((int(match[1]), int(match[2])))
    return found


def test_the_live_page_follows_a_run_in_another_process_without_reloading(
    dashboard: str, arena_db: str, watched: Watched, tmp_path: Path
) -> None:
    watched.open(dashboard + "/")
    links = _nav_links(watched)
    live = [href for text, href in links if text.strip().endswith("Live")]
    assert live, f"no Live page in the navigation: {links}"
    href = live[0]
    watched.open(href if href.startswith("http") else dashboard + "/" + href.lstrip("/"))
    watched.page.evaluate("window.__sameDocument = 'yes'")  # gone if the page reloads
    fixture_db.fx.write_games(tmp_path, ["condense.xgl", "duel.xgl"])
    path = tmp_path / "live.toml"
    path.write_text(fixture_db.LIVE_TOURNAMENT, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.tournaments.resume_child", str(path), arena_db],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    seen: list[int] = []
    try:
        deadline = time.monotonic() + 120  # bounds a hung test only
        while child.poll() is None and time.monotonic() < deadline:
            seen += [done for done, total in _finished(watched) if total == 12]
            watched.page.wait_for_timeout(300)
        _, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, err
    assert len(set(seen)) >= 2 and max(seen) > min(seen), f"the finished count did not rise: {seen}"
    assert seen == sorted(seen)
    assert watched.page.evaluate("window.__sameDocument") == "yes"
    watched.check_clean("live")
    watched.screenshot("live-after-run")


def _hostile_match(db: str) -> int:
    path = db.removeprefix("sqlite:///")
    with sqlite3.connect(path) as conn:
        row = conn.execute(
            "SELECT m.id FROM matches m JOIN seats s ON s.match_id = m.id "
            "JOIN participants p ON p.id = s.participant_id JOIN games g ON g.id = m.game_id "
            "WHERE p.name = 'mallory' AND g.name = 'open' ORDER BY m.id LIMIT 1"
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_hostile_moves_render_as_text_in_the_replay(dashboard: str, arena_db: str, watched: Watched) -> None:
    match = _hostile_match(arena_db)
    for query in (f"match={match}", f"match={match}&seat=black"):
        watched.open(f"{dashboard}/replay?{query}")
        watched.check_clean(f"replay {query}")
        page = watched.page
        assert page.locator('img[src="x"]').count() == 0
        assert page.locator('a[href^="https://evil.example"]').count() == 0
        assert page.evaluate("document.querySelectorAll('[onerror]').length") == 0
        html = page.content()
        assert "onerror=alert(1)>" not in html and 'href="https://evil.example' not in html
        # The moves did reach the page (as data: tables draw them as text on a canvas).
        sent = b"".join(watched.received)
        assert fixture_db.HTML_MOVE.encode() in sent and fixture_db.LINK_MOVE.encode() in sent
        watched.received.clear()
    watched.screenshot("replay-hostile")
    assert watched.dialogs == []


# Every visible page at its own address, with its title (a default page used to live only
# at the root, so /live said "Page not found"), and no Streamlit developer toolbar.
OWN_ADDRESSES = {
    "live": "Live",
    "leaderboard": "Leaderboard",
    "participant?name=alpha": "Participant",
    "pairwise": "Pairwise",
    "xent-measure": "Xent measure",
    "matches": "Matches",
    "tournaments": "Tournaments and schedules",
}


def test_every_page_opens_at_its_own_address_with_no_deploy_button(
    dashboard: str, watched: Watched
) -> None:
    for address, title in OWN_ADDRESSES.items():
        watched.open(f"{dashboard}/{address}")
        watched.check_clean(address)
        page = watched.page
        assert page.get_by_text("Page not found").count() == 0, address
        assert page.locator("h1").first.inner_text().strip() == title, address
        assert page.locator('[data-testid="stAppDeployButton"]').count() == 0, address
        assert page.get_by_role("button", name="Deploy").count() == 0, address
        if address.startswith("participant"):
            watched.screenshot("participant-alpha")
    watched.open(dashboard + "/")  # the bare address opens the Leaderboard (no run going)
    assert urlsplit(watched.page.url).path.rstrip("/").endswith("leaderboard")
    assert watched.page.locator("h1").first.inner_text().strip() == "Leaderboard"
