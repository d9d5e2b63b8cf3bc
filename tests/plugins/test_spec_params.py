"""Declared spec parameters (arena.spec_params): one declaration validates specs before any
factory runs, checks tournament files before they run, and writes `arena plugins`' docs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar, NoReturn

import pytest

from arena import ConfigError, PlayerEntry, Spec, hookimpl, parse_spec
from arena.plugins.plugin_manager import create_plugin_manager
from arena.plugins.plugin_types import PlayerContext
from arena.plugins.registry import Registry
from arena.spec_params import Param, SpecParams
from arena.tournaments.planning.config import load_tournament
from arena.tournaments.planning.config_errors import TournamentConfigError
from arena.tournaments.running.prepare import prepare_tournament

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



def test_every_integer_has_a_maximum_and_every_float_must_be_finite() -> None:
    # issue 24 item 4: spec integers had no maxima (random?words=99999999999999999999
    # built a move of that many words); nan/inf passed every float bound.
    huge = "9" * 5_000
    cases = {
        "p?words=99999999999999999999": (
            "Parameter 'words' of player 'p?words=99999999999999999999' must be <= "
            "9223372036854775807, got 99999999999999999999. Write e.g. words=9223372036854775807."
        ),
        "p?heat=nan": "Parameter 'heat' of player 'p?heat=nan' must be a finite number, got 'nan'",
        "p?heat=inf": "must be a finite number, got 'inf'. Write e.g. heat=0.5.",
        f"p?words={huge}": "must be an integer",  # int() refuses over 4 300 digits
    }
    for text, message in cases.items():
        with pytest.raises(ConfigError) as error:
            DECLARED.validate(parse_spec(text), "player")
        assert message in str(error.value)
        assert len(str(error.value)) < 400  # a 5 000-digit value is not echoed
    capped = SpecParams(params=(Param("n", "int", 3, maximum=10),))
    with pytest.raises(ConfigError, match=r"must be <= 10, got 11\. Write e\.g\. n=10\."):
        capped.validate(parse_spec("p?n=11"), "player")


class Plugin:
    built: ClassVar[list[str]] = []

    @staticmethod
    def factory(spec: Spec, ctx: PlayerContext) -> NoReturn:
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


def _kinds(registry: Registry) -> dict[str, dict[str, Any]]:
    """kind -> name -> entry, for every player, judge and story source the installed
    plugins register."""
    return {
        "player": {n: registry.player_entry(n) for n in registry.player_names()},
        "judge": {n: registry.judge_entry(n) for n in registry.judge_names()},
        "story source": {
            n: registry.story_source_entry(n) for n in registry.story_source_names()
        },
    }


def test_every_registered_player_judge_and_story_source_declares_its_parameters() -> None:
    kinds = _kinds(Registry.load())
    assert {"random", "scripted", "litellm", "hf", "search", "human", "remote"} <= set(
        kinds["player"]
    )
    assert {"ngram", "bundled", "hf", "remote"} <= set(kinds["judge"])
    for kind, entries in kinds.items():
        for name, entry in entries.items():
            assert isinstance(getattr(entry, "params", None), SpecParams), (kind, name)
            assert not hasattr(entry, "params_doc"), (kind, name)  # one home: the declaration


def _bad_value(param: Param) -> str:
    return {"int": "many", "float": "warm", "bool": "maybe"}.get(param.type, "bogus")


class Spies:
    """Re-registers the installed entries with factories and checks that record calls."""

    called: ClassVar[list[str]] = []

    def __init__(self, kinds: dict[str, dict[str, Any]]) -> None:
        self.kinds = kinds

    @staticmethod
    def spy(*args: object) -> object:
        Spies.called.append(str(args[0]))
        raise AssertionError("a spec the declaration refuses never reaches the plugin")

    def _wrapped(self, kind: str) -> list[object]:
        return [replace(entry, factory=self.spy, **({} if kind == "story source" else
                                                      {"check": self.spy}))
                for entry in self.kinds[kind].values()]

    @hookimpl
    def arena_players(self) -> list[object]:
        return self._wrapped("player")

    @hookimpl
    def arena_judges(self) -> list[object]:
        return self._wrapped("judge")

    @hookimpl
    def arena_story_sources(self) -> list[object]:
        return self._wrapped("story source")


def test_a_bad_option_or_value_is_refused_before_any_factory_or_check_runs() -> None:
    kinds = _kinds(Registry.load())
    pm = create_plugin_manager(load_entrypoints=False)
    pm.register(Spies(kinds), name="spies")
    registry = Registry.from_plugin_manager(pm)
    assert registry.failures() == []
    build: dict[str, Callable[[str], object]] = {
        "player": registry.create_player,
        "judge": registry.create_judge,
        "story source": registry.create_story_source,
    }
    typed = 0
    for kind, entries in kinds.items():
        for name, entry in entries.items():
            params = entry.params
            head = f"{name}:x" if params.arg is not None else name
            with pytest.raises(ConfigError) as error:
                build[kind](f"{head}?bogus=1")
            text = str(error.value)
            assert text.startswith(f"Unknown parameter 'bogus' for {kind} '{head}?bogus=1'.")
            if params.names:
                assert "Valid options: " + ", ".join(sorted(params.names)) in text
            else:  # e.g. the xent-maps story source takes its file only
                assert "It takes none." in text
            assert "\n" not in text
            for param in params.params:
                if param.type == "str" and not param.choices:
                    continue  # any text is a valid value
                spec = f"{head}?{param.name}={_bad_value(param)}"
                with pytest.raises(ConfigError, match=f"'{param.name}' of ") as error:
                    build[kind](spec)
                assert spec in str(error.value) and "\n" not in str(error.value)
                if kind != "story source":
                    with pytest.raises(ConfigError):
                        registry.check_spec(kind, spec)
                typed += 1
            if params.arg is None:
                with pytest.raises(ConfigError, match="takes no ':' argument"):
                    build[kind](f"{name}:x")
    assert typed > 40
    assert Spies.called == []


def test_the_entries_own_checks_still_run_after_the_declaration(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ARENA_UNSET_FOR_TEST", raising=False)
    registry = Registry.load()
    cases = [
        ("player", "litellm:openai/x?api_key_env=ARENA_UNSET_FOR_TEST", "is not set"),
        ("player", "litellm:openai/x?timeout=0", "timeout must be > 0"),
        ("player", "hf", "names no model"),
        ("player", "remote:bot?token_env=ARENA_UNSET_FOR_TEST", "which is not set"),
        ("judge", "remote?timeout=3", "names no server"),
        ("judge", "remote:http://127.0.0.1:1?token_env=ARENA_UNSET_FOR_TEST", "not set"),
    ]
    for kind, spec, message in cases:
        with pytest.raises(ConfigError, match=message):
            registry.check_spec(kind, spec)


def test_a_plugin_declaring_parameters_as_text_is_reported_not_loaded() -> None:
    class Old:
        @hookimpl
        def arena_players(self) -> list[PlayerEntry]:
            return [PlayerEntry("old", Plugin.factory, "old style", "words=<n>")]  # type: ignore[arg-type]

    pm = create_plugin_manager(load_entrypoints=False)
    pm.register(Old(), name="old_plugin")
    registry = Registry.from_plugin_manager(pm)
    assert "old" not in registry.player_names()
    [failure] = registry.failures()
    assert "declares its parameters as a str, expected arena.SpecParams" in failure.error


def test_arena_plugins_shows_every_declaration() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "arena.cli", "plugins", "--json"], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)["specs"]
    plural = {"player": "players", "judge": "judges", "story source": "story sources"}
    for kind, entries in _kinds(Registry.load()).items():
        assert shown[plural[kind]] == {
            name: entry.params.doc()
            for name, entry in entries.items()
        }
    assert "protocol=native|openai our server or vLLM (default native)" in shown["judges"]["remote"]
    assert shown["judges"]["ngram"] == "order=<int> n-gram order, 1..10 (default 5)"
    assert shown["players"]["litellm"].startswith("arg: litellm model id")
