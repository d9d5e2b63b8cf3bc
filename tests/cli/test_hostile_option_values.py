"""Hostile option values (issue 24 item 15): `arena export --out <existing file>` was an
internal error (exit 1); `--theta nan`, `--epsilon nan` and `--epsilon -1` were accepted
(or refused only after the matches were played); `--main <unknown role>` was ignored.
Each is now one sentence and exit 2, before any work."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import build_app

REPO = Path(__file__).resolve().parents[2]
APP = build_app()


@pytest.fixture(autouse=True)
def isolated_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XENT_ARENA_DB", f"sqlite:///{tmp_path / 'arena.db'}")
    monkeypatch.setenv("XENT_ARENA_LOG_DIR", str(tmp_path / "logs"))


def arena(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "XENT_ARENA_DB": f"sqlite:///{cwd / 'a.db'}"}
    return subprocess.run(
        [sys.executable, "-c", "from arena.cli import main; main()", *argv],
        capture_output=True, text=True, timeout=300, env=env, cwd=cwd,
    )


def one_sentence(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_export_to_an_existing_file_is_one_sentence(tmp_path: Path) -> None:
    results = tmp_path / "results.csv"
    results.write_text("game,participant_a,score_a,participant_b,score_b\nduel,a,1,b,0\n")
    imported = arena("import", str(results), "-t", "ext", cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    target = tmp_path / "taken.txt"
    target.write_text("keep me")
    said = one_sentence(arena("export", "-t", "ext", "--out", str(target), cwd=tmp_path))
    assert said.startswith(f"error: --out '{target}' is an existing file")
    assert "Pass a folder" in said
    assert target.read_text() == "keep me"
    inside = one_sentence(arena("export", "-t", "ext", "--out", str(target / "x"), cwd=tmp_path))
    assert "Cannot create the export folder" in inside


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["games", "playability", "condense", "--theta", "nan"], "nan is not a finite positive"),
        (["games", "playability", "condense", "--theta", "inf"], "inf is not a finite positive"),
        (["games", "playability", "condense", "--epsilon", "nan"], "nan is not in [0, 1)"),
        (["games", "playability", "condense", "--epsilon", "-1"], "-1.0 is not in [0, 1)"),
        (["games", "wellposed", "condense", "--epsilon", "nan"], "not strictly between 0 and 1"),
        (["games", "check", "condense", "--epsilon", "-1"], "not strictly between 0 and 1"),
        (["scores", "-t", "x", "--theta", "nan"], "nan is not a finite positive"),
        (["scores", "-t", "x", "--theta", "-1"], "-1.0 is not a finite positive"),
    ],
)
def test_nan_and_out_of_range_numbers_are_usage_errors(argv: list[str], says: str) -> None:
    result = CliRunner().invoke(APP, argv)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert says in result.output, result.output


def test_an_unknown_main_role_is_refused_naming_the_roles(tmp_path: Path) -> None:
    said = one_sentence(arena(
        "play", "condense", "--judge", "ngram", "-p", "black=random", "--main", "blak",
        cwd=tmp_path,
    ))
    assert "Main role 'blak' never plays in game 'condense'; pick an active role" in said
    assert "Did you mean 'black'? Valid options: black." in said
