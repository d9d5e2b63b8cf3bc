"""The example tournament files in `examples/` (one per mode) are accepted by the loader as
they are, and run end to end (with the n-gram judge, for speed) to a leaderboard."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import build_app
from arena.plugins.registry import Registry
from arena.tournaments.planning.config import load_tournament
from arena.tournaments.running.prepare import prepare_tournament

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
APP = build_app()


@pytest.mark.parametrize(
    ("file", "mode", "entrants", "matches"),
    [
        ("eval_with_npcs.toml", "eval", {"random", "story-teller"}, 24),
        ("head_to_head.toml", "head_to_head", {"random", "verbose", "scripted"}, 24),
    ],
)
def test_an_example_tournament_loads_and_runs(
    file: str, mode: str, entrants: set[str], matches: int, tmp_path: Path
) -> None:
    path = EXAMPLES / file
    text = path.read_text(encoding="utf-8")
    assert sum(line.lstrip().startswith("#") for line in text.splitlines()) >= 10  # commented
    registry = Registry.load()
    config = load_tournament(path, registry)
    assert config.mode == mode and config.judge == "bundled"
    assert {p.name for p in config.participants if not p.npc_only} == entrants
    assert len(prepare_tournament(config, registry, str(path)).plans) == matches

    fast = tmp_path / file  # the same file with the instant n-gram judge
    fast.write_text(text.replace('judge = "bundled"', 'judge = "ngram"', 1), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'x.db'}"
    runner = CliRunner()
    ran = runner.invoke(APP, ["run", str(fast), "--db", db, "--no-progress"])
    assert ran.exit_code == 0, ran.output
    assert f"done: {matches} match(es) stored this run (0 error(s))" in ran.output
    board = runner.invoke(APP, ["ratings", "-t", config.name, "--db", db, "--resamples", "50"])
    assert board.exit_code == 0, board.output
    rows = board.output.split("\n\n")[1].splitlines()
    assert rows[0].split()[:3] == ["rank", "participant", "rating"]
    assert {row.split()[1] for row in rows[1:]} == entrants
