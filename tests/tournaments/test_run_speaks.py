"""`arena run FILE > log` speaks (issue 30, item 5): a start line, a progress line every
`--report-every` seconds (phase, maps k/N, matches k/N, ETA) and the final leaderboard, with
runs counted within their tournament ("run 1 of speaks" though another tournament ran
first). A real `arena` process whose stdout is a file, not a terminal."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GAME = "assign(s=story(20))\nelicit(black, t, 6)\nreward(black, xed(s | t))\n"
FIRST = """
name = "first"
judge = "ngram"
maps = 1

[[participants]]
name = "solo"
player = "random?words=3"

[[games]]
game = "g.xgl"
"""
# The waiter's seat waits a second for a remote agent that never comes, then forfeits: one
# match at a time, the run lasts several seconds.
SPEAKS = """
name = "speaks"
judge = "ngram"
maps = 3

[concurrency]
global = 1

[[participants]]
name = "fast"
player = "random?words=3"

[[participants]]
name = "waiter"
player = "remote:nobody?port=0&timeout=1"

[[games]]
game = "g.xgl"
"""
PROGRESS = re.compile(r"^run 1 of speaks: (preparing|playing), maps \d+/3, matches (\d)/6"
                      r"(, errors \d+, forfeits \d+)?, ETA (\d+:\d\d:\d\d|after preparation|after the first matches), "
                      r"elapsed \d+:\d\d:\d\d$")


def arena_run(folder: Path, name: str, *extra: str) -> list[str]:
    """`arena run NAME.toml` with stdout into a file; its lines."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    log = folder / f"{name}.log"
    with log.open("w") as out:
        done = subprocess.run(
            [sys.executable, "-m", "arena.cli", "run", f"{name}.toml", "--db", "arena.db",
             *extra], cwd=folder, env=env, stdout=out, stderr=subprocess.PIPE, text=True,
            timeout=300)
    assert done.returncode == 0, done.stderr
    return log.read_text().splitlines()


def test_a_run_into_a_file_says_it_started_how_it_goes_and_its_leaderboard(
    tmp_path: Path,
) -> None:
    (tmp_path / "g.xgl").write_text(GAME)
    (tmp_path / "first.toml").write_text(FIRST)
    (tmp_path / "speaks.toml").write_text(SPEAKS)
    assert arena_run(tmp_path, "first")[0] == "run 1 of first started: 1 matches planned"

    lines = arena_run(tmp_path, "speaks", "--report-every", "0.5")
    assert lines[0] == "run 1 of speaks started: 6 matches planned"  # not run 2: its own count
    progress = [PROGRESS.match(line) for line in lines[1:] if line.startswith("run 1 of")]
    assert len(progress) >= 2 and all(progress), lines
    counts = [int(m[2]) for m in progress if m]
    assert counts == sorted(counts) and counts[-1] > counts[0], counts
    ended = lines.index(next(li for li in lines if li.startswith("done: 6 match(es)")))
    board = lines[ended + 1:]
    assert board[1].startswith("Leaderboard of speaks: 6 matches")
    assert any(re.match(r"^1-2\s+fast\s+\d+", line) for line in board), board

    again = arena_run(tmp_path, "speaks")  # nothing left to play: it still says which run
    assert again[0] == "run 2 of speaks started: 6 matches planned, 6 already stored"
    assert any(line.startswith("Leaderboard of speaks: 6 matches") for line in again)
    assert not [line for line in again if PROGRESS.match(line)]
