"""`arena import`: GameBench, CSV and JSON Lines results stored as a tournament of their own,
with provenance, idempotent re-imports and all-or-nothing validation."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from sqlalchemy import func, select, text
from typer.testing import CliRunner

from arena.cli import build_app
from arena.cli import main as cli_main
from arena.storage import MATCH_DONE, StorageError, Store, sqlite_url
from arena.storage.imports import import_sources, map_labels
from arena.storage.migrations import _TABLES
from arena.storage.queries import stored_matches
from arena.storage.tables import table_of
from arena.tournaments.services.exchange.importers import ImportFileError, import_file, parse_file

app = build_app()
DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "gamebench_matches.json"
needs_data = pytest.mark.skipif(not DATA.exists(), reason=f"GameBench data not found at {DATA}")

CSV = (
    "game,participant_a,score_a,participant_b,score_b,role_a,role_b,map,match_id\n"
    "duel,alice,3.5,bob,1.0,black,white,m1,g1\n"
    "duel,bob,forfeit,alice,0.5,black,white,m1,g2\n"
    "condense,alice,2.0,,,,,m7,\n"
    "condense,bob,2.5,,,,,m7,\n"
)


def counts(store: Store) -> dict[str, int]:
    """Rows per table: 'nothing stored' means these are unchanged."""
    with store.engine.connect() as conn:
        return {
            table_of(t).name: int(conn.execute(select(func.count()).select_from(table_of(t))).scalar() or 0)
            for t in _TABLES
        }


@pytest.fixture
def store(tmp_path: Path) -> Store:
    opened = Store.open(sqlite_url(tmp_path / "arena.db"))
    yield opened  # type: ignore[misc]
    opened.close()


def write(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return path


@needs_data
def test_gamebench_import_stores_matches_and_provenance_and_reimport_is_a_no_op(tmp_path: Path) -> None:
    db = sqlite_url(tmp_path / "gb.db")
    runner = CliRunner()
    first = runner.invoke(app, ["import", str(DATA), "--format", "gamebench", "--tournament", "gb", "--db", db])
    assert first.exit_code == 0, first.output
    assert "imported 277 matches (9 games, 7 participants)" in first.output
    store = Store.open(db)
    try:
        before = counts(store)
        matches = stored_matches(store.engine, "gb")
        assert len(matches) == 277 and {m.status for m in matches} == {MATCH_DONE}
        assert {m.mode for m in matches} == {"head_to_head"}
        assert all(s.main for m in matches for s in m.seats)
        # the first GameBench object: {"game": "sea_battle", "gpt-4": 0.0, "gpt-4-cot": 1.0}
        head = matches[0]
        assert head.game == "sea_battle"
        assert [(s.role, s.participant, s.best) for s in head.seats] == [
            ("first", "gpt-4", 0.0), ("second", "gpt-4-cot", 1.0)
        ]
        (source,) = import_sources(store.engine, "gb")
        assert source.file == DATA.name
        assert source.sha256 == hashlib.sha256(DATA.read_bytes()).hexdigest()
        assert (source.format, source.outcome, source.matches) == ("gamebench", "win-share", 277)
        with store.engine.connect() as conn:
            run = conn.execute(text("SELECT status, config_sha256 FROM runs")).one()
        assert tuple(run) == ("imported", source.sha256)
        assert before["rating_snapshots"] == 1  # the import is a run: one snapshot

        again = runner.invoke(app, ["import", str(DATA), "--format", "gamebench", "--tournament", "gb", "--db", db])
        assert again.exit_code == 0, again.output
        assert "already imported" in again.output and "nothing changed" in again.output
        assert counts(store) == before
        # the same bytes under another name are the same source
        copy = tmp_path / "copy.json"
        copy.write_bytes(DATA.read_bytes())
        assert import_file(store, copy, "gb", "gamebench").created is False
        assert counts(store) == before
    finally:
        store.close()


def test_csv_rows_become_head_to_head_and_eval_matches(tmp_path: Path, store: Store) -> None:
    path = write(tmp_path, "results.csv", CSV)
    result = import_file(store, path, "ext")
    assert result.created and result.source.matches == 4 and result.source.outcome == "higher-wins"
    matches = stored_matches(store.engine, "ext")
    by_game = {(m.game, m.mode) for m in matches}
    assert by_game == {("duel", "head_to_head"), ("condense", "eval")}
    g2 = next(m for m in matches if m.key.endswith("id:g2"))
    bob = next(s for s in g2.seats if s.participant == "bob")
    assert (bob.role, bob.forfeit, bob.best) == ("black", True, None)
    evals = [m for m in matches if m.mode == "eval"]
    assert all(m.main_role == "a" and len(m.seats) == 1 for m in evals)
    assert len({m.map_id for m in evals}) == 1  # both rows name map m7 of condense
    assert set(map_labels(store.engine, [m.map_id for m in matches]).values()) == {"m1", "m7"}


def test_a_second_file_adds_a_source_to_the_same_tournament(tmp_path: Path, store: Store) -> None:
    import_file(store, write(tmp_path, "a.csv", CSV), "ext")
    more = "game,participant_a,score_a,participant_b,score_b\nduel,carol,1,alice,2\n"
    import_file(store, write(tmp_path, "b.csv", more), "ext")
    assert [s.file for s in import_sources(store.engine, "ext")] == ["a.csv", "b.csv"]
    assert len(stored_matches(store.engine, "ext")) == 5


def test_malformed_csv_rows_are_all_reported_and_nothing_is_stored(tmp_path: Path, store: Store) -> None:
    import_file(store, write(tmp_path, "good.csv", CSV), "ext")
    before = counts(store)
    bad = (
        "game,participant_a,score_a,participant_b,score_b\n"
        "duel,alice,1.0,bob,0.0\n"
        "duel,alice,abc,bob,0.0\n"  # line 3: not a number
        "duel,alice,1.0,bob\n"  # line 4: too few fields
        "\n"
        ",alice,1.0,bob,2.0\n"  # line 6: no game
        "duel,alice,1.0,alice,2.0\n"  # line 7: same participant twice
        "duel,alice,1.0,bob,\n"  # line 8: empty score
    )
    path = write(tmp_path, "bad.csv", bad)
    with pytest.raises(ImportFileError) as caught:
        import_file(store, path, "ext")
    error = caught.value
    assert [p.line for p in error.problems] == [3, 4, 6, 7, 8]
    message = str(error)
    assert "nothing was imported" in message
    assert "line 3: score_a 'abc' is not a number" in message and "duel,alice,abc,bob,0.0" in message
    assert "line 4: 4 fields, the header has 5" in message
    assert "line 8: score_b of 'bob' is empty" in message
    assert counts(store) == before
    # the CLI prints the same report and exits 2 without storing anything
    with pytest.raises(SystemExit) as exited:
        cli_main(["import", str(path), "--tournament", "ext", "--db", str(store.engine.url)])
    assert exited.value.code == 2
    assert counts(store) == before


def test_malformed_jsonl_rows_are_reported_with_their_line(tmp_path: Path, store: Store) -> None:
    rows = [
        json.dumps({"game": "duel", "participant_a": "alice", "score_a": 1, "participant_b": "bob", "score_b": 0}),
        "",
        "{not json",
        json.dumps({"game": "duel", "participant_a": "alice", "scor_a": 1}),
        json.dumps({"game": "duel", "participant_a": "alice", "score_a": True, "participant_b": "bob", "score_b": 0}),
        json.dumps({"game": "duel", "participant_a": "alice", "score_a": 2.5, "participant_b": "bob", "score_b": "forfeit"}),
    ]
    path = write(tmp_path, "r.jsonl", "\n".join(rows) + "\n")
    before = counts(store)
    with pytest.raises(ImportFileError) as caught:
        import_file(store, path, "ext")
    assert [p.line for p in caught.value.problems] == [3, 4, 5]
    assert "Did you mean 'score_a'?" in str(caught.value)
    assert counts(store) == before
    fixed = write(tmp_path, "ok.jsonl", rows[0] + "\n" + rows[5] + "\n")
    assert import_file(store, fixed, "ext").source.matches == 2


def test_malformed_gamebench_objects_name_their_line(tmp_path: Path) -> None:
    body = '[\n  {"game": "g", "a": 1.0, "b": 0.0},\n  {"game": "g", "a": 0.7, "b": 0.7},\n  {"game": "g", "a": 1.0}\n]\n'
    with pytest.raises(ImportFileError) as caught:
        parse_file(write(tmp_path, "m.json", body), "gamebench")
    assert [(p.line, p.message.split(":")[0]) for p in caught.value.problems] == [
        (3, "match #1"), (4, "match #2")
    ]


def test_duplicate_match_ids_and_bad_headers_are_refused(tmp_path: Path) -> None:
    dup = "game,participant_a,score_a,participant_b,score_b,match_id\nd,a,1,b,0,x\nd,a,0,b,1,x\n"
    with pytest.raises(ImportFileError, match="line 3: match_id 'x' already used on line 2"):
        parse_file(write(tmp_path, "dup.csv", dup))
    with pytest.raises(ImportFileError, match="line 1: unknown column 'participant'"):
        parse_file(write(tmp_path, "head.csv", "game,participant,score\nd,a,1\n"))


def test_played_and_imported_tournaments_stay_apart(tmp_path: Path, store: Store) -> None:
    store.ensure_tournament("played", "eval", "{}")
    with pytest.raises(StorageError, match="played by `arena run`"):
        import_file(store, write(tmp_path, "a.csv", CSV), "played")
    import_file(store, write(tmp_path, "a.csv", CSV), "ext")
    with pytest.raises(StorageError, match="holds imported results"):
        store.ensure_tournament("ext", "eval", "{}")
    assert len(import_sources(store.engine, "ext")) == 1


def test_win_share_needs_opponents_and_gamebench_refuses_another_rule(tmp_path: Path) -> None:
    with pytest.raises(ImportFileError, match="win shares need at least two seats"):
        parse_file(write(tmp_path, "a.csv", CSV), outcome="win-share")
    from arena.errors import ConfigError

    with pytest.raises(ConfigError, match="win shares"):
        parse_file(write(tmp_path, "m.json", "[]"), "gamebench", "higher-wins")
    with pytest.raises(ConfigError, match="Pass --format"):
        parse_file(write(tmp_path, "m.txt", ""))
