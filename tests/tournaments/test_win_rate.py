"""gg-bench's measure: win rates against a reference participant with Wilson intervals, on
constructed records and on a real tournament database played with `arena run`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.storage import Store, sqlite_url
from arena.storage.queries import stored_matches
from arena.tournaments.cli.ratings import app
from arena.tournaments.cli.run import main as run_main
from arena.tournaments.ratings.records import MatchRecord, SeatRecord
from arena.tournaments.ratings.win_rate import OVERALL, wilson_interval, win_rates
from arena.tournaments.records.from_store import records_from_store
from tests.tournaments.test_ratings_cli import CONDENSE, DUEL, EVAL


def test_wilson_interval_matches_the_textbook_values() -> None:
    low, high = wilson_interval(8, 10)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)
    low, high = wilson_interval(0, 20)
    assert low == 0.0 and round(high, 4) == 0.1611
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(5, 10, 0.99)[0] < wilson_interval(5, 10, 0.95)[0]


def eval_match(mid: str, who: str, score: float | None, map_id: str, game: str = "g") -> MatchRecord:
    seat = SeatRecord("black", who, score, forfeit=score is None)
    return MatchRecord(mid, game, map_id, (seat, SeatRecord("white", "npc", 0.0, npc=True)),
                       mode="eval")


def test_trials_compare_on_equal_terms_and_ties_count_half() -> None:
    records = [
        eval_match("1", "ref", 1.0, "m1"), eval_match("2", "p", 2.0, "m1"),  # win
        eval_match("3", "ref", 1.0, "m2"), eval_match("4", "p", 1.0, "m2"),  # tie
        eval_match("5", "ref", 1.0, "m3"), eval_match("6", "p", None, "m3"),  # forfeit: loss
        eval_match("7", "p", 9.0, "m4"),  # the reference never played m4: no trial
        eval_match("8", "ref", 0.0, "m1", game="h"), eval_match("9", "p", 1.0, "m1", game="h"),
        MatchRecord("10", "h", "m2", (SeatRecord("alice", "p", 3.0),
                                       SeatRecord("bob", "ref", 4.0))),  # head to head: loss
    ]
    rows = {(r.participant, r.game): r for r in win_rates(records, "ref")}
    assert set(rows) == {("p", "g"), ("p", "h"), ("p", OVERALL)}
    assert (rows["p", "g"].wins, rows["p", "g"].trials) == (1.5, 3)
    assert (rows["p", "h"].wins, rows["p", "h"].trials) == (1.0, 2)
    overall = rows["p", OVERALL]
    assert (overall.wins, overall.trials) == (2.5, 5) and overall.rate == 0.5
    assert (overall.low, overall.high) == wilson_interval(2.5, 5)


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("mini_vs")
    (folder / "condense.xgl").write_text(CONDENSE)
    (folder / "duel.xgl").write_text(DUEL)
    (folder / "mini.toml").write_text(EVAL)
    db = sqlite_url(folder / "mini.db")
    run_main(["run", str(folder / "mini.toml"), "--db", db, "--no-progress"])
    return db


def test_vs_reports_win_rates_from_the_stored_eval_matches(mini: str) -> None:
    done = CliRunner().invoke(app, ["ratings", "-t", "mini", "--db", mini, "--vs", "beta",
                                    "--json"])
    assert done.exit_code == 0, done.output
    rows = {(r["participant"], r["game"]): r for r in json.loads(done.output)}
    # Independently: alpha beats beta on a (game, role, map) when its score is higher.
    store = Store.open(mini)
    try:
        records = records_from_store(stored_matches(store.engine, "mini", status="done"))
    finally:
        store.close()
    scores: dict[tuple[str, str, str, str], float | None] = {}
    for record in records:
        scores[(record.main.participant, record.game, record.main.role, record.map_id)] = (
            record.main.score
        )
    expected: dict[str, list[float]] = {}
    for (who, game, role, map_id), score in scores.items():
        if who != "alpha":
            continue
        ref = scores[("beta", game, role, map_id)]
        assert score is not None and ref is not None
        won = 0.5 if abs(score - ref) < 1e-9 else float(score > ref)
        expected.setdefault(game, []).append(won)
    assert {g for p, g in rows if p == "alpha"} == {*expected, OVERALL}
    for game, results in expected.items():
        row = rows["alpha", game]
        assert row["trials"] == len(results) and row["wins"] == pytest.approx(sum(results))
        assert row["low"] <= row["rate"] <= row["high"]
    assert rows["alpha", OVERALL]["trials"] == sum(len(v) for v in expected.values()) == 6
    assert ("beta", OVERALL) not in rows
    text = CliRunner().invoke(app, ["ratings", "-t", "mini", "--db", mini, "--vs", "beta"])
    assert text.exit_code == 0 and "win rate against 'beta'" in text.output
    assert "alpha" in text.output and OVERALL in text.output and "Wilson" in text.output


def test_an_unknown_reference_is_one_sentence_with_the_options(mini: str, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "ratings", "-t", "mini", "--db", mini, "--vs",
         "betta"], capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(repo)}, cwd=tmp_path,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "betta" in done.stderr and "beta" in done.stderr and "alpha" in done.stderr
