"""The Scopes page: a grown scope's rounds, transfer covers (computed as `arena scope show`
does) and archive, with a hostile game name and game code shown as text; a database holding
only a scope (no tournament) still shows it."""

from __future__ import annotations

from pathlib import Path

from arena.storage import Store
from tests.dashboard.conftest import OpenApp, no_exception
from tests.storage.scope_rows import HOSTILE, grow_example

PAGE = "views/scopes.py"


def test_rounds_covers_and_archive_of_a_grown_scope(open_app: OpenApp, tmp_path: Path) -> None:
    url = str(tmp_path / "scope.db")
    store = Store.open(url)
    try:
        grow_example(store.engine)
    finally:
        store.close()
    at = open_app(PAGE, url=url)
    no_exception(at)
    assert not at.error
    assert at.title[0].value == "Scopes"
    listing, rounds, covers, eta_covers, archive = (d.value for d in at.dataframe)
    assert list(listing["scope"]) == ["grown"] and listing["games"][0] == 2
    assert list(rounds["step"]) == ["Σ_0", "Ω_0"]
    assert list(rounds["names"]) == ["alpha", HOSTILE]  # the name as text
    cover = dict(zip(covers["cover"], covers["value"], strict=True))
    # Δ_Σ0(Σ): min(V_alpha(alpha) = 1, V_alpha(hostile) = 0.4); with the rejected candidate
    # weighed: min(1, max(0.4, 1), max(0.95, 0.9)) = 0.95.
    assert cover["Δ_Σ0(Σ)"] == 0.4
    assert cover["Δ_Σ(Σ)"] == 1.0
    assert cover["Δ_Σ(candidates ∪ Σ)"] == 0.95
    # Def. 45: at eta 0.25 one game covers the scope (V_alpha(hostile) = 0.4)
    assert list(eta_covers["eta"]) == [0.25, 0.5, 0.75]
    assert eta_covers["games"][0] == 1 and eta_covers["cover"][0] in ("alpha", HOSTILE)
    assert list(eta_covers["games"]) == sorted(eta_covers["games"])  # larger eta, more games
    assert list(archive["in scope"]) == [True, True, False]
    assert list(archive["gamma"].fillna(-1)) == [-1, 0.4, 0.95]
    at.selectbox(key="s_game").set_value(HOSTILE).run()
    assert "<img src=x onerror=alert(1)>" in at.code[0].value  # shown as code, not HTML
    assert all(HOSTILE not in m.value for m in at.markdown)


def test_a_database_with_only_a_scope_shows_the_game_space_pages(
    open_app: OpenApp, tmp_path: Path
) -> None:
    url = str(tmp_path / "scope-only.db")
    store = Store.open(url)
    try:
        grow_example(store.engine)
    finally:
        store.close()
    at = open_app(url=url)
    no_exception(at)
    assert not at.error
    assert at.title[0].value == "Transfer"  # the first page a tournament-less database shows
    assert any("No transfer values stored yet" in i.value for i in at.info)
    scopes = open_app(PAGE, url=url)
    no_exception(scopes)
    assert scopes.title[0].value == "Scopes"


def test_the_page_says_how_to_grow_a_scope_when_there_is_none(open_app: OpenApp) -> None:
    at = open_app(PAGE, {"tournament": "nightly"})
    no_exception(at)
    assert any("arena scope grow" in i.value for i in at.info)
