"""Declared spec parameters (arena.spec_params): one declaration validates specs before any
factory runs, checks tournament files before they run, and writes `arena plugins`' docs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

import pytest

from arena import ConfigError, PlayerEntry, Spec, hookimpl, parse_spec
from arena.plugin_manager import create_plugin_manager
from arena.plugin_types import PlayerContext
from arena.registry import Registry
from arena.spec_params import Param, SpecParams
from tournaments.config import TournamentConfigError, load_tournament
from tournaments.prepare import prepare_tournament

REPO = Path(__file__).resolve().parents[2]
DECLARED = SpecParams(
    arg="a colour",
    params=(
        Param("words", "int", 3, "words per move", minimum=1),
        Param("heat", "float", 0.5, "temperature", minimum=0.0),
        Param("loud", "bool", False, "shout"),
    ),
)


def test_a_declaration_validates_specs_with_one_sentence_each() -> None:
    DECLARED.validate(parse_spec("p:red?words=2&heat=0.1&loud=yes"), "player")
    cases = {
        "p?word=2": "Unknown parameter 'word' for player 'p?word=2'. Did you mean 'words'?",
        "p?words=zero": "must be an integer, got 'zero'. Write e.g. words=3.",
        "p?words=0": "must be >= 1, got 0",
        "p?heat=-1": "must be >= 0, got -1",
        "p?loud=maybe": "loud",
    }
    for text, message in cases.items():
        with pytest.raises(ConfigError) as error:
            DECLARED.validate(parse_spec(text), "player")
        assert message in str(error.value)
    with pytest.raises(ConfigError, match="takes no ':' argument"):
        SpecParams().validate(parse_spec("q:x"), "judge")
    with pytest.raises(ConfigError, match="needs a ':' argument"):
        SpecParams(arg="moves", arg_required=True).validate(parse_spec("q"), "player")
    with pytest.raises(ConfigError, match="It takes none"):
        SpecParams().validate(parse_spec("q?x=1"), "player")
    assert DECLARED.doc() == (
        "arg: a colour; words=<int> words per move (default 3); heat=<float> temperature "
        "(default 0.5); loud=<bool> shout (default False)"
    )


class Plugin:
    built: ClassVar[list[str]] = []

    @staticmethod
    def factory(spec: Spec, ctx: PlayerContext) -> object:
        Plugin.built.append(spec.raw)
        raise AssertionError("never reached for a bad spec")

    @hookimpl
    def arena_players(self) -> list[PlayerEntry]:
        return [PlayerEntry("painter", self.factory, "paints", params=DECLARED)]


def test_the_registry_validates_before_calling_the_factory_or_the_check() -> None:
    pm = create_plugin_manager(load_entrypoints=False)
    pm.register(Plugin(), name="painter_plugin")
    registry = Registry.from_plugin_manager(pm)
    with pytest.raises(ConfigError, match="Did you mean 'words'"):
        registry.create_player("painter?word=3")
    with pytest.raises(ConfigError, match="Did you mean 'words'"):
        registry.check_spec("player", "painter?word=3")
    assert Plugin.built == []


def test_a_tournament_file_with_a_bad_builtin_parameter_is_refused_before_it_runs(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.toml"
    path.write_text(
        'name = "t"\njudge = "ngram"\n[[participants]]\nname = "a"\nplayer = "search?budjet=8"\n'
        '[[participants]]\nname = "b"\nplayer = "random?words=0"\n[[games]]\ngame = "single_text"\n',
        encoding="utf-8",
    )
    registry = Registry.load()
    with pytest.raises(TournamentConfigError) as error:
        prepare_tournament(load_tournament(path, registry), registry, str(path))
    text = str(error.value)
    assert "Did you mean 'budget'" in text and "must be >= 1, got 0" in text


def test_arena_plugins_renders_the_declared_docs() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "arena.cli", "plugins", "--json"], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    players = json.loads(done.stdout)["specs"]["players"]
    assert players["search"].startswith("budget=<int> simulations per move (default 64)")
    assert players["scripted"].startswith("arg: move1|move2|...")
    table = subprocess.run([sys.executable, "-m", "arena.cli", "plugins"], cwd=REPO, env=env,
                           capture_output=True, text=True, timeout=120)
    assert "Spec parameters" in table.stdout and "per_round=<bool>" in table.stdout
