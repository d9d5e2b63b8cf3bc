"""Output a person can trust: names from imported files reach the terminal without control
characters, and every listing starts with a header row."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from arena.cli import build_app
from arena.listing import printable, rich_cell, text_table

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
    assert imported.exit_code == 0, imported.output
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
