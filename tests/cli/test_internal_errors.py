"""A bug is not the user's fault: an unexpected exception prints one line naming the log
file that holds the traceback and exits 1; Ctrl-C exits 130 with one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from arena.cli.console import INTERNAL_ERROR, INTERRUPTED, KEEP_CRASH_LOGS, ArenaGroup
from arena.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]

app = typer.Typer(cls=ArenaGroup)


@app.command("boom")
def boom() -> None:
    raise RuntimeError("the answer is not 42")


@app.command("stop")
def stop() -> None:
    raise KeyboardInterrupt


@app.command("mistake")
def mistake() -> None:
    raise ExceptionGroup("two", [ConfigError("First mistake."), ConfigError("Second one.")])


@app.command("hostile")
def hostile() -> None:
    raise ConfigError("Unknown participant 'eve\x1b[2J\u202e'.\n  2 | assign(x=eve)\n    |          ^")


@pytest.fixture
def log_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XENT_ARENA_LOG_DIR", str(tmp_path / "logs"))
    return tmp_path / "logs"


def test_an_internal_error_names_the_log_file_that_holds_the_traceback(log_dir: Path) -> None:
    result = CliRunner().invoke(app, ["boom"])
    assert result.exit_code == INTERNAL_ERROR
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output
    (log,) = log_dir.glob("crash-*.log")
    assert str(log) in lines[0] and "RuntimeError: the answer is not 42" in lines[0]
    text = log.read_text()
    assert "Traceback (most recent call last)" in text and 'raise RuntimeError("the' in text


def test_old_crash_logs_are_pruned(log_dir: Path) -> None:
    log_dir.mkdir()
    for i in range(KEEP_CRASH_LOGS + 5):
        (log_dir / f"crash-old-{i}.log").write_text("old")
    CliRunner().invoke(app, ["boom"])
    assert len(list(log_dir.glob("crash-*.log"))) == KEEP_CRASH_LOGS


def test_an_unwritable_log_dir_still_gives_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XENT_ARENA_LOG_DIR", str(blocker / "logs"))
    result = CliRunner().invoke(app, ["boom"])
    assert result.exit_code == INTERNAL_ERROR
    assert result.output.count("\n") == 1 and "could not be logged" in result.output


def test_ctrl_c_exits_130_with_one_line(log_dir: Path) -> None:
    result = CliRunner().invoke(app, ["stop"])
    assert result.exit_code == INTERRUPTED
    assert result.output.strip() == "aborted"


def test_user_errors_inside_an_exception_group_are_user_errors(log_dir: Path) -> None:
    result = CliRunner().invoke(app, ["mistake"])
    assert result.exit_code == 2
    assert result.output.splitlines() == ["error: First mistake.", "error: Second one."]
    assert not log_dir.exists()


def test_the_real_arena_program_logs_a_crash(tmp_path: Path) -> None:
    script = (
        "from arena.cli import build_app, main\n"
        "app = build_app()\n"
        "@app.command('boom')\n"
        "def boom() -> None:\n"
        "    raise ZeroDivisionError('deep inside')\n"
        "main(['boom'])\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "XENT_ARENA_LOG_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    assert done.returncode == INTERNAL_ERROR
    assert done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr
    (log,) = tmp_path.glob("crash-*.log")
    assert str(log) in done.stderr and "ZeroDivisionError: deep inside" in log.read_text()
    verbose = subprocess.run([sys.executable, "-c", script.replace("['boom']", "['--verbose', 'boom']")],
                             capture_output=True, text=True, env=env, timeout=120, check=False)
    assert verbose.returncode == INTERNAL_ERROR and "Traceback" in verbose.stderr


def test_a_user_error_shows_no_control_characters_and_keeps_its_listing(log_dir: Path) -> None:
    result = CliRunner().invoke(app, ["hostile"])
    assert result.exit_code == 2
    assert result.output.splitlines() == [
        "error: Unknown participant 'eve[2J'.", "  2 | assign(x=eve)", "    |          ^"]
