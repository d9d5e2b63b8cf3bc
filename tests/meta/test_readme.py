"""The README tells the truth: its example game checks, its quick start has two commands,
and CI runs both, verbatim: the quick start in a fresh environment, then the test command."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from arena.lang.loader import load_game

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()


def fenced_blocks(text: str) -> list[str]:
    return re.findall(r"```(?:\w+)?\n(.*?)```", text, flags=re.S)


def readme_command(which: str) -> str:
    """What CI runs: `.ci/readme_command.py` prints the README's commands verbatim."""
    done = subprocess.run(
        [sys.executable, str(REPO / ".ci" / "readme_command.py"), which],
        capture_output=True, text=True, check=True, timeout=60,
    )
    return done.stdout.strip()


def test_quick_start_has_exactly_two_commands() -> None:
    quick = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = [b.strip() for b in fenced_blocks(quick)]
    assert len(commands) == 2
    assert all(c.startswith("pip install torch==2.13.0") for c in commands)
    assert commands[0] == "pip install torch==2.13.0 && pip install -e . && arena demo"
    assert [readme_command("quick-start"), readme_command("test")] == commands


def test_ci_runs_both_readme_commands_first_the_quick_start() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    quick = (REPO / ".ci" / "quick_start").read_text()
    assert "readme_command.py quick-start" in quick and 'eval "$QUICK_START"' in quick
    assert "python3 -m venv \"$VENV\"" in quick and 'rm -rf "$VENV"' in quick  # fresh
    assert "grep -Eq '^rank +participant +rating'" in quick  # the leaderboard printed
    assert "readme_command.py test" in ci and 'eval "$TEST_COMMAND"' in ci
    assert ci.index("bash .ci/quick_start") < ci.index("venv .venv-ci") < ci.index("TEST_COMMAND")
    ignored = (REPO / ".gitignore").read_text().splitlines()
    assert ".venv-quickstart/" in ignored


def test_example_game_checks() -> None:
    block = next(b for b in fenced_blocks(README) if b.startswith("assign(s=story())"))
    program = load_game(block, filename="readme.xgl")
    assert [i.name for i in program.instructions] == ["assign", "elicit", "ensure", "reward"]
