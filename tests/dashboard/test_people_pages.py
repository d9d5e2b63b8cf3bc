"""The Participant and Pairwise pages and the Xent measure's histograms over the real
tournament database: every participant visible, numbers that agree with the stored
ratings (the Bradley–Terry formula) and with independently counted outcomes, and tables
with human labels and no "None"."""

from __future__ import annotations

import json
import math
import re
import sqlite3
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard.conftest import OpenApp, no_exception
from tests.dashboard.fixture_db import KEY_ENV, SECRET
from tests.dashboard.test_pages import PAGES

RATED = {"alpha", "beta", "mallory"}
ELO_PER_NATURAL = 400 / math.log(10)


def charts_of(at: AppTest) -> list[dict]:  # type: ignore[type-arg]
    """Each Vega-Lite chart of the page: its spec with its Arrow datasets as row lists."""
    found = []
    for element in at.get("vega_lite_chart"):
        spec = json.loads(element.proto.spec)
        spec["rows"] = [row for d in element.proto.datasets
                        for row in pa.ipc.open_stream(d.data.data).read_all().to_pylist()]
        found.append(spec)
    return found


def column_labels_of(table: Any) -> list[str]:
    """The labels a table's column configuration gives its columns."""
    config = json.loads(table.proto.columns or "{}")
    return [c["label"] for c in config.values() if c and c.get("label")]


def column_labels(at: AppTest) -> list[str]:
    return [label for table in at.dataframe for label in column_labels_of(table)]


def db_path(url: str) -> str:
    return url.removeprefix("sqlite:///")


def test_every_participant_has_its_own_histogram_panel(open_app: OpenApp) -> None:
    at = open_app("views/xent_measure.py", {"tournament": "nightly"})
    no_exception(at)
    hist = next(c for c in charts_of(at) if "facet" in c)
    assert hist["facet"]["row"]["field"] == "participant"  # small multiples, never overlaid
    assert set(hist["facet"]["row"]["sort"]) == RATED
    shown = {r["participant"] for r in hist["rows"] if r["mass"] > 0}
    assert shown == RATED
    for name in RATED:  # each panel is one participant's whole distribution
        assert math.isclose(sum(r["mass"] for r in hist["rows"] if r["participant"] == name), 1)
    at.selectbox(key="x_how").set_value("reference").run()
    assert {r["participant"] for r in charts_of(at)[0]["rows"] if r["mass"] > 0} == RATED


def test_participant_page_shows_rating_games_matches_and_spec(open_app: OpenApp,
                                                              arena_db: str) -> None:
    at = open_app("views/participant.py", {"tournament": "nightly", "name": "alpha"})
    no_exception(at)
    assert at.selectbox(key="pp_name").value == "alpha"
    with sqlite3.connect(db_path(arena_db)) as conn:
        payload = json.loads(conn.execute(
            "SELECT payload_json FROM rating_snapshots WHERE id = 2").fetchone()[0])
    ratings = {r["participant"]: r["rating"] for r in payload["rows"]}
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Rating"] == f"{ratings['alpha']:.1f}"
    rank = 1 + sum(r > ratings["alpha"] for r in ratings.values())
    assert metrics["Rank"] == f"{rank} of 3"
    assert int(metrics["Moves"]) > 0 and "Seconds per move" in metrics
    games, recent, specs = (t.value for t in at.dataframe)
    assert set(games["game"]) == {"condense", "zerosum", "hidden"}
    assert list(games["percent_of_best"]) == sorted(games["percent_of_best"], reverse=True)
    assert any(t.value.startswith("Strongest: " + games["game"].iloc[0]) for t in at.text)
    assert any(t.value.startswith("Weakest: " + games["game"].iloc[-1]) for t in at.text)
    assert len(recent) and all("alpha" in s for s in recent["seats"])
    for key, link in zip(recent["key"], recent["replay"], strict=True):
        assert link.endswith(f"match={key}") and len(key) == 12  # the short match key
    assert any(KEY_ENV in s for s in specs["spec"])  # the variable's name, never its value
    shown = "\n".join([specs.to_csv(), *(str(m.value) for m in at.metric)])
    assert SECRET not in shown
    labels = column_labels(at)
    assert "Xent measure (% of best)" in labels and "parameters" in labels
    assert not [label for label in labels if "_" in label]
    at.selectbox(key="pp_name").set_value("beta").run()
    assert at.query_params["name"] == "beta"


def test_participant_page_redacts_a_literal_key_in_a_spec(open_app: OpenApp, arena_db: str,
                                                          tmp_path: pytest.TempPathFactory
                                                          ) -> None:
    import shutil
    from pathlib import Path

    copy = Path(str(tmp_path)) / "arena.db"
    shutil.copy(db_path(arena_db), copy)
    with sqlite3.connect(copy) as conn:  # as an older arena stored it, before redaction
        conn.execute("UPDATE participants SET spec = ?, params_json = ? WHERE name = 'beta'",
                     (f"random?words=4&api_key={SECRET}", json.dumps({"api_key": SECRET})))
    at = open_app("views/participant.py", {"tournament": "nightly", "name": "beta"},
                  url=f"sqlite:///{copy}")
    no_exception(at)
    specs = at.dataframe[2].value
    assert SECRET not in specs.to_csv() and "api_key=***" in specs.to_csv()


def test_pairwise_predictions_follow_the_bradley_terry_formula(open_app: OpenApp,
                                                               arena_db: str) -> None:
    at = open_app("views/pairwise.py", {"tournament": "nightly"})
    no_exception(at)
    with sqlite3.connect(db_path(arena_db)) as conn:
        payload = json.loads(conn.execute(
            "SELECT payload_json FROM rating_snapshots WHERE id = 2").fetchone()[0])
    ratings = {r["participant"]: r["rating"] for r in payload["rows"]}
    pairs = at.dataframe[0].value
    assert len(pairs) == 6
    for row in pairs.itertuples():
        expected = 1 / (1 + 10 ** (-(ratings[row.a] - ratings[row.b]) / 400))
        assert math.isclose(row.p_win, expected, rel_tol=1e-9)
        assert 0 <= row.win_rate <= 1 and row.comparisons > 0
    predicted, observed = (c for c in charts_of(at) if "layer" in c)
    assert {r["a"] for r in predicted["rows"]} == RATED == {r["b"] for r in observed["rows"]}
    assert all(r["cell"].endswith(f"({r['comparisons']:.0f})") for r in observed["rows"])
    assert not [label for label in column_labels(at) if "_" in label]


def test_pairwise_observed_counts_agree_with_the_matches(open_app: OpenApp,
                                                         arena_db: str) -> None:
    """Head-to-head: the observed fraction is the row's wins (ties half) over the matches
    both played, counted here straight from the seats table."""
    at = open_app("views/pairwise.py", {"tournament": "duel-cup"})
    no_exception(at)
    with sqlite3.connect(db_path(arena_db)) as conn:
        rows = conn.execute(
            "SELECT pa.name, a.best, a.forfeit, pb.name, b.best, b.forfeit FROM matches m "
            "JOIN tournaments t ON t.id = m.tournament_id "
            "JOIN seats a ON a.match_id = m.id JOIN seats b ON b.match_id = m.id "
            "JOIN participants pa ON pa.id = a.participant_id "
            "JOIN participants pb ON pb.id = b.participant_id "
            "WHERE t.name = 'duel-cup' AND m.status = 'done' AND pa.name = 'alpha' "
            "AND pb.name = 'beta'").fetchall()
    wins = 0.0
    for _, best_a, forfeit_a, _, best_b, forfeit_b in rows:
        a = None if forfeit_a else best_a
        b = None if forfeit_b else best_b
        if a is None or b is None:
            wins += 0.5 if a is None and b is None else (0.0 if a is None else 1.0)
        else:
            wins += 0.5 if abs(a - b) <= 1e-6 else float(a > b)
    pairs = at.dataframe[0].value.set_index(["a", "b"])
    assert pairs.loc[("alpha", "beta"), "comparisons"] == len(rows) > 0
    assert pairs.loc[("alpha", "beta"), "wins"] == wins
    assert pairs.loc[("beta", "alpha"), "wins"] == len(rows) - wins


def test_no_table_of_the_new_pages_shows_none(open_app: OpenApp) -> None:
    for page, params in (("views/participant.py", {"name": "mallory"}),
                         ("views/pairwise.py", {}), ("views/tournaments.py", {}),
                         ("views/matches.py", {})):
        at = open_app(page, {"tournament": "nightly", **params})
        no_exception(at)
        for table in at.dataframe:
            assert table.proto.placeholder == "", page  # a missing value is an empty cell
            texts = [v for column in table.value.columns for v in table.value[column]
                     if isinstance(v, str)]
            assert not [t for t in texts if t.strip() in ("None", "nan", "NaT")], page


def synthetic_seats(seed: int) -> pd.DataFrame:
    """Scored-seat rows (as `data.scored_seats` returns them) of eval matches in a few
    comparable groups, with replays, exact ties, forfeits and missing scores, plus
    head-to-head matches of three seats."""
    rng = np.random.default_rng(seed)
    rows = []
    match = 0
    people = ["p0", "p1", "p2", "p3"]
    for game in ("g1", "g2"):
        for map_id in (1, 2, 3):
            for _ in range(int(rng.integers(2, 9))):
                match += 1
                forfeit = bool(rng.random() < 0.15)
                best = None if rng.random() < 0.05 else float(rng.choice([0.0, 1.0, 2.5,
                                                                          rng.normal()]))
                rows.append({"match": match, "game": game, "map_id": map_id, "mode": "eval",
                             "rounds": 2, "role": "black", "participant": str(rng.choice(people)),
                             "main": 1, "best": best, "forfeit": int(forfeit),
                             "round_scores_json": "[]"})
    for _ in range(12):
        match += 1
        for role, who in zip(("a", "b", "c"), rng.permutation(people)[:3], strict=True):
            rows.append({"match": match, "game": "duel", "map_id": 9, "mode": "head_to_head",
                         "rounds": 1, "role": role, "participant": str(who), "main": 1,
                         "best": float(rng.choice([0.0, 1.0, 1.0 + 1e-9])),
                         "forfeit": int(rng.random() < 0.1), "round_scores_json": "[]"})
    frame = pd.DataFrame(rows)  # as scored_seats: each match's plan key and game version
    return frame.assign(key=[f"k{m}" for m in frame["match"]], game_version="1")


@pytest.mark.parametrize("seed", range(20))
def test_vectorised_observed_wins_equal_the_outcome_by_outcome_count(seed: int) -> None:
    from arena.dashboard.derived import observed_wins, observed_wins_reference

    seats = synthetic_seats(seed)
    fast, slow = observed_wins(seats), observed_wins_reference(seats)
    assert len(slow) > 0
    pd.testing.assert_frame_equal(fast, slow, check_exact=False, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_table_reads_like_a_report(open_app: OpenApp, page: str) -> None:
    """Human labels (no snake_case), empty cells for missing values, no 64-hex hash."""
    at = open_app(page, {"tournament": "nightly"})
    no_exception(at)
    for table in at.dataframe:
        assert table.proto.placeholder == "", page
        assert not [label for label in column_labels_of(table) if "_" in label], page
        texts = [v for column in table.value.columns for v in table.value[column]
                 if isinstance(v, str)]
        assert not [t for t in texts if re.fullmatch(r"(\w+:)?[0-9a-f]{64}", t)], page


def test_the_leaderboard_links_each_participant_to_its_page(open_app: OpenApp) -> None:
    at = open_app("views/leaderboard.py", {"tournament": "nightly"})
    board = next(t.value for t in at.dataframe if "page" in t.value.columns)
    for name, link in zip(board["participant"], board["page"], strict=True):
        assert link.startswith("participant?") and link.endswith(f"&name={name}")
    at = open_app("views/participant.py", {"tournament": "nightly", "name": "mallory"})
    assert at.selectbox(key="pp_name").value == "mallory"


def test_the_replay_tables_read_like_a_report(open_app: OpenApp, arena_db: str) -> None:
    with sqlite3.connect(db_path(arena_db)) as conn:
        (match,) = conn.execute("SELECT MIN(id) FROM matches").fetchone()
    at = open_app("views/replay.py", {"tournament": "nightly", "match": str(match)})
    no_exception(at)
    assert at.dataframe
    for table in at.dataframe:
        assert table.proto.placeholder == ""
        assert not [label for label in column_labels_of(table) if "_" in label]
