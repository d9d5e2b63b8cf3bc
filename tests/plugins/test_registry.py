"""Registry: lookups, unknown names, conflicts, and isolation of misbehaving plugins."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import ModuleType

import pytest

import arena.games.plugin as games_plugin
import arena.judges.plugin as judges_plugin
import arena.players.plugin as players_plugin
from arena.errors import ConfigError, PluginError, UnknownNameError
from arena.players.local.scripted import ScriptedPlayer
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_manager import ArenaPluginManager, create_plugin_manager
from arena.plugins.plugin_types import (
    GameEntry,
    JudgeEntry,
    PlayerContext,
    PlayerEntry,
    StorySourceEntry,
)
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.protocols.player import MoveRequest
from arena.protocols.story import StoryRequest
from arena.specs import Spec, parse_spec


def registry_of(*plugins: tuple[str, object]) -> Registry:
    pm = create_plugin_manager(load_entrypoints=False)
    for name, plugin in plugins:
        pm.register(plugin, name=name)
    return Registry.from_plugin_manager(pm)


def builtin_plugins() -> list[tuple[str, ModuleType]]:
    return [
        ("builtin_players", players_plugin),
        ("builtin_judges", judges_plugin),
        ("builtin_games", games_plugin),
    ]


class EchoPlayer:
    def __init__(self, spec: Spec, ctx: PlayerContext) -> None:
        self.spec, self.ctx = spec, ctx

    @property
    def name(self) -> str:
        return self.spec.raw

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        return {r: self.spec.arg for r in request.registers}


class FixedStories:
    def __init__(self, text: str, judge: Judge | None) -> None:
        self.text, self.judge = text, judge

    @property
    def name(self) -> str:
        return "fixed"

    async def stories(self, requests: Sequence[StoryRequest]) -> list[str]:
        return [self.text for _ in requests]


class PluginA:
    @hookimpl
    def arena_players(self) -> list[PlayerEntry]:
        return [PlayerEntry("echo", EchoPlayer, "first echo"), PlayerEntry("solo", EchoPlayer)]

    @hookimpl
    def arena_story_sources(self) -> list[StorySourceEntry]:
        return [StorySourceEntry("fixed", lambda spec, judge: FixedStories(spec.arg, judge))]

    @hookimpl
    def arena_games(self) -> list[GameEntry]:
        return [GameEntry.from_source("# version: 3\nassign(s='x')\n", "tiny.xgl")]


def not_a_player(spec: Spec, ctx: PlayerContext) -> object:
    return "I am a string"


class PluginB:
    """Clashes with PluginA on 'echo' and registers some broken entries."""

    @hookimpl
    def arena_players(self) -> list[object]:
        return [
            PlayerEntry("echo", not_a_player),  # type: ignore[arg-type]
            "not an entry",
            PlayerEntry("bad name!", EchoPlayer),
            PlayerEntry("stringy", not_a_player),  # type: ignore[arg-type]
        ]

    @hookimpl
    def arena_judges(self) -> list[JudgeEntry]:
        raise RuntimeError("judge discovery exploded")

    @hookimpl
    def arena_games(self) -> str:
        return "not a list"


def failure_texts(reg: Registry, plugin: str) -> list[str]:
    return [f.error for f in reg.failures() if f.name == plugin]


def test_builtins_registered_directly() -> None:
    reg = registry_of(*builtin_plugins())
    players = {"random", "scripted", "litellm", "hf", "search", "human", "remote"}
    judges = {"ngram", "bundled", "hf", "remote"}
    assert set(reg.player_names()) == players
    assert set(reg.judge_names()) == judges
    names = {info.name: info for info in reg.plugins()}
    assert set(names["builtin_players"].provides["players"]) == players
    assert set(names["builtin_judges"].provides["judges"]) == judges
    assert reg.failures() == []
    player = reg.create_player("scripted:a|b", PlayerContext(role="black"))
    assert isinstance(player, ScriptedPlayer) and player.name == "scripted:a|b"


def test_create_judge_builds_the_bundled_ngram_judge() -> None:
    reg = registry_of(*builtin_plugins())
    judge = reg.create_judge("ngram?order=2")
    assert isinstance(judge, Judge)
    assert judge.info.name == "ngram"
    with pytest.raises(ConfigError, match="order"):
        reg.create_judge("ngram?order=zero")


@pytest.mark.parametrize(
    ("method", "kind", "name", "expected"),
    [
        ("create_player", "player", "randmo", "random"),
        ("create_judge", "judge", "ngarm", "ngram"),
        ("game", "game", "tinyy", "tiny"),
        ("create_story_source", "story source", "fixd", "fixed"),
    ],
)
def test_unknown_names_suggest_and_list_options(
    method: str, kind: str, name: str, expected: str
) -> None:
    reg = registry_of(*builtin_plugins(), ("a", PluginA()))
    with pytest.raises(UnknownNameError) as info:
        getattr(reg, method)(name)
    message = str(info.value)
    assert f"Unknown {kind} '{name}'" in message
    assert f"Did you mean '{expected}'?" in message
    assert "Valid options:" in message and expected in message
    assert "arena plugins" in message


def test_first_plugin_keeps_a_clashing_name_and_later_is_reported() -> None:
    reg = registry_of(("a", PluginA()), ("b", PluginB()))
    player = reg.create_player("echo:hi")
    assert isinstance(player, EchoPlayer)  # PluginA's, not PluginB's
    assert reg.player_entry("echo").description == "first echo"
    errors = failure_texts(reg, "b")
    assert any("player 'echo' is already provided by plugin 'a'" in e for e in errors)


def test_misbehaving_plugin_is_isolated() -> None:
    reg = registry_of(("b", PluginB()), ("a", PluginA()))
    errors = "\n".join(failure_texts(reg, "b"))
    assert "arena_judges raised RuntimeError: judge discovery exploded" in errors
    assert "arena_games returned str, expected a list" in errors
    assert "returned a str, expected PlayerEntry" in errors
    assert "Invalid player name 'bad name!'" in errors
    # Plugin a still loads fully, and b is still listed with what it did register.
    assert reg.game_names() == ["tiny"] and reg.game("tiny").version == "3"
    assert reg.story_source_names() == ["fixed"]
    infos = {info.name: info for info in reg.plugins()}
    assert infos["b"].provides["players"] == ("echo", "stringy")
    assert infos["a"].provides["players"] == ("solo",)


def test_factory_result_must_implement_the_protocol() -> None:
    reg = registry_of(("b", PluginB()))
    with pytest.raises(PluginError, match="Plugin 'b' returned a str for player 'stringy'"):
        reg.create_player("stringy")


def raising_factory(spec: Spec, ctx: PlayerContext) -> EchoPlayer:
    if spec.arg == "config":
        raise ConfigError("bad arg, fix it")
    raise ValueError("boom")


class RaisingFactory:
    @hookimpl
    def arena_players(self) -> list[PlayerEntry]:
        return [PlayerEntry("fragile", raising_factory)]


def test_factory_errors_name_the_plugin_unless_already_arena_errors() -> None:
    reg = registry_of(("fragile_plugin", RaisingFactory()))
    with pytest.raises(PluginError, match="Plugin 'fragile_plugin' failed to create player "
                       "'fragile:x': ValueError: boom") as info:
        reg.create_player("fragile:x")
    assert isinstance(info.value.__cause__, ValueError)
    with pytest.raises(ConfigError, match="bad arg, fix it"):
        reg.create_player(parse_spec("fragile:config"))


async def test_story_source_gets_spec_and_judge() -> None:
    reg = registry_of(*builtin_plugins(), ("a", PluginA()))
    judge = reg.create_judge("ngram")
    source = reg.create_story_source("fixed:once upon a time", judge)
    assert isinstance(source, FixedStories) and source.judge is judge
    out = await source.stories([StoryRequest(site="1:0", length=None, instruction=None, seed=1)])
    assert out == ["once upon a time"]


def test_player_context_reaches_the_factory() -> None:
    reg = registry_of(("a", PluginA()))
    ctx = PlayerContext(seed=42, role="alice")
    player = reg.create_player("echo:x?k=v", ctx)
    assert isinstance(player, EchoPlayer)
    assert player.ctx is ctx and dict(player.spec.params) == {"k": "v"}


def test_plugin_info_carries_origin() -> None:
    pm = ArenaPluginManager()
    pm.register_plugin(PluginA(), "a", dist="arena-plugin-a", version="1.2")
    (info,) = Registry.from_plugin_manager(pm).plugins()
    assert (info.name, info.dist, info.version) == ("a", "arena-plugin-a", "1.2")
    assert info.provides["games"] == ("tiny",)
    assert info.provides["story_sources"] == ("fixed",)
