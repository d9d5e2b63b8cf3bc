"""`arena play` end to end, in a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GAME = "assign(s=story(20))\nelicit(t, 5)\nensure(num_words(t) <= 5)\nreward(xed(s | t))\n"


def arena(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        input=stdin,
        timeout=120,
    )


@pytest.fixture
def game_file(tmp_path: Path) -> Path:
    path = tmp_path / "one.xgl"
    path.write_text(GAME)
    return path


def test_json_report_has_the_documented_shape(game_file: Path) -> None:
    done = arena("play", str(game_file), "--judge", "ngram", "--player", "black=random",
                 "--rounds", "2", "--seed", "3", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["game"] == "one" and report["dialect"] == "xgl"
    assert [r["round"] for r in report["rounds"]] == [1, 2]
    types = [e["type"] for e in report["events"]]
    assert types[0] == "round_started" and types[-1] == "round_finished"
    assert {"elicit_request", "elicit_response", "reward"} <= set(types)
    for event in report["events"]:
        assert {"type", "round", "line", "player"} <= set(event)
    request = next(e for e in report["events"] if e["type"] == "elicit_request")
    assert request["max_len"] == 5 and request["line"] == 2 and "s" in request["registers"]
    reward = next(e for e in report["events"] if e["type"] == "reward")
    assert reward["terms"][0]["bits"] and isinstance(reward["total"], float)
    black = report["scores"]["black"]
    assert len(black["rounds"]) == 2 and black["best"] == max(black["rounds"])
    assert black["forfeit"] is False


def test_the_printed_seed_key_replays_the_match(game_file: Path) -> None:
    args = ("play", str(game_file), "--judge", "ngram", "--player", "black=random", "--seed", "5", "--json")
    first = json.loads(arena(*args).stdout)
    key = first["seed_key"]
    assert len(key) == 64 and int(key, 16) >= 0
    again = json.loads(arena(*args, "--seed-key", key).stdout)
    assert again["events"] == first["events"] and again["seed_key"] == key
    # Without the key the same seed gives the same map but other move seeds: a player's
    # randomness depends on a secret, not on the (guessable) seed.
    other = json.loads(arena(*args).stdout)
    assert other["seed_key"] != key and other["events"] != first["events"]
    moves = [e["values"] for e in other["events"] if e["type"] == "elicit_response"]
    assert moves != [e["values"] for e in first["events"] if e["type"] == "elicit_response"]


def test_a_bad_seed_key_is_refused_with_a_hint(game_file: Path) -> None:
    done = arena("play", str(game_file), "--judge", "ngram", "--player", "black=random",
                 "--seed-key", "abc")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "Bad seed key 'abc'" in done.stderr and "64 hex digits" in done.stderr


def test_readable_transcript(game_file: Path) -> None:
    done = arena("play", str(game_file), "--judge", "ngram", "--player", "black=scripted:hello world")
    assert done.returncode == 0, done.stderr
    assert "black plays t='hello world'" in done.stdout
    assert "black: best" in done.stdout
    assert "seed key: " in done.stdout and "--seed-key KEY replays" in done.stdout


def test_bad_game_lists_every_mistake_with_carets(tmp_path: Path) -> None:
    bad = tmp_path / "bad.xgl"
    bad.write_text("assign(s=story())\nelicit(q9, 10)\nrewrd(xed(s | t))\nensure(s.upper())\n")
    done = arena("play", str(bad), "--judge", "ngram", "--player", "black=random")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "bad.xgl:2:" in done.stderr and "bad.xgl:3:" in done.stderr and "bad.xgl:4:" in done.stderr
    assert "^" in done.stderr
    assert "Did you mean 'reward'" in done.stderr


def test_unknown_player_and_dialect_list_valid_names(game_file: Path) -> None:
    done = arena("play", str(game_file), "--judge", "ngram", "--player", "black=randm")
    assert done.returncode == 2 and "Did you mean 'random'" in done.stderr
    done = arena("play", str(game_file), "--judge", "ngram", "--player", "black=random", "--dialect", "xnt")
    assert done.returncode == 2 and "xgl" in done.stderr and "xent" in done.stderr
    done = arena("play", str(game_file), "--judge", "ngrm", "--player", "black=random")
    assert done.returncode == 2 and "Did you mean 'ngram'" in done.stderr


def test_missing_or_extra_seats_are_explained(game_file: Path) -> None:
    done = arena("play", str(game_file), "--judge", "ngram", "--player", "alice=random")
    assert done.returncode == 2
    assert "no player for active role(s) black" in done.stderr


def test_crashing_player_forfeits_with_a_complete_log(game_file: Path) -> None:
    done = arena("play", str(game_file), "--judge", "ngram", "--player", "black=scripted:<raise>", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["scores"]["black"] == {"rounds": [None], "best": None, "forfeit": True}
    assert [e["type"] for e in report["events"]][-2:] == ["forfeit", "round_finished"]


def test_a_match_that_errors_exits_non_zero(tmp_path: Path) -> None:
    looping = tmp_path / "loop.xgl"
    looping.write_text("elicit(t, 3)\nbeacon(flag_1)\nassign(s=t)\nreplay(flag_1, 100000)\n")
    done = arena("play", str(looping), "--judge", "ngram", "--player", "black=random",
                 "--instruction-budget", "200")
    assert done.returncode == 1
    assert "more than 200 instructions" in done.stderr
