"""Fault 5: the plugins' `arena_on_event` hook hears every match, `arena games` ones too.

A real plugin (a module with a dist-info entry point, found by importlib.metadata on the
subprocess's path, as an installed plugin is) records each event's match id and type.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RECORDER = '''
import json, os
from arena import hookimpl

@hookimpl
def arena_on_event(event, match_id):
    with open(os.environ["EVENT_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps([match_id, event.type]) + "\\n")
'''


def install_recorder(site: Path) -> None:
    (site / "event_recorder.py").write_text(RECORDER, encoding="utf-8")
    info = site / "event_recorder-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: event-recorder\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[xent_arena]\nevent_recorder = event_recorder\n", encoding="utf-8"
    )


def arena(args: list[str], site: Path, log: Path) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join([str(REPO), str(site)])
    env = {**os.environ, "PYTHONPATH": path, "EVENT_LOG": str(log)}
    env.pop("XENT_ARENA_PLUGINS", None)
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )


def recorded(log: Path) -> dict[str, list[str]]:
    matches: dict[str, list[str]] = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        match_id, kind = json.loads(line)
        matches.setdefault(match_id, []).append(kind)
    return matches


def test_the_event_hook_hears_the_matches_of_games_check(tmp_path: Path) -> None:
    install_recorder(tmp_path)
    log = tmp_path / "events.jsonl"
    done = arena(
        ["games", "check", "single_text", "--judge", "ngram", "--no-wellposed",
         "--base", "random"],
        tmp_path, log,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    matches = recorded(log)
    # the smoke match, then one playability match per map (4 maps of 6 rounds)
    assert "games:check:single_text:0" in matches
    playability = sorted(m for m in matches if m.startswith("games:playability:single_text:"))
    assert playability == [f"games:playability:single_text:{i}" for i in range(4)]
    for kinds in matches.values():
        assert kinds[0] == "round_started" and kinds[-1] == "round_finished"
    assert matches[playability[0]].count("round_finished") == 6


def test_the_event_hook_hears_arena_play(tmp_path: Path) -> None:
    install_recorder(tmp_path)
    log = tmp_path / "events.jsonl"
    done = arena(
        ["play", "single_text", "--judge", "ngram", "--player", "black=random", "--rounds", "2"],
        tmp_path, log,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert recorded(log)["play:single_text:0"].count("round_finished") == 2
