"""Issue 18's journeys in a real browser (headless Chromium on a real `arena dashboard`):

- the demo journey of a new user: `arena demo` in a fresh data directory, then `arena
  dashboard` with no option; the Leaderboard (its downloaded table) rates every demo
  participant;
- a live leaderboard: while a tournament runs in another process, the Leaderboard's match
  count and ratings move without the page being reloaded, marked provisional.
Screenshots go to build/screenshots/ like the other browser tests."""

from __future__ import annotations

import csv
import io
import os
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser import fixture_db
from tests.browser.dashboard_server import ROOT, chromium_path, serve_dashboard
from tests.browser.test_dashboard_browser import Watched, browser  # noqa: F401 (fixture)

playwright_api = pytest.importorskip("playwright.sync_api")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(chromium_path() is None, reason="chromium-headless-shell not installed"),
]

DEMO_PARTICIPANTS = {"random", "hf-bundled", "search"}
BUNDLED = ROOT / "judges" / "hf" / "bundled" / "model.safetensors"


@pytest.fixture
def watched(browser: object) -> Iterator[Watched]:  # noqa: F811
    page = Watched(browser)
    yield page
    page.close()


def _downloaded_board(watched: Watched) -> list[dict[str, str]]:
    """The Leaderboard's rows as its "Download CSV" button gives them."""
    with watched.page.expect_download(timeout=30_000) as info:
        watched.page.get_by_role("button", name="Download CSV").click()
    text = Path(info.value.path()).read_text(encoding="utf-8")
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    return list(csv.DictReader(io.StringIO(body)))


def _metric(watched: Watched, label: str) -> str | None:
    texts: list[str] = watched.page.evaluate(
        "() => Array.from(document.querySelectorAll('[data-testid=\"stMetric\"]'))"
        ".map(e => e.innerText)")
    for text in texts:
        lines = [t.strip() for t in text.splitlines() if t.strip()]
        if lines and lines[0] == label and len(lines) > 1:
            return lines[1]
    return None


@pytest.mark.skipif(not BUNDLED.is_file(), reason="the bundled model is not built")
def test_the_demo_then_the_dashboard_with_no_option_shows_every_participant_rated(
    watched: Watched, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "XENT_ARENA_DB"}
    env.update({"PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(tmp_path / "data"),
                "XDG_STATE_HOME": str(tmp_path / "state")})
    demo = subprocess.run(
        [sys.executable, "-m", "arena.cli", "demo", "--judge", "ngram", "--maps", "1",
         "--rounds", "1", "--budget", "4", "--no-progress"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False,
    )
    assert demo.returncode == 0, demo.stderr
    assert demo.stdout.strip().splitlines()[-1] == "Dashboard: arena dashboard"
    with serve_dashboard(None, env) as base:
        watched.open(base + "/leaderboard")
        watched.check_clean("leaderboard after the demo")
        page_text = watched.page.inner_text("body")
        assert "No rating snapshot" not in page_text and "No match of" not in page_text
        assert _metric(watched, "Participants") == str(len(DEMO_PARTICIPANTS))
        rows = _downloaded_board(watched)
        watched.screenshot("leaderboard-after-demo")
        watched.open(base + "/ratings-over-time")
        watched.check_clean("ratings over time after the demo")
        assert "No rating snapshots" not in watched.page.inner_text("body")
        watched.screenshot("ratings-over-time-after-demo")
    assert {r["participant"] for r in rows} == DEMO_PARTICIPANTS
    for row in rows:
        assert float(row["rating"]) == float(row["rating"])  # a number, not NaN
        assert float(row["ci_low"]) <= float(row["rating"]) <= float(row["ci_high"])


LIVE_BOARD = fixture_db.LIVE_TOURNAMENT.replace('name = "live"', 'name = "live-board"').replace(
    "maps = 2", "maps = 6")  # 36 matches, two at a time, 1.2 s a move: about 40 s


RUN_LIMIT_S = 600
SHOWN_LIMIT_S = 120


def _until_metric(watched: Watched, label: str, wanted: str) -> str | None:
    """The metric once it reads `wanted` (the page reloads itself every few seconds while
    it is behind the stored matches), or what it reads after `SHOWN_LIMIT_S`."""
    deadline = time.monotonic() + SHOWN_LIMIT_S
    shown = _metric(watched, label)
    while shown != wanted and time.monotonic() < deadline:
        watched.page.wait_for_timeout(500)
        shown = _metric(watched, label)
    return shown


def _tournament_exists(db: str, name: str) -> bool:
    with sqlite3.connect(db.removeprefix("sqlite:///")) as conn:
        found = conn.execute("SELECT 1 FROM matches m JOIN tournaments t ON t.id = "
                             "m.tournament_id WHERE t.name = ? LIMIT 1", (name,)).fetchone()
    return found is not None


def test_the_leaderboard_follows_a_run_in_another_process_without_reloading(
    watched: Watched, tmp_path: Path
) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    built = subprocess.run(  # in its own process: Playwright's loop runs in this thread
        [sys.executable, "-c", "import sys; from pathlib import Path; from tests.browser "
         "import fixture_db; print(fixture_db.build(Path(sys.argv[1])))", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=True,
    )
    db = built.stdout.strip().splitlines()[-1]
    path = tmp_path / "live_board.toml"
    path.write_text(LIVE_BOARD, encoding="utf-8")
    with serve_dashboard(db) as base:
        child = subprocess.Popen(
            [sys.executable, "-m", "tests.tournaments.resume_child", str(path), db],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        seen: list[int] = []
        provisional = False
        try:
            # Bounds a hung test only: under a heavy load the 40 s run has taken minutes.
            deadline = time.monotonic() + RUN_LIMIT_S
            while not _tournament_exists(db, "live-board") and time.monotonic() < deadline:
                time.sleep(0.2)
            watched.open(base + "/leaderboard?tournament=live-board")
            watched.page.evaluate("window.__sameDocument = 'yes'")  # gone on a reload
            while child.poll() is None and time.monotonic() < deadline:
                shown = _metric(watched, "Matches")
                if shown is not None and shown.isdigit():
                    seen.append(int(shown))
                text = watched.page.inner_text("body")
                provisional = provisional or bool(re.search(
                    r"Provisional: run \d+ of live-board is in progress", text))
                watched.page.wait_for_timeout(300)
            assert child.poll() is not None, f"the run did not end in {RUN_LIMIT_S} s: {seen}"
            _, err = child.communicate(timeout=60)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        assert child.returncode == 0, err
        final = _until_metric(watched, "Matches", "36")  # the reload after the final match
        watched.settle()
        assert watched.page.evaluate("window.__sameDocument") == "yes"
        watched.check_clean("live leaderboard")
        watched.screenshot("leaderboard-live-after-run")
    assert provisional, f"the ratings were not marked provisional during the run: {seen}"
    assert len(set(seen)) >= 2 and seen == sorted(seen), f"the match count did not rise: {seen}"
    assert final == "36", f"the board did not reach the run's end: {final}"
