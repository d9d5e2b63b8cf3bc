"""Output a person can trust: names from imported files reach the terminal without control
characters, and every listing starts with a header row."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from arena.cli import build_app
from arena.listing import printable, rich_cell, text_table
from arena.storage import Store
from arena.storage.imports import ImportedMatch, ImportedSeat
from arena.tournaments.records.rating_store import store_snapshot
from arena.tournaments.services.exchange.importers import ParsedFile, import_parsed

APP = build_app()
EVIL = "eve\x1b]0;pwned\x07\x1b[2J\u202e\rname\nx"


def test_printable_removes_control_characters_and_keeps_one_line() -> None:
    assert printable(EVIL) == "eve]0;pwned[2J name x"
    assert printable("naïve 名前 🙂 tab\there") == "naïve 名前 🙂 tab here"
    assert text_table(("a", "bb"), [("x\x1b", 1), ("yyy", 22)], right={1}) == [
        "a    bb", "x     1", "yyy  22"]


def test_rich_cells_are_never_markup() -> None:
    console = Console(record=True, width=80, color_system=None)
    console.print(rich_cell("[bold red]boom[/] \x1b[5m"))
    assert console.export_text().strip() == "[bold red]boom[/] [5m"


def test_imported_names_reach_the_terminal_as_plain_text(tmp_path: Path) -> None:
    results = tmp_path / "results.csv"
    rows = ["game,participant_a,score_a,participant_b,score_b,map"]
    rows += [f'duel,"{EVIL}",{2 + i % 2},bob,1.0,m{i}' for i in range(4)]
    rows += ["duel,carol,0.5,bob,1.0,m9"]
    results.write_text("\n".join(rows) + "\n", encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'x.db'}"
    runner = CliRunner()
    imported = runner.invoke(APP, ["import", str(results), "-t", "ext", "--db", db])
    # `arena import` refuses such a name now (issue 29 item 9), showing it escaped ...
    assert imported.exit_code == 2 and "participant_a" in imported.output
    assert "\x1b" not in imported.output and "\u202e" not in imported.output
    # ... but a database may hold one from before: the listings still print it as text
    store = Store.open(db, create=True)
    matches = [
        ImportedMatch(f"#{i}", "duel", f"m{i}", "head_to_head", (
            ImportedSeat("a", EVIL if i < 4 else "carol", 2.0 + i % 2),
            ImportedSeat("b", "bob", 1.0)))
        for i in range(5)
    ]
    import_parsed(store, ParsedFile("results.csv", "0" * 64, "csv", "higher-wins", "mle",
                                    tuple(matches)), "ext")
    store_snapshot(store, "ext")
    store.close()
    for argv, header in (
        (["ratings", "-t", "ext", "--db", db, "--resamples", "20"], ["rank", "participant"]),
        (["matches", "-t", "ext", "--db", db], ["match", "game", "map", "status"]),
    ):
        result = runner.invoke(APP, argv)
        assert result.exit_code == 0, result.output
        assert "\x1b" not in result.output and "\u202e" not in result.output
        assert "\r" not in result.output and "\x07" not in result.output
        assert "eve]0;pwned[2J name x" in result.output
        assert any(line.split()[: len(header)] == header for line in result.output.splitlines())
