"""`arena play --limit NAME=N` and the limits' messages, in a real subprocess."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli.commands.play import parse_limit_options
from arena.errors import ConfigError
from arena.lang.limits import DEFAULT_LIMITS
from tests.cli.test_play_command import arena

DOUBLING = 'assign(s="ab")\nbeacon(flag_1)\nassign(s=s+s)\nreplay(flag_1, 60)\nelicit(t, 5)\n'


def test_a_two_megabyte_literal_is_refused_before_play(tmp_path: Path) -> None:
    game = tmp_path / "big.xgl"
    game.write_text('assign(s="' + "x" * 2_000_000 + '")\nelicit(t, 5)\n')
    done = arena("play", str(game), "--judge", "ngram", "--player", "black=random")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr + done.stdout
    assert "big.xgl:1:10: error: this string literal is 2,000,000 characters" in done.stderr
    assert "^^^" in done.stderr
    assert len(done.stderr) < 3_000


def test_a_limit_set_on_the_command_line_stops_the_game_there(tmp_path: Path) -> None:
    game = tmp_path / "doubling.xgl"
    game.write_text(DOUBLING)
    base = ("play", str(game), "--judge", "ngram", "--player", "black=random")
    low = arena(*base, "--limit", "max_value_chars=1000")
    assert low.returncode == 1
    assert "this string is 1,535 characters, over the limit max_value_chars = 1,000" in low.stderr
    assert "(line 3: assign(s=s+s))" in low.stderr


def test_an_unknown_limit_is_one_sentence_and_exit_2(tmp_path: Path) -> None:
    game = tmp_path / "doubling.xgl"
    game.write_text(DOUBLING)
    base = ("play", str(game), "--judge", "ngram", "--player", "black=random", "--limit")
    unknown = arena(*base, "max_vaule_chars=5")
    assert unknown.returncode == 2 and "Traceback" not in unknown.stderr
    assert "Unknown limit 'max_vaule_chars'. Did you mean 'max_value_chars'?" in unknown.stderr
    assert "max_judge_chars" in unknown.stderr  # the valid names are listed


def test_limit_options_become_resource_limits() -> None:
    limits = parse_limit_options(["max_value_chars=5000", " max_line_chars = 20000 "])
    assert (limits.max_value_chars, limits.max_line_chars) == (5000, 20000)
    assert limits.max_judge_chars == DEFAULT_LIMITS.max_judge_chars
    for bad in ("max_value_chars=0", "max_value_chars=lots", "max_value_chars", "max_value_chars=-3"):
        with pytest.raises(ConfigError, match=f"Bad --limit value '{bad}'"):
            parse_limit_options([bad])
