"""Re-judging stored moves (`arena rescore`, issue 33 item 5): the same matches judged
again without calling a player, into a tournament of their own, and how much the ranking
depends on the judge."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import build_app
from arena.events import ElicitResponse
from arena.storage import MATCH_DONE, Store, sqlite_url
from arena.storage.queries import match_events
from arena.tournaments.ratings import MatchRecord, SeatRecord
from arena.tournaments.ratings.leaderboard import LeaderboardConfig
from arena.tournaments.ratings.sensitivity import judge_sensitivity
from tests.tournaments.arena_fixtures import THREE_ENTRANTS

APP = build_app()
TOURNAMENT = THREE_ENTRANTS.format(maps=2, rules="")


def arena(*args: str) -> tuple[int, str]:
    ran = CliRunner().invoke(APP, list(args), env={"COLUMNS": "200"})
    return ran.exit_code, ran.output


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("rescore")
    (folder / "t.toml").write_text(TOURNAMENT, encoding="utf-8")
    url = sqlite_url(folder / "a.db")
    code, said = arena("run", str(folder / "t.toml"), "--db", url, "--no-progress")
    assert code == 0, said
    return url


Row = tuple[str, int, list[tuple[str, tuple[float | None, ...]]], list[object]]


def matches(url: str, tournament: str) -> list[Row]:
    """(game, map index, seat scores, the moves played) per done match, in a stable order."""
    store = Store.open(url)
    try:
        found = []
        for m in store.stored_matches(tournament, status=MATCH_DONE):
            moves: list[object] = [
                (e.player, e.round, sorted(e.values.items()))
                for e in match_events(store.engine, m.key) if isinstance(e, ElicitResponse)]
            found.append((m.game, m.map_index,
                           sorted((s.participant, s.round_scores) for s in m.seats), moves))
        return sorted(found, key=lambda x: (x[0], x[1], x[2][0][0], x[2]))
    finally:
        store.close()


def test_the_same_judge_reproduces_every_score_and_move(db: str) -> None:
    """Judged again by the judge that played it, a tournament is itself: the stored moves
    replay exactly (same maps, seeds, retries), and every score comes out the same."""
    code, said = arena("rescore", "-t", "small", "--judge", "ngram", "--as", "small-again",
                       "--db", db, "--resamples", "50")
    assert code == 0, said
    assert "rescored 12 match(es) of 'small' with judge 'ngram' into 'small-again': 12 stored"\
        in said
    assert "No participant changed rank" in said
    source, copy = matches(db, "small"), matches(db, "small-again")
    assert len(source) == 12 and source == copy
    assert sum(len(m[3]) for m in source) >= 12  # moves were compared, not nothing


def test_another_judge_changes_scores_not_moves_and_a_rerun_resumes(db: str) -> None:
    code, said = arena("rescore", "-t", "small", "--judge", "ngram?order=2", "--as",
                       "small-o2", "--db", db, "--resamples", "50", "--json")
    assert code == 0, said
    doc = json.loads(said)
    assert doc["rescore"]["written"] == 12 and doc["rescore"]["errors"] == 0
    report = doc["sensitivity"]
    assert -1.0 <= report["tau_interval"][0] <= report["kendall_tau"] <= \
        report["tau_interval"][1] <= 1.0
    assert {p["participant"] for p in report["participants"]} == {"rand", "scr", "srch"}
    source, copy = matches(db, "small"), matches(db, "small-o2")
    assert [m[3] for m in source] == [m[3] for m in copy]  # the players' moves, replayed
    assert [m[2] for m in source] != [m[2] for m in copy]  # judged otherwise
    code, said = arena("rescore", "-t", "small", "--judge", "ngram?order=2", "--as",
                       "small-o2", "--db", db, "--resamples", "20")
    assert code == 0, said
    assert "0 stored now, 12 already done" in said


def test_a_rescore_needs_no_loadable_player(db: str, tmp_path: Path) -> None:
    """Players whose specs no longer load (a plugin uninstalled) do not stop a rescore:
    the moves come from the transcripts, and the same judge gives the same scores."""
    copy = tmp_path / "copy.db"
    shutil.copy(db.removeprefix("sqlite:///"), copy)
    with sqlite3.connect(copy) as conn:
        changed = conn.execute("UPDATE participants SET spec = 'no-such-plugin:gone'").rowcount
    assert changed >= 4
    url = sqlite_url(copy)
    code, said = arena("rescore", "-t", "small", "--judge", "ngram", "--as", "gone", "--db",
                       url, "--json", "--resamples", "20")
    assert code == 0, said
    assert json.loads(said)["rescore"]["written"] == 12
    assert matches(url, "gone") == matches(url, "small")


@pytest.mark.parametrize(("args", "expected"), [
    (["-t", "nope", "--judge", "ngram", "--as", "x"], "Unknown tournament 'nope'"),
    (["-t", "small", "--judge", "ngram", "--as", "small"], "names the tournament being"),
    (["-t", "small", "--judge", "ngram", "--as", "a b"], "is not a tournament name"),
])
def test_what_cannot_be_rescored_is_one_sentence(db: str, args: list[str],
                                                 expected: str) -> None:
    code, said = arena("rescore", *args, "--db", db)
    assert code == 2 and expected in said and "Traceback" not in said, said


def _board(scores: dict[str, list[float]]) -> list[MatchRecord]:
    """Eval matches on shared maps: participant p scores scores[p][m] on map m."""
    return [
        MatchRecord(f"{p}-{m}", "g", f"map{m}",
                    (SeatRecord("black", p, s), SeatRecord("white", "npc", 0.0, npc=True)),
                    mode="eval")
        for p, row in scores.items() for m, s in enumerate(row)
    ]


def test_sensitivity_sees_a_ranking_the_judge_reverses() -> None:
    up = {"a": [3.0, 3.1, 2.9, 3.2] * 3, "b": [2.0, 2.1, 1.9, 2.2] * 3,
          "c": [1.0, 1.1, 0.9, 1.2] * 3}
    down = {p: [-s for s in row] for p, row in up.items()}
    first, again = _board(up), _board(down)
    pairs = {r.match_id: r.match_id for r in first}
    config = LeaderboardConfig(n_resamples=100)
    same = judge_sensitivity(first, _board(up), pairs, config)
    assert same.tau == pytest.approx(1.0) and not same.changed
    flipped = judge_sensitivity(first, again, pairs, config)
    assert flipped.tau == pytest.approx(-1.0) and flipped.tau_high < 0
    moved = {p.participant: (p.rank_a, p.rank_b) for p in flipped.changed}
    assert moved == {"a": (1, 3), "c": (3, 1)}
