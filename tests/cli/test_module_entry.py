"""`python -m arena` is the `arena` command, and the version has one source (pyproject.toml)."""

from __future__ import annotations

import importlib.metadata as md
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_python_m_arena_help_and_version() -> None:
    help_run = subprocess.run([sys.executable, "-m", "arena", "--help"],
                              capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert help_run.returncode == 0, help_run.stderr
    assert "Usage:" in help_run.stdout and "play" in help_run.stdout and "run" in help_run.stdout
    version_run = subprocess.run([sys.executable, "-m", "arena", "--version"],
                                 capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert version_run.stdout == f"arena (xent-arena) {md.version('xent-arena')}\n"


def test_version_comes_from_pyproject() -> None:
    import arena

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert arena.__version__ == declared == md.version("xent-arena")
    # No second copy: no module assigns a literal version string.
    literal = f'__version__ = "{declared}"'
    assert not [p for p in (ROOT / "arena").rglob("*.py") if literal in p.read_text()]
