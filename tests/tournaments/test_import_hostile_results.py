"""Result files given to `arena import` are somebody else's too (issue 29, items 8 and 9),
built from the reproductions: names outside the name rule (HTML, newlines, a direction mark,
5 000 characters) were stored and shown; deep nesting crashed with RecursionError; a FIFO or
/dev/zero hung or exhausted memory. Each is now one sentence and exit 2, nothing stored."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import build_app

APP = build_app()
BAD_NAMES = {
    "html": "<img src=x onerror=alert(1)>",
    "newline": "alice\nbob",
    "direction mark": "alice\u202etxt.exe",
    "long": "a" * 5000,
    "space": "two words",
}


def xent_results(game: str = "Condense", seed: str = "m0", who: str = "p1") -> dict[str, object]:
    return {"expanded_config": {}, "results": [
        {"game_map": {"name": game, "map_seed": seed}, "player": {"id": who, "name": "black"},
         "score": 1.5},
    ]}


def run_import(tmp_path: Path, name: str, body: str, *extra: str) -> tuple[int, str, Path]:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    db = tmp_path / "a.db"
    ran = CliRunner().invoke(APP, ["import", str(path), "-t", "t", "--db", f"sqlite:///{db}",
                                   *extra])
    return ran.exit_code, ran.output, db


def stored_names(db: Path) -> set[str]:
    if not db.exists():
        return set()
    with sqlite3.connect(db) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM participants UNION "
                                           "SELECT name FROM games")}


@pytest.mark.parametrize("kind", sorted(BAD_NAMES))
@pytest.mark.parametrize("field", ["player.id", "game_map.name", "game_map.map_seed"])
def test_xent_results_names_follow_the_name_rule(tmp_path: Path, kind: str, field: str) -> None:
    bad = BAD_NAMES[kind]
    doc = {"player.id": xent_results(who=bad), "game_map.name": xent_results(game=bad),
           "game_map.map_seed": xent_results(seed=bad)}[field]
    code, output, db = run_import(tmp_path, "r.json", json.dumps(doc))
    assert code == 2, output
    assert f"results[0].{field}" in output and "Traceback" not in output
    if not bad.isprintable() or len(bad) > 80:
        assert bad not in output  # a control character escaped, a long name cut
    assert bad not in stored_names(db)


@pytest.mark.parametrize("kind", sorted(BAD_NAMES))
def test_csv_and_gamebench_names_follow_the_name_rule(tmp_path: Path, kind: str) -> None:
    bad = BAD_NAMES[kind]
    row = {"game": "duel", "participant_a": bad, "score_a": 1, "participant_b": "b",
           "score_b": 0}
    code, output, db = run_import(tmp_path, "r.jsonl", json.dumps(row) + "\n")
    assert code == 2 and "participant_a" in output, output
    gamebench = [{"game": bad, "a": 1.0, "b": 0.0}]
    code, output, db = run_import(tmp_path, "g.json", json.dumps(gamebench), "--format",
                                  "gamebench")
    assert code == 2 and "game" in output, output
    assert bad not in stored_names(db)


@pytest.mark.parametrize(
    ("name", "body", "extra"),
    [
        ("deep.json", "[" * 100_000 + "]" * 100_000, ()),
        ("deep.json", '{"results": ' + "[" * 100_000 + "]" * 100_000 + "}", ()),
        ("deep.json", "[" * 100_000 + "]" * 100_000, ("--format", "gamebench")),
        ("deep.json", "[" * 100_000 + "]" * 100_000, ("--format", "xent-results")),
        ("deep.jsonl", "[" * 100_000 + "]" * 100_000 + "\n", ()),
    ],
)
def test_deep_nesting_is_one_sentence(
    tmp_path: Path, name: str, body: str, extra: tuple[str, ...]
) -> None:
    code, output, _ = run_import(tmp_path, name, body, *extra)
    assert code == 2, output
    assert "too deeply" in output and "internal error" not in output


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_only_a_regular_results_file_is_read(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "r.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path = Path("/dev/zero")
    else:
        path.mkdir()
    ran = CliRunner().invoke(
        APP, ["import", str(path), "-t", "t", "--db", f"sqlite:///{tmp_path / 'a.db'}"]
    )
    assert ran.exit_code == 2 and "not a regular file" in ran.output, ran.output


def test_a_large_import_says_it_is_rating_before_the_long_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 200 000-result file stores in seconds, then its snapshot takes minutes: the command
    says so between the two (here from 2 matches, the threshold lowered)."""
    from arena.tournaments.cli import imports

    one = {"game_map": {"name": "Condense", "map_seed": "m0"}, "score": 1.5}
    body = {"expanded_config": {}, "results": [
        {**one, "player": {"id": who, "name": "black"}} for who in ("p1", "p2")]}
    monkeypatch.setattr(imports, "LONG_SNAPSHOT", 2)
    code, said, db = run_import(tmp_path, "r.json", json.dumps(body))
    assert code == 0, said
    first, *_ = said.splitlines()
    assert first.startswith("stored 2 matches; rating them for the dashboard's snapshot")
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM rating_snapshots").fetchone()[0] == 1
    monkeypatch.setattr(imports, "LONG_SNAPSHOT", 3)
    (tmp_path / "small").mkdir()
    code, said, _ = run_import(tmp_path / "small", "r.json", json.dumps(body))
    assert code == 0 and "rating them" not in said
