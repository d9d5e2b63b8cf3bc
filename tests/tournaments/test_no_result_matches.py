"""A match without a result (XGL.md section 9), end to end through `arena run`: stored as
such, absent from every score and rating, counted and shown by `arena scores` (the benchmark
score included), and played again by the next run like a match that failed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.storage import MATCH_DONE, MATCH_NO_RESULT, Store, sqlite_url
from arena.tournaments.cli.ratings import app
from arena.tournaments.cli.run import main as run_main
from arena.tournaments.records.rating_store import load_inputs

# One ensure line: only "owl moon" passes. `stubborn` never plays it: with the current xent
# rules (10 failures per line) each of its matches ends with no result.
GAME = (
    "assign(s=story(20), s1='owl moon sun')\nelicit(x, 8)\n"
    "ensure(only_uses_words(s1, x))\nreward(xed(s | x))\n"
)
TOURNAMENT = """
name = "nores"
judge = "ngram"
maps = 2
rounds = 2
seed = 3

[[participants]]
name = "good"
player = "scripted:owl moon"

[[participants]]
name = "plain"
player = "scripted:sun"

[[participants]]
name = "stubborn"
player = "scripted:banana split"

[[games]]
game = "symbols.xent"
dialect = "xent"
"""


def _run(path: Path, db: str) -> int:
    try:
        run_main(["run", str(path), "--db", db, "--no-progress"])
    except SystemExit as done:
        return int(done.code or 0)
    return 0


@pytest.fixture
def played(tmp_path: Path) -> tuple[Path, str]:
    (tmp_path / "symbols.xent").write_text(GAME)
    path = tmp_path / "t.toml"
    path.write_text(TOURNAMENT)
    db = sqlite_url(tmp_path / "a.db")
    assert _run(path, db) == 0  # no result is an outcome, not a failure of the run
    return path, db


def test_stored_without_a_result_and_counted_only(played: tuple[Path, str]) -> None:
    _, db = played
    store = Store.open(db)
    try:
        matches = store.stored_matches("nores")
        inputs = load_inputs(store, ["nores"])
    finally:
        store.close()
    by_status = {(m.seats[0].participant, m.status) for m in matches}
    assert by_status == {("good", MATCH_DONE), ("plain", MATCH_DONE),
                         ("stubborn", MATCH_NO_RESULT)}
    stubborn = [m for m in matches if m.status == MATCH_NO_RESULT]
    assert len(stubborn) == 2 and all("more than 10 failed ensures" in (m.error or "")
                                      for m in stubborn)
    assert all(s.best is None and not s.forfeit for m in stubborn for s in m.seats)
    # absent from every record that scores or rates; present as counted records
    assert {s.participant for r in inputs.records for s in r.seats} == {"good", "plain"}
    assert [(n.participant, n.game) for n in inputs.no_results] == [("stubborn", "symbols")] * 2


def test_scores_show_the_maps_without_a_result(played: tuple[Path, str]) -> None:
    _, db = played
    runner = CliRunner()
    shown = runner.invoke(app, ["scores", "-t", "nores", "--db", db, "--normalisation",
                                "benchmark", "--json"])
    report = json.loads(shown.output)
    assert report["no_result"] == {"stubborn": {"symbols": 2}}
    assert report["benchmark"]["no_result"] == {"stubborn": {"symbols": 2}}
    assert set(report["benchmark"]["overall"]) == {"good", "plain"}
    text = runner.invoke(app, ["scores", "-t", "nores", "--db", db, "--normalisation",
                               "benchmark"]).output
    assert "Maps without a result (absent from the score): stubborn 2" in text
    assert "matches without a result (in no score): stubborn: symbols 2" in text
    ratings = runner.invoke(app, ["ratings", "-t", "nores", "--db", db, "--json"])
    assert {row["participant"] for row in json.loads(ratings.output)} == {"good", "plain"}


def test_the_next_run_plays_them_again(played: tuple[Path, str]) -> None:
    path, db = played
    assert _run(path, db) == 0
    store = Store.open(db)
    try:
        statuses = [m.status for m in store.stored_matches("nores")]
    finally:
        store.close()
    assert statuses.count(MATCH_NO_RESULT) == 2 and len(statuses) == 6
