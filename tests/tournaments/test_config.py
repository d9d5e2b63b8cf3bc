"""The tournament file: validation, every mistake reported at once with its key path,
cross-references with "did you mean", literal API keys refused and never echoed."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.redaction import redact
from arena.tournaments.planning.config import load_tournament, parse_tournament
from arena.tournaments.planning.config_errors import TournamentConfigError
from arena.tournaments.running.prepare import prepare_tournament
from tests.tournaments import arena_fixtures as fx

SECRET = "sk-live0123456789abcdefXYZ"


def problems_of(error: TournamentConfigError) -> dict[str, str]:
    return {p.path: p.render() for p in error.problems}


def test_a_valid_file_parses_with_defaults_and_relative_game_paths(tmp_path: Path) -> None:
    path = fx.tournament_file(tmp_path, fx.SMALL)
    config = load_tournament(path)
    assert config.name == "small" and config.mode == "eval"
    assert [p.name for p in config.participants] == ["npc", "alpha", "beta"]
    assert config.participants[0].npc_only
    assert config.games[1].rounds == 1 and config.games[0].rounds is None
    assert config.concurrency.global_ == 4 and config.concurrency.providers == {}
    assert config.base_dir == tmp_path.resolve()
    assert config.games[0].label == "condense"


def test_every_mistake_is_reported_with_its_key_path(tmp_path: Path) -> None:
    body = f"""
name = "demo"
mode = "evall"
base = "randm"
rouns = 3
npc = "random"

[concurrency]
global = 0
providers = {{ litellm = 0 }}

[[participants]]
name = "random"
player = "random?words=3"

[[participants]]
name = "gpt"
player = "litellm:openai/gpt-4o-mini?api_key={SECRET}"

[[participants]]
name = "random"
player = "x:y?bad"

[[games]]
game = "condense.xgl"
rounds = 0
npc = {{ bob = "gtp" }}

[[games]]
game = "condense.xgl"
maps = "two"
npc = 3
"""
    path = fx.tournament_file(tmp_path, body)
    with pytest.raises(TournamentConfigError) as caught:
        load_tournament(path)
    found = problems_of(caught.value)
    assert set(found) == {
        "mode",
        "rouns",
        "base",
        "concurrency.global",
        "concurrency.providers",
        "participants[1](gpt).player",
        "participants[2](random).player",
        "participants[2](random).name",
        "games[0](condense.xgl).rounds",
        "games[0](condense.xgl).npc.bob",
        "games[1](condense.xgl).maps",
        "games[1](condense.xgl).npc",
        "games[1](condense.xgl).game",
    }
    assert "Did you mean 'rounds'?" in found["rouns"]
    assert "Did you mean 'random'?" in found["base"]
    assert "Did you mean 'gpt'?" in found["games[0](condense.xgl).npc.bob"]
    assert "'two'" in found["games[1](condense.xgl).maps"]
    assert "= 0" in found["games[0](condense.xgl).rounds"]
    assert "api_key_env" in found["participants[1](gpt).player"]
    message = str(caught.value)
    assert "13 problems" in message
    assert SECRET not in message  # the key is never echoed


def test_bad_toml_syntax_is_reported_with_its_position(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('name = "x"\nmaps = \n', encoding="utf-8")
    with pytest.raises(TournamentConfigError, match=r"line 2"):
        load_tournament(path)


def test_a_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(TournamentConfigError, match="cannot be read"):
        load_tournament(tmp_path / "absent.toml")


@pytest.mark.parametrize(
    "player",
    [
        "litellm:openai/gpt-4o?api_key=abc",
        "litellm:openai/gpt-4o?token=abc",
        f"litellm:openai/gpt-4o?header={SECRET}",
        f"remote:{SECRET}",
    ],
)
def test_literal_keys_are_refused(player: str) -> None:
    data = {
        "name": "t",
        "participants": [{"name": "p", "player": player}],
        "games": [{"game": "g.xgl"}],
    }
    with pytest.raises(TournamentConfigError) as caught:
        parse_tournament(data)
    assert "participants[0](p).player" in problems_of(caught.value)
    assert SECRET not in str(caught.value)


def test_environment_variable_names_for_keys_are_accepted() -> None:
    data = {
        "name": "t",
        "participants": [{"name": "p", "player": "litellm:x?api_key_env=OPENAI_API_KEY"}],
        "games": [{"game": "g.xgl"}],
    }
    assert parse_tournament(data).participants[0].player.endswith("api_key_env=OPENAI_API_KEY")


def test_redact_hides_secret_parameters_and_key_like_tokens() -> None:
    text = f"litellm:m?api_key=abc&temperature=0.2&x={SECRET}"
    assert redact(text) == "litellm:m?api_key=***&temperature=0.2&x=***"


def test_registry_checks_report_all_problems_together(tmp_path: Path) -> None:
    (tmp_path / "bad.xgl").write_text("elicit(black, q, 5)\n", encoding="utf-8")
    body = """
name = "checks"
judge = "ngrma"
npc = { alice = "p1" }

[[participants]]
name = "p1"
player = "randm"

[[participants]]
name = "p2"
player = "random"

[[games]]
game = "duel.xgl"

[[games]]
game = "bad.xgl"

[[games]]
game = "no_such_game"

[[games]]
game = "condense.xgl"
npc = { white = "p1" }
"""
    path = fx.tournament_file(tmp_path, body, ["duel.xgl", "condense.xgl"])
    config = load_tournament(path)
    with pytest.raises(TournamentConfigError) as caught:
        prepare_tournament(config, fx.registry(), str(path))
    found = problems_of(caught.value)
    assert set(found) == {
        "judge",
        "participants[0](p1).player",
        "games[0](duel.xgl).npc",
        "games[1](bad.xgl).game",
        "games[2](no_such_game).game",
        "games[3](condense.xgl).npc.white",
    }
    assert "Did you mean 'ngram'?" in found["judge"]
    assert "Did you mean 'random'?" in found["participants[0](p1).player"]
    assert "bob" in found["games[0](duel.xgl).npc"]  # the role without an NPC
    assert "Unknown register 'q'" in found["games[1](bad.xgl).game"]
    assert "not an active role" in found["games[3](condense.xgl).npc.white"]


def test_head_to_head_with_too_few_participants_is_reported(tmp_path: Path) -> None:
    body = """
name = "h2h"
mode = "head_to_head"
[[participants]]
name = "solo"
player = "random"
[[games]]
game = "duel.xgl"
"""
    path = fx.tournament_file(tmp_path, body, ["duel.xgl"])
    with pytest.raises(TournamentConfigError, match="at least as many participants as seats"):
        prepare_tournament(load_tournament(path), fx.registry(), str(path))
