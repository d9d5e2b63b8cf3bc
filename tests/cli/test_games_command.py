"""`arena games` end to end: `python -m arena.cli games ...` in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def arena(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", "games", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )


def test_list_shows_every_game_with_players_and_version() -> None:
    done = arena("list", "--json")
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert len(rows) == 28
    assert rows["paradox"]["players"] == ["white", "black"]
    assert rows["condense"]["dialect"] == "xent" and rows["condense"]["version"] == "2"
    assert rows["secret_sharing"]["players"] == ["alice", "david", "bob", "carol"]
    table = arena("list")
    assert table.returncode == 0 and "single_text" in table.stdout


def test_show_prints_header_players_version_source_and_code() -> None:
    done = arena("show", "paradox")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "players:  white, black" in out
    assert "version:  1" in out
    assert "source:   Xent Games paper, section 2.2.9, example 16" in out
    assert "well-posed: no" in out  # the header
    assert "reward(white, xent(s | t))" in out  # the code


def test_check_reports_smoke_scores_and_flags_the_paradox() -> None:
    done = arena("check", "interception", "paradox", "--judge", "ngram", "--json")
    assert done.returncode == 0, done.stderr
    reports = {r["name"]: r for r in json.loads(done.stdout)}
    assert reports["interception"]["status"] == "pass"
    assert reports["interception"]["smoke"]["error"] is None
    paradox = reports["paradox"]
    assert paradox["wellposed"]["ill_posed"] is True
    assert paradox["declared_ill_posed"] is True and paradox["status"] == "pass"


def test_check_all_runs_every_game_without_failures() -> None:
    done = arena("check", "--all", "--judge", "ngram", "--no-wellposed")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "28 game(s):" in done.stdout and " 0 fail" in done.stdout


def test_check_of_a_broken_file_fails_with_a_located_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.xgl"
    bad.write_text("# Bad\nassign(s=story())\nelicit(t)\nreward(xed(s | t) + 0.5)\n")
    done = arena("check", str(bad), "--judge", "ngram")
    assert done.returncode == 1
    assert "FAIL  bad" in done.stdout
    assert "bad.xgl:3" in done.stdout and "^" in done.stdout


def test_unknown_game_names_the_valid_ones() -> None:
    done = arena("check", "singel_text", "--judge", "ngram")
    assert done.returncode == 2
    assert "Did you mean 'single_text'?" in done.stderr


def test_playability_reports_the_papers_verdicts_next_to_the_single_sample_check() -> None:
    done = arena("playability", "single_text", "--judge", "ngram", "--maps", "3", "--rounds",
                 "3", "--theta", "0.5", "--levels", "2", "--epsilon", "0.2", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    levels = report["levels"]
    assert (levels["maps"], levels["theta"], levels["levels"], levels["epsilon"]) == (3, 0.5, 2, 0.2)
    assert 0.0 <= levels["p_increasing"] <= 1.0 and isinstance(levels["playable_levels"], bool)
    bad = arena("playability", "single_text", "--judge", "ngram", "--theta", "0")
    assert bad.returncode == 2 and "--theta" in bad.stderr and "not a finite positive number" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_check_names_a_role_that_measures_nothing_against_its_npc() -> None:
    deaf = "scripted:the old river"  # as bob, it never reads alice's description
    done = arena("check", "describe_to_partner", "--judge", "ngram", "--no-wellposed",
                 "--player", deaf, "--json")
    assert done.returncode == 0, done.stderr
    [report] = json.loads(done.stdout)
    assert report["status"] == "warn"
    [flagged] = report["uninformative_roles"]
    assert flagged["role"] == "alice" and flagged["npcs"] == {"bob": deaf}
    assert any(w.startswith(f"role alice measures nothing with NPC(s) bob={deaf}")
               for w in report["warnings"])
    scores = list(flagged["scores"].values())
    assert len(scores) == 2 and scores[0] == scores[1]
