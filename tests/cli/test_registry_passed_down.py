"""The `arena` command discovers the plugins once and hands that registry to every command
(issue 23): commands and the library code under them take it from the click context and
never discover again. Checked with a registry only the context holds (a test player and
judge the installed plugins do not have) and by counting `Registry.load()` calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import tests.tournaments.arena_fixtures as fx
from arena.cli import build_app
from arena.plugins.registry import Registry
from arena.storage import sqlite_url

runner = CliRunner()


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every `Registry.load()` call made after the app is built."""
    build_app()
    calls: list[Any] = []
    real = Registry.load

    def counting(cls: type[Registry], allow: Any = None) -> Registry:
        calls.append(allow)
        return real(allow)

    monkeypatch.setattr(Registry, "load", classmethod(counting))
    return calls


def test_arena_run_plays_with_the_context_registry(tmp_path: Path, loads: list[Any]) -> None:
    path = fx.tournament_file(tmp_path, fx.SMALL)  # its "sleepy" player is the test plugin's
    db = sqlite_url(tmp_path / "arena.db")
    result = runner.invoke(
        build_app(), ["run", str(path), "--db", db, "--no-progress"], obj=fx.registry()
    )
    assert result.exit_code == 0, result.output
    assert "done:" in result.output
    assert loads == []


def test_commands_list_what_the_context_registry_holds(loads: list[Any]) -> None:
    registry = fx.registry()
    result = runner.invoke(build_app(), ["plugins", "--json"], obj=registry)
    assert result.exit_code == 0, result.output
    assert '"tournament_test_fixtures"' in result.output
    result = runner.invoke(
        build_app(), ["play", "single_text", "-p", "black=sleepy?words=2", "--judge", "flaky",
                      "--json"],
        obj=registry,
    )
    assert result.exit_code == 0, result.output
    assert loads == []


def test_the_built_app_hands_down_the_registry_it_mounted_commands_from(
    loads: list[Any],
) -> None:
    result = runner.invoke(build_app(), ["games", "list", "--json"])
    assert result.exit_code == 0, result.output
    assert '"single_text"' in result.output
    assert loads == []  # the app's own registry, built once when its commands were mounted
