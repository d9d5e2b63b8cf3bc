"""Acceptance with the bundled judge: every bundled game passes `arena games check`, the
paradoxical game is flagged ill-posed, and `search` beats `random` on Condense and
Synthesize over 20 maps (benchmarks/search_vs_random.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.analysis.smoke import check_game
from arena.match_setup import load_entry
from arena.plugins.registry import Registry

REPO = Path(__file__).resolve().parents[2]
REGISTRY = Registry.load()

pytestmark = [
    pytest.mark.torch,
    pytest.mark.slow,
    pytest.mark.skipif(
        "bundled" not in REGISTRY.judge_names(), reason="the bundled judge is not registered"
    ),
]


@pytest.mark.parametrize("name", REGISTRY.game_names())
async def test_every_bundled_game_passes_check_with_the_bundled_judge(name: str) -> None:
    """One game per test, so that each stays within the suite's per-test timeout."""
    pytest.importorskip("torch")
    judge = REGISTRY.create_judge("bundled")
    try:
        report = await check_game(load_entry(REGISTRY.game(name)), REGISTRY, judge)
    finally:
        await judge.aclose()
    assert report.status != "fail", report.failures
    assert report.wellposed is not None or report.needs_strong_judge
    if name == "paradox":
        assert report.wellposed is not None and report.wellposed.ill_posed
        assert report.status == "pass"  # flagged, as its header declares


def test_search_beats_random_on_condense_and_synthesize() -> None:
    pytest.importorskip("torch")
    if "search" not in REGISTRY.player_names():
        pytest.skip("the search player is not registered")
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "search_vs_random.py"), "--maps", "20"],
        cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True,
        text=True, timeout=3000,
    )
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("search_minus_random=")
    assert float(last.split("=", 1)[1]) > 0, done.stdout
