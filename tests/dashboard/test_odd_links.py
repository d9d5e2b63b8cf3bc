"""Odd query parameters in a link never show a traceback (issue 24, item 13): a
superscript or 5 000-digit round, dates out of order or at the calendar's ends, a huge
snapshot id. Each page still renders, and a page that fails shows one sentence."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import main as cli_main
from arena.dashboard.filters import filters_from_params, small_int
from arena.storage import sqlite_url
from tests.dashboard.conftest import OpenApp, no_exception
from tests.dashboard.test_pages import PAGES

ODD_LINKS = {
    "superscript round": {"round": "²"},
    "5000-digit round": {"round": "9" * 5_000},
    "since after until": {"since": "2026-03-01", "until": "2025-01-01"},
    "calendar ends": {"since": "0001-01-01", "until": "9999-12-31"},
    "huge snapshot": {"snapshot": "9" * 40},
}


@pytest.mark.parametrize("odd", sorted(ODD_LINKS))
@pytest.mark.parametrize("page", ["views/replay.py", "views/matches.py", "views/leaderboard.py",
                                  "views/xent_measure.py", "views/games.py"])
def test_odd_links_render_without_a_traceback(open_app: OpenApp, page: str, odd: str) -> None:
    at = open_app(page, {"tournament": "nightly", **ODD_LINKS[odd]})
    no_exception(at)
    assert at.title[0].value == PAGES[page]


# issue 29, item 10: ?match=<20 digits> overflowed SQLite's integer: a traceback with the
# server's paths on every page (the app reads ?match= before any page runs).
HOSTILE_MATCHES = {
    "20 digits": "9" * 20,
    "25 digits": "9" * 25,
    "19 digits": "9" * 19,
    "5000 digits": "9" * 5_000,
    "negative": "-1",
    "arabic digits": "١٢٣",
    "NUL": "12\x00",
    "control and RTL": "\u202eab\ncd",
    "LIKE wildcards": "%_%",
    "markup": "<b>x</b>",
}


@pytest.mark.parametrize("odd", sorted(HOSTILE_MATCHES))
@pytest.mark.parametrize("page", [None, "views/replay.py"])
def test_a_hostile_match_link_says_there_is_no_such_match(
        open_app: OpenApp, page: str | None, odd: str) -> None:
    at = open_app(page, {"tournament": "nightly", "match": HOSTILE_MATCHES[odd]})
    no_exception(at)
    if page is not None:
        (error,) = [e.value for e in at.error]
        assert error.startswith("There is no match with key") and len(error) < 400, error
        assert "Traceback" not in error and "Error" not in error


def test_link_values_are_read_safely() -> None:
    assert small_int("²") is None and small_int("9" * 5_000) is None and small_int("12") == 12
    window = filters_from_params({"since": "2026-03-01", "until": "2025-01-01"}, [])
    assert (str(window.since), str(window.until)) == ("2025-01-01", "2026-03-01")
    ends = filters_from_params({"since": "0001-01-01", "until": "9999-12-31"}, [])
    assert ends.since is None and ends.until is None


GAMEBENCH = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "gamebench_matches.json"


@pytest.fixture(scope="module")
def imported_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = sqlite_url(tmp_path_factory.mktemp("imported") / "gb.db")
    cli_main(["import", str(GAMEBENCH), "--format", "gamebench", "--tournament", "gb",
              "--db", url])
    return url


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_page_of_an_imported_tournament_renders(
    open_app: OpenApp, imported_db: str, page: str
) -> None:
    at = open_app(page, {"tournament": "gb"}, url=imported_db)
    no_exception(at)
    if page == "views/replay.py":  # an imported match opens by its key like any other
        assert not at.error, [e.value for e in at.error]  # was: "There is no match with key"
