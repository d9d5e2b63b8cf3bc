"""`arena export`: matches, seats and ratings as CSV, JSON and Parquet files."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.errors import ConfigError
from arena.storage import Store, sqlite_url
from arena.storage.queries import stored_matches
from arena.tournaments.cli.ratings import app
from arena.tournaments.ratings.service import DEFAULT_OPTIONS
from arena.tournaments.services.exchange import export as export_module
from arena.tournaments.services.exchange.export import MATCH_COLUMNS, RATING_COLUMNS, SEAT_COLUMNS
from arena.tournaments.services.exchange.importers import import_file

CSV = (
    "game,participant_a,score_a,participant_b,score_b,map\n"
    "duel,alice,3.5,bob,1.0,m1\n"
    "duel,bob,forfeit,alice,0.5,m2\n"
    "duel,carol,2.0,alice,1.0,m1\n"
)


@pytest.fixture
def db(tmp_path: Path) -> str:
    url = sqlite_url(tmp_path / "x.db")
    source = tmp_path / "results.csv"
    source.write_text(CSV)
    store = Store.open(url)
    try:
        import_file(store, source, "ext")
    finally:
        store.close()
    return url


def export(db: str, out: Path, fmt: str) -> list[str]:
    result = CliRunner().invoke(
        app, ["export", "-t", "ext", "--db", db, "--format", fmt, "--out", str(out), "--resamples", "20"]
    )
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def test_csv_export_writes_three_tables(db: str, tmp_path: Path) -> None:
    out = tmp_path / "csv"
    said = export(db, out, "csv")
    assert said == [f"wrote {out / n}.csv" for n in ("matches", "seats", "ratings")]

    def read(name: str) -> tuple[list[str], list[dict[str, str]]]:
        with (out / f"{name}.csv").open(newline="") as handle:
            reader = csv.DictReader(handle)
            return list(reader.fieldnames or []), list(reader)

    columns, matches = read("matches")
    assert columns == list(MATCH_COLUMNS) and len(matches) == 3
    digest = hashlib.sha256(CSV.encode()).hexdigest()
    assert {(m["source_file"], m["source_sha256"]) for m in matches} == {("results.csv", digest)}
    assert [m["map_label"] for m in matches] == ["m1", "m2", "m1"]
    columns, seats = read("seats")
    assert columns == list(SEAT_COLUMNS) and len(seats) == 6
    forfeit = next(s for s in seats if s["forfeit"] == "True")
    assert (forfeit["participant"], forfeit["best"], forfeit["round_scores"]) == ("bob", "", "[null]")
    first = next(s for s in seats if s["participant"] == "alice")
    assert float(first["best"]) == 3.5 and json.loads(first["round_scores"]) == [3.5]
    columns, ratings = read("ratings")
    assert columns == list(RATING_COLUMNS)
    assert sorted(r["participant"] for r in ratings) == ["alice", "bob", "carol"]
    assert {r["scale"] for r in ratings} == {"elo"} and {r["point"] for r in ratings} == {"mle"}


def test_json_export_matches_the_stored_data(db: str, tmp_path: Path) -> None:
    out = tmp_path / "json"
    export(db, out, "json")
    matches = json.loads((out / "matches.json").read_text())
    seats = json.loads((out / "seats.json").read_text())
    ratings = json.loads((out / "ratings.json").read_text())
    store = Store.open(db)
    try:
        stored = stored_matches(store.engine, "ext")
    finally:
        store.close()
    assert [m["match_key"] for m in matches] == [m.key for m in stored]
    assert all(list(m) == list(MATCH_COLUMNS) for m in matches)
    assert [(s["participant"], s["best"], s["round_scores"]) for s in seats[:2]] == [
        ("alice", 3.5, [3.5]), ("bob", 1.0, [1.0])
    ]
    assert [list(r) for r in ratings] == [list(RATING_COLUMNS)] * 3
    assert sum(r["rating"] for r in ratings) / 3 == pytest.approx(1000.0)


def test_parquet_export_when_pyarrow_is_installed(db: str, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "pq"
    export(db, out, "parquet")
    seats = pq.read_table(out / "seats.parquet")
    assert seats.column_names == list(SEAT_COLUMNS) and seats.num_rows == 6
    assert seats.column("round_scores").to_pylist()[:2] == [[3.5], [1.0]]
    ratings = pq.read_table(out / "ratings.parquet").to_pylist()
    assert sorted(r["participant"] for r in ratings) == ["alice", "bob", "carol"]
    assert pq.read_table(out / "matches.parquet").num_rows == 3


def test_unknown_format_is_refused_before_writing(db: str, tmp_path: Path) -> None:
    out = tmp_path / "none"
    result = CliRunner().invoke(app, ["export", "-t", "ext", "--db", db, "--format", "xlsx", "--out", str(out)])
    assert result.exit_code == 2 and "'xlsx' is not one of" in result.output
    assert not out.exists()
    store = Store.open(db)
    with pytest.raises(ConfigError, match="Unknown export format 'xlsx'"):  # the API checks too
        export_module.export(store, ["ext"], out, "xlsx", DEFAULT_OPTIONS)
    store.close()
    assert not out.exists()


def test_parquet_without_pyarrow_names_the_extra(db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pyarrow", None)  # what an environment without it sees
    result = CliRunner().invoke(app, ["export", "-t", "ext", "--db", db, "--format", "parquet", "--out", str(tmp_path / "p")])
    assert "xent-arena[parquet]" in str(result.exception)
