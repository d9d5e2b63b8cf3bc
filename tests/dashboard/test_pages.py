"""Every page of the dashboard renders over a real tournament database, shows its widgets,
and follows the global filters."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard.conftest import OpenApp, no_exception

PAGES = {
    "views/live.py": "Live",
    "views/leaderboard.py": "Leaderboard",
    "views/participant.py": "Participant",
    "views/pairwise.py": "Pairwise",
    "views/xent_measure.py": "Xent measure",
    "views/playability.py": "Playability",
    "views/ratings_over_time.py": "Ratings over time",
    "views/matches.py": "Matches",
    "views/replay.py": "Replay",
    "views/tournaments.py": "Tournaments and schedules",
    "views/games.py": "Games",
    "views/transfer.py": "Transfer",
    "views/scopes.py": "Scopes",
}


def texts(at: AppTest) -> str:
    return "\n".join([*(e.value for e in at.text), *(str(e.value) for e in at.dataframe)])


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_page_renders_with_its_title_and_no_exception(open_app: OpenApp, page: str) -> None:
    at = open_app(page, {"tournament": "nightly"})
    no_exception(at)
    assert at.title[0].value == PAGES[page]
    assert not at.error, [e.value for e in at.error]


def test_global_filters_are_sidebar_widgets_and_in_the_link(open_app: OpenApp) -> None:
    at = open_app("views/matches.py", {"tournament": "nightly", "game": "condense"})
    assert at.selectbox(key="f_tournament").value == "nightly"
    assert at.multiselect(key="f_games").value == ["condense"]
    assert at.selectbox(key="f_judge").options[1] == "ngram"
    assert at.selectbox(key="f_snapshot").value is None  # the latest, followed
    options = at.selectbox(key="f_snapshot").options
    assert options[0] == "latest (follows new matches)" and options[1].startswith("#2 · ")
    assert "snapshot" not in at.query_params  # following pins no snapshot in the link
    assert set(at.dataframe[0].value["game"]) == {"condense"}
    assert at.query_params["game"] == "condense"
    at.multiselect(key="f_games").set_value(["hidden"]).run()
    no_exception(at)
    assert set(at.dataframe[0].value["game"]) == {"hidden"}
    assert at.query_params["game"] == "hidden"


def test_the_tournament_filter_changes_every_table(open_app: OpenApp) -> None:
    at = open_app("views/matches.py", {"tournament": "nightly"})
    assert set(at.dataframe[0].value["tournament"]) == {"nightly"}
    assert len(at.dataframe[0].value) == 30
    at.selectbox(key="f_tournament").set_value("duel-cup").run()
    no_exception(at)
    assert set(at.dataframe[0].value["tournament"]) == {"duel-cup"}
    assert at.query_params["tournament"] == "duel-cup"
    assert at.selectbox(key="f_snapshot").value is None
    # its own first snapshot is #1, though the database stored two of nightly before it
    assert [o.split(" · ")[0] for o in at.selectbox(key="f_snapshot").options] == [
        "latest (follows new matches)", "#1"]


def test_a_date_window_without_matches_says_so(open_app: OpenApp) -> None:
    at = open_app("views/matches.py", {"tournament": "nightly", "since": "2001-01-01",
                                       "until": "2001-01-02"})
    no_exception(at)
    assert any("No matches for tournament nightly" in e.value for e in at.info)


def test_leaderboard_shows_the_snapshot_with_intervals_and_downloads(open_app: OpenApp) -> None:
    at = open_app("views/leaderboard.py", {"tournament": "nightly"})
    board = at.dataframe[0].value
    assert list(board["participant"])[:3] and set(board["participant"]) == {"alpha", "beta",
                                                                             "mallory"}
    assert (board["ci_low"] <= board["rating"]).all() and (board["rating"] <= board["ci_high"]).all()
    assert "rank_change" in board and "matches" in board
    assert at.selectbox(key="lb_role") and at.number_input(key="lb_min")
    assert any("Provisional" in c.value for c in at.caption)
    # an older snapshot: ranks change is measured against nothing (it is the first)
    at.selectbox(key="f_snapshot").set_value(1).run()
    assert at.dataframe[0].value["rank_change"].isna().all()
    assert [i.value for i in at.info if i.value.startswith("You are viewing")] == [
        "You are viewing snapshot #1 of 15 matches; 15 newer matches. Choose “latest” under "
        "Rating snapshot in the sidebar to follow the latest ratings."]
    assert at.query_params["snapshot"] == "1"


def test_leaderboard_refits_points_when_filters_narrow_it(open_app: OpenApp) -> None:
    at = open_app("views/leaderboard.py", {"tournament": "nightly", "game": "condense"})
    no_exception(at)
    assert any("point estimates refitted" in w.value for w in at.warning)
    assert "ci_low" not in at.dataframe[0].value
    at.number_input(key="lb_min").set_value(10**6).run()
    assert len(at.dataframe[0].value) == 0


def test_xent_measure_switches_normalisation(open_app: OpenApp) -> None:
    at = open_app("views/xent_measure.py", {"tournament": "nightly"})
    assert at.selectbox(key="x_base").value == "alpha"  # the tournament file's base
    catch_up = at.dataframe[0].value
    at.selectbox(key="x_how").set_value("reference").run()
    no_exception(at)
    reference = at.dataframe[0].value
    assert not catch_up.equals(reference)
    assert reference.abs().max().max() > 10  # percentages, not catch-up levels


def test_matches_row_filters_and_replay_link(open_app: OpenApp) -> None:
    at = open_app("views/matches.py", {"tournament": "nightly"})
    at.selectbox(key="m_participant").set_value("mallory").run()
    seats = at.dataframe[0].value["seats"]
    assert len(seats) and all("mallory" in s for s in seats)
    at.selectbox(key="m_status").set_value("error").run()
    assert any("No matches" in e.value for e in at.info)


def test_tournaments_page_has_a_crosstable_for_head_to_head(open_app: OpenApp) -> None:
    at = open_app("views/tournaments.py", {"tournament": "duel-cup"})
    no_exception(at)
    cross = [d.value for d in at.dataframe if "alpha" in d.value.index]
    assert cross and "beta" in cross[0].columns


def test_games_page_checks_and_shows_code(open_app: OpenApp) -> None:
    at = open_app("views/games.py", {"tournament": "nightly"})
    catalogue = at.dataframe[0].value
    assert set(catalogue["name"]) == {"condense", "zerosum", "hidden"}
    assert set(catalogue["check"]) == {"ok"}
    assert "reward(" in at.code[0].value


def everything_shown(at: AppTest) -> str:
    """Every value the page rendered, as text."""
    parts: list[str] = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "text", "code", "info",
                 "warning", "error", "success", "metric", "json"):
        parts += [str(e.value) for e in getattr(at, kind)]
    parts += [d.value.to_csv() for d in at.dataframe]
    parts += [str(w.options) for w in at.selectbox] + [str(w.options) for w in at.multiselect]
    return "\n".join(parts)


@pytest.mark.parametrize("page", sorted(PAGES))
def test_no_page_shows_the_api_key(open_app: OpenApp, page: str) -> None:
    from tests.dashboard.fixture_db import KEY_ENV, SECRET

    at = open_app(page, {"tournament": "nightly"})
    shown = everything_shown(at)
    assert SECRET not in shown
    if page == "views/matches.py":
        assert "alpha" in shown and KEY_ENV not in shown  # names, not specs, in tables


def test_ratings_over_time_shows_rank_probabilities_from_stored_draws(open_app: OpenApp) -> None:
    at = open_app("views/ratings_over_time.py", {"tournament": "nightly"})
    no_exception(at)
    assert any("bootstrap draws stored with the latest snapshot, #2" in c.value
               for c in at.caption)
    history = at.dataframe[-1].value
    assert set(history["snapshot"]) == {1, 2}


def test_matches_link_each_row_to_its_replay(open_app: OpenApp) -> None:
    at = open_app("views/matches.py", {"tournament": "nightly", "game": "hidden"})
    table = at.dataframe[0].value
    for key, link in zip(table["key"], table["replay"], strict=True):  # the short key
        assert len(key) == 12
        assert link.endswith(f"replay?tournament=nightly&game=hidden&match={key}")


def test_playability_follows_the_games_filter(open_app: OpenApp) -> None:
    at = open_app("views/playability.py", {"tournament": "nightly"})
    no_exception(at)
    cells = at.selectbox(key="p_cell").options
    assert cells == ["condense / black", "hidden / alice", "hidden / bob", "zerosum / black",
                     "zerosum / white"]
    assert at.dataframe[0].value.index.name == "round"
    at.multiselect(key="f_games").set_value(["condense"]).run()
    no_exception(at)
    assert at.selectbox(key="p_cell").options == ["condense / black"]


def test_games_and_ratings_pages_follow_the_tournament(open_app: OpenApp) -> None:
    at = open_app("views/games.py", {"tournament": "duel-cup"})
    assert list(at.dataframe[0].value["name"]) == ["zerosum"]
    at = open_app("views/ratings_over_time.py", {"tournament": "nightly"})
    at.multiselect(key="h_people").set_value(["beta"]).run()
    no_exception(at)
    assert set(at.dataframe[-1].value["participant"]) == {"beta"}
