"""Fixtures: one real tournament database per test session, and AppTest runs of the
dashboard over it (the database URL travels in XENT_ARENA_DB, as `arena dashboard` may
pass it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from arena.dashboard.ui import PAGE_FAILED
from tests.dashboard import fixture_db

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")
TIMEOUT_S = 60

OpenApp = Callable[..., AppTest]


@pytest.fixture(scope="session")
def arena_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    return fixture_db.build(tmp_path_factory.mktemp("dashboard-db"))


def run_app(url: str, page: str | None = None, params: Mapping[str, str] | None = None,
            monkeypatch: pytest.MonkeyPatch | None = None) -> AppTest:
    """The dashboard over `url`, run once, then switched to `page` (e.g. "views/replay.py")
    and run again, with `params` as the link's query parameters."""
    assert monkeypatch is not None
    monkeypatch.setenv("XENT_ARENA_DB", url)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    at.run()
    if page is not None:
        at.switch_page(page)
        at.run()
    return at


@pytest.fixture
def open_app(arena_db: str, monkeypatch: pytest.MonkeyPatch) -> OpenApp:
    def opener(page: str | None = None, params: Mapping[str, str] | None = None,
               url: str | None = None) -> AppTest:
        return run_app(url or arena_db, page, params, monkeypatch)

    return opener


def no_exception(at: AppTest) -> None:
    """No exception, neither raised nor caught by the app's net around each page."""
    assert not at.exception, [e.value for e in at.exception]
    caught = [e.value for e in at.error if PAGE_FAILED in e.value]
    assert not caught, caught
