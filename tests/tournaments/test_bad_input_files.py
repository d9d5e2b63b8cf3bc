"""Bad input files: a tournament file is checked completely before anything runs (type
errors, unknown names, every participant's and NPC's spec options and the games, in one
listing, and no database is created); a game path that is not an XGL file is refused
without a byte of it shown; files that are not UTF-8 get one sentence; a file full of
errors lists the first 20 problems and how many more."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.errors import ConfigError, GameSyntaxError
from arena.lang.loader import load_game
from arena.match_setup import load_game_ref
from arena.plugins.registry import Registry
from arena.tournaments.planning.config import load_tournament
from arena.tournaments.planning.config_errors import TournamentConfigError
from arena.tournaments.services.run_config import run_file

REPO = Path(__file__).resolve().parents[2]
GAME = "assign(s=story(20))\nelicit(black, t, 6)\nreward(black, xed(s | t))\n"
SECRET = "root:x:0:0:TOP-SECRET-LINE:/root:/bin/bash"

BROKEN = """
name = "broken"
judge = "ngram"
npc = "helper"
rounds = "three"

[[participants]]
name = "alpha"
player = "random?bogus=1"

[[participants]]
name = "beta"
player = "randm"

[[participants]]
name = "helper"
player = "scripted:a|b?per_rond=1"
npc_only = true

[[games]]
game = "g.xgl"

[[games]]
game = "no_such_game"
"""


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("XENT_ARENA_DB", None)
    return subprocess.run([sys.executable, "-c", "from arena.cli import main; main()", *args],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry.load()


def problems_of(error: TournamentConfigError) -> dict[str, str]:
    return {p.path: p.message for p in error.problems}


async def test_type_errors_names_spec_options_and_games_come_in_one_listing(
    tmp_path: Path, registry: Registry
) -> None:
    (tmp_path / "g.xgl").write_text(GAME)
    path = tmp_path / "t.toml"
    path.write_text(BROKEN)
    with pytest.raises(TournamentConfigError) as caught:
        await run_file(path, db=str(tmp_path / "arena.db"), registry=registry)
    found = problems_of(caught.value)
    assert "must be" in found["rounds"] or "integer" in found["rounds"]
    assert "Unknown parameter 'bogus'" in found["participants[0](alpha).player"]
    assert "Unknown player 'randm'" in found["participants[1](beta).player"]
    assert "Did you mean 'random'" in found["participants[1](beta).player"]
    assert "Unknown parameter 'per_rond'" in found["participants[2](helper).player"]
    assert "Did you mean 'per_round'" in found["participants[2](helper).player"]
    assert "Unknown game 'no_such_game'" in found["games[1](no_such_game).game"]
    assert len(found) == 5, found
    assert not (tmp_path / "arena.db").exists()


async def test_a_well_typed_file_gets_the_same_checks_before_the_database_opens(
    tmp_path: Path, registry: Registry
) -> None:
    (tmp_path / "g.xgl").write_text(GAME)
    path = tmp_path / "t.toml"
    path.write_text(BROKEN.replace('rounds = "three"', "rounds = 3"))
    with pytest.raises(TournamentConfigError) as caught:
        await run_file(path, db=str(tmp_path / "arena.db"), registry=registry)
    assert set(problems_of(caught.value)) == {
        "participants[0](alpha).player", "participants[1](beta).player",
        "participants[2](helper).player", "games[1](no_such_game).game",
    }
    assert not (tmp_path / "arena.db").exists()


def test_arena_run_lists_every_problem_once_and_exits_2(tmp_path: Path) -> None:
    (tmp_path / "g.xgl").write_text(GAME)
    (tmp_path / "t.toml").write_text(BROKEN)
    done = arena("run", "t.toml", "--db", "arena.db", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert "t.toml has 5 problems" in done.stderr
    assert sorted(os.listdir(tmp_path)) == ["g.xgl", "t.toml"]


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("passwd", SECRET.encode(), "is not a game file"),
        ("steal.py", f"print('{SECRET}')".encode(), "is not a game file"),
        ("binary.xgl", b"\x7fELF\x00\x00" + SECRET.encode(), "is a binary file"),
        ("latin1.xgl", f"# caf\xe9 {SECRET}\n".encode("latin-1"), "is not UTF-8 text"),
    ],
)
def test_a_game_path_that_is_not_xgl_text_is_refused_without_showing_it(
    tmp_path: Path, registry: Registry, name: str, content: bytes, expected: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ConfigError) as caught:
        load_game_ref(str(path), registry)
    message = str(caught.value)
    assert expected in message and str(path) in message
    assert "TOP-SECRET" not in message and "\n" not in message


def test_arena_play_refuses_a_password_file_in_one_sentence(tmp_path: Path) -> None:
    (tmp_path / "passwd").write_text(SECRET + "\n")
    done = arena("play", "passwd", "--judge", "ngram", "--player", "black=random", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "is not a game file" in done.stderr and "Traceback" not in done.stderr
    assert "TOP-SECRET" not in done.stdout + done.stderr


def test_a_tournament_file_that_is_not_utf8_is_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_bytes('name = "caf\xe9"\n'.encode("latin-1"))
    done = arena("run", "t.toml", "--db", "arena.db", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "is not UTF-8 text" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "arena.db").exists()


def test_a_game_full_of_errors_lists_twenty_and_counts_the_rest() -> None:
    source = "\n".join(f"assign(x{i}=nothing_{i}(1))" for i in range(60))
    with pytest.raises(GameSyntaxError) as caught:
        load_game(source, filename="many.xgl")
    error = caught.value
    total = len(error.diagnostics)
    assert total > 20
    message = str(error)
    assert message.count("many.xgl:") == 20
    assert message.splitlines()[0] == f"{total} problems in game file:"
    assert f"… and {total - 20} more" in message


@pytest.mark.parametrize(
    ("judge", "expected"),
    [
        ("ngram?order=many", "must be an integer, got 'many'"),
        ("bundled?devise=cpu", "Unknown parameter 'devise' for judge 'bundled?devise=cpu'"),
        ("bundled?pool_tokens=0", "must be >= 1"),
        ("hf?device=cpu", "names no model"),
        ("hf:gpt2?packing=maybe", "must be a boolean"),
        ("remote:http://127.0.0.1:1?protocol=grpc", "'protocol' of judge 'remote:http://127.0.0.1:1"
         "?protocol=grpc' cannot be 'grpc'. Valid options: native, openai."),
    ],
)
def test_judge_spec_options_join_the_listing_without_loading_anything(
    tmp_path: Path, registry: Registry, judge: str, expected: str
) -> None:
    (tmp_path / "g.xgl").write_text(GAME)
    path = tmp_path / "t.toml"
    path.write_text(BROKEN.replace('judge = "ngram"', f'judge = "{judge}"'))
    had_torch = "torch" in sys.modules
    with pytest.raises(TournamentConfigError) as caught:
        load_tournament(path, registry)
    found = problems_of(caught.value)
    assert expected in found["judge"], found
    assert len(found) == 6  # the judge's, beside the five of BROKEN
    assert had_torch or "torch" not in sys.modules  # no model was loaded to find it out
