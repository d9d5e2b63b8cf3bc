"""The plugins are discovered once per process: every `Registry.load()` after the first
returns the same registry (an `arena run` used to discover them twice), until the allow-list
or the installed entry points change, or `Registry.forget()` is called."""

from __future__ import annotations

from typing import Any

import pytest

from arena.plugins import registry as registry_module
from arena.plugins.plugin_manager import ALLOW_ENV
from arena.plugins.registry import Registry


@pytest.fixture
def discoveries(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    made: list[Any] = []
    real = registry_module.create_plugin_manager

    def counting(**kwargs: Any) -> Any:
        made.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(registry_module, "create_plugin_manager", counting)
    monkeypatch.delenv(ALLOW_ENV, raising=False)
    Registry.forget()
    yield made
    Registry.forget()


def test_load_discovers_once(discoveries: list[Any]) -> None:
    first = Registry.load()
    assert Registry.load() is first and Registry.load() is first
    assert len(discoveries) == 1
    assert "random" in first.player_names()


def test_a_new_allow_list_or_forget_discovers_again(
    discoveries: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    everything = Registry.load()
    monkeypatch.setenv(ALLOW_ENV, "builtin_players")
    players_only = Registry.load()
    assert players_only is not everything and len(discoveries) == 2
    monkeypatch.delenv(ALLOW_ENV)
    Registry.forget()
    assert Registry.load() is not everything and len(discoveries) == 3


def test_an_entry_point_installed_mid_process_is_seen(
    discoveries: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    before = Registry.load()
    real = registry_module.md.entry_points

    def with_one_more(**kwargs: Any) -> Any:
        found = list(real(**kwargs))
        extra = registry_module.md.EntryPoint("late", "arena.players.plugin", "xent_arena")
        return [*found, extra]

    monkeypatch.setattr(registry_module.md, "entry_points", with_one_more)
    assert Registry.load() is not before and len(discoveries) == 2
