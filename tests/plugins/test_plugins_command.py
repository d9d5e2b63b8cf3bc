"""`arena plugins` (table and JSON) and mounting plugins' own CLI commands."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

import arena.judges.plugin as judges_plugin
import arena.players.plugin as players_plugin
from arena.cli.commands import plugins as plugins_command
from arena.cli.commands.plugins import mount_plugin_commands
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_manager import ArenaPluginManager
from arena.plugins.registry import Registry

runner = CliRunner()


class Tools:
    """A plugin adding a command group and a top-level command."""

    @hookimpl
    def arena_cli_commands(self) -> list[typer.Typer]:
        group = typer.Typer(name="tools")

        @group.command()
        def greet(who: str) -> None:
            typer.echo(f"hello {who}")

        top = typer.Typer()

        @top.command()
        def say_twice(word: str) -> None:
            typer.echo(f"{word} {word}")

        clash = typer.Typer()

        @clash.command("plugins")
        def fake_plugins() -> None:
            typer.echo("hijacked")

        return [group, top, clash]


class Broken:
    @hookimpl
    def arena_players(self) -> list[object]:
        raise ImportError("missing optional dependency 'foo'")


def make_registry() -> Registry:
    pm = ArenaPluginManager()
    pm.register_plugin(players_plugin, "builtin_players", dist="xent-arena", version="0.1.0")
    pm.register_plugin(judges_plugin, "builtin_judges", dist="xent-arena", version="0.1.0")
    pm.register_plugin(Tools(), "tools_plugin", dist="arena-tools", version="2.0")
    pm.register_plugin(Broken(), "broken_plugin", dist="arena-broken", version="0.0.1")
    return Registry.from_plugin_manager(pm)


@pytest.fixture
def app_with_plugins_command() -> typer.Typer:
    app = typer.Typer(context_settings={"obj": make_registry()})  # as `arena` hands it down
    app.add_typer(plugins_command.app)

    @app.command()
    def version() -> None:
        typer.echo("0.1.0")

    return app


def test_plugins_json_lists_plugins_and_failures(app_with_plugins_command: typer.Typer) -> None:
    result = runner.invoke(app_with_plugins_command, ["plugins", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    plugins = {p["name"]: p for p in data["plugins"]}
    assert {"random", "scripted", "search", "litellm"} <= set(plugins["builtin_players"]["players"])
    assert {"ngram", "bundled", "hf"} <= set(plugins["builtin_judges"]["judges"])
    assert plugins["tools_plugin"]["dist"] == "arena-tools"
    assert plugins["tools_plugin"]["commands"] == ["tools", "say-twice", "plugins"]
    (failure,) = data["failures"]
    assert failure["name"] == "broken_plugin" and failure["dist"] == "arena-broken"
    assert "ImportError: missing optional dependency 'foo'" in failure["error"]
    assert data["skipped"] == []


def test_plugins_table_shows_plugins_and_failures(app_with_plugins_command: typer.Typer) -> None:
    result = runner.invoke(app_with_plugins_command, ["plugins"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for text in ("builtin_players", "players: random, scripted", "judges: ngram",
                 "commands: tools, say-twice, plugins", "arena-tools", "2.0",
                 "Plugin failures", "broken_plugin", "missing optional dependency"):
        assert text in result.output


def test_plugins_strict_exits_nonzero_on_failures(app_with_plugins_command: typer.Typer) -> None:
    result = runner.invoke(app_with_plugins_command, ["plugins", "--strict", "--json"])
    assert result.exit_code == 1


def test_mount_plugin_commands_skips_taken_names(app_with_plugins_command: typer.Typer) -> None:
    app = app_with_plugins_command
    skipped = mount_plugin_commands(app, make_registry())
    assert skipped == ["plugins"]
    assert runner.invoke(app, ["tools", "greet", "bob"]).output == "hello bob\n"
    assert runner.invoke(app, ["say-twice", "hi"]).output == "hi hi\n"
    assert "hijacked" not in runner.invoke(app, ["plugins", "--json"]).output
