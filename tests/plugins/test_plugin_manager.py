"""Plugin manager: checkout built-ins, allow-list, registration failures, event dispatch."""

from __future__ import annotations

import logging

import pytest

from arena.events import Reward, RoundStarted
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_manager import (
    ALLOW_ENV,
    ArenaPluginManager,
    create_plugin_manager,
    dispatch_event,
)
from arena.plugins.plugin_types import PlayerEntry
from arena.plugins.registry import Registry

BUILTINS = {"builtin_players", "builtin_judges"}


def test_bare_manager_has_hookspecs_and_no_plugins() -> None:
    pm = create_plugin_manager(load_entrypoints=False)
    assert pm.list_name_plugin() == []
    hooks = {"arena_players", "arena_judges", "arena_games", "arena_story_sources",
             "arena_samplers", "arena_cli_commands", "arena_on_event"}
    assert hooks <= {name for name in dir(pm.hook) if name.startswith("arena_")}


def test_checkout_builtins_load_once_with_their_distribution() -> None:
    pm = create_plugin_manager()
    names = [name for name, _ in pm.list_name_plugin()]
    assert set(names) >= BUILTINS
    assert len(names) == len(set(names))
    for name in BUILTINS:
        assert pm.origins[name].dist == "xent-arena"
        assert pm.origins[name].version
    reg = Registry.from_plugin_manager(pm)
    assert {"random", "scripted"} <= set(reg.player_names())
    assert "ngram" in reg.judge_names()
    assert not [f for f in reg.failures() if f.name in BUILTINS]


def test_builtins_come_first_in_load_order() -> None:
    names = [name for name, _ in create_plugin_manager().list_name_plugin()]
    builtin_positions = [i for i, name in enumerate(names) if name.startswith("builtin_")]
    assert builtin_positions == list(range(len(builtin_positions)))


def test_allow_list_keeps_builtins_and_reports_missing_names() -> None:
    pm = create_plugin_manager(allow=["no_such_plugin"])
    assert {name for name, _ in pm.list_name_plugin()} >= BUILTINS
    missing = [f for f in pm.load_failures if f.name == "no_such_plugin"]
    assert missing and ALLOW_ENV in missing[0].error


def test_allow_list_minus_builtin_drops_the_builtins() -> None:
    pm = create_plugin_manager(allow=["-builtin"])
    assert not BUILTINS & {name for name, _ in pm.list_name_plugin()}
    assert set(pm.skipped) >= BUILTINS
    assert not pm.load_failures


def test_allow_list_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ALLOW_ENV, " -builtin , ")
    assert not BUILTINS & {name for name, _ in create_plugin_manager().list_name_plugin()}
    monkeypatch.setenv(ALLOW_ENV, "")
    assert {name for name, _ in create_plugin_manager().list_name_plugin()} >= BUILTINS
    # The explicit argument wins over the environment.
    monkeypatch.setenv(ALLOW_ENV, "-builtin")
    assert {name for name, _ in create_plugin_manager(allow=[]).list_name_plugin()} >= BUILTINS


class BadSignature:
    @hookimpl
    def arena_on_event(self, event: object, match_id: str, extra: int) -> None:
        """Asks for an argument the hook does not provide."""


class GoodPlayers:
    @hookimpl
    def arena_players(self) -> list[PlayerEntry]:
        return [PlayerEntry("good", lambda spec, ctx: None)]  # type: ignore[arg-type,return-value]


def test_register_failure_is_recorded_and_others_load() -> None:
    pm = ArenaPluginManager()
    assert not pm.register_plugin(BadSignature(), "bad", dist="bad-dist", version="9")
    assert pm.register_plugin(GoodPlayers(), "good")
    assert not pm.register_plugin(GoodPlayers(), "good")  # duplicate name
    failures = pm.load_failures
    assert [f.name for f in failures] == ["bad", "good"]
    assert failures[0].dist == "bad-dist" and "extra" in failures[0].error
    assert "already registered" in failures[1].error
    assert Registry.from_plugin_manager(pm).player_names() == ["good"]


class Recorder:
    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    @hookimpl
    def arena_on_event(self, event: RoundStarted, match_id: str) -> None:
        self.seen.append((event.type, match_id))


class OnlyMatchId:
    """Implementations may take a subset of the hook's arguments."""

    def __init__(self) -> None:
        self.ids: list[str] = []

    @hookimpl
    def arena_on_event(self, match_id: str) -> None:
        self.ids.append(match_id)


class Exploder:
    @hookimpl
    def arena_on_event(self, event: object, match_id: str) -> None:
        raise RuntimeError("observer bug")


def test_dispatch_event_isolates_failing_observers(caplog: pytest.LogCaptureFixture) -> None:
    pm = create_plugin_manager(load_entrypoints=False)
    before, after, partial = Recorder(), Recorder(), OnlyMatchId()
    pm.register(before, name="before")
    pm.register(Exploder(), name="exploder")
    pm.register(after, name="after")
    pm.register(partial, name="partial")
    caplog.set_level(logging.WARNING, logger="arena.plugins.plugin_manager")
    assert dispatch_event(pm, RoundStarted(round=1, line=0), "m1") == 1
    reward = Reward(round=1, line=3, player="black", total=1.5, terms=[])
    assert dispatch_event(pm, reward, "m1") == 1
    assert before.seen == after.seen == [("round_started", "m1"), ("reward", "m1")]
    assert partial.ids == ["m1", "m1"]
    records = [r for r in caplog.records if "exploder" in r.getMessage()]
    assert len(records) == 2 and "observer bug" in records[0].getMessage()
    assert records[0].exc_info is not None and records[1].exc_info is None  # traceback once
    assert pm.event_errors["exploder"] == 2


def test_dispatch_event_with_a_plain_pluggy_manager() -> None:
    import pluggy

    from arena.plugins import hookspecs

    pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    rec = Recorder()
    pm.register(Exploder())
    pm.register(rec)
    assert dispatch_event(pm, RoundStarted(round=2, line=0), "m2") == 1
    assert rec.seen == [("round_started", "m2")]


def test_builtins_register_by_import_without_any_entry_point(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A checkout that was never installed (no entry points at all) still has every
    built-in: they are registered by import. Regression: after arena/plugins/ was made, the
    checkout's pyproject.toml was looked for beside arena/ and the built-ins were lost."""
    import importlib.metadata

    from arena.plugins import plugin_manager

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kwargs: ())
    monkeypatch.delenv(ALLOW_ENV, raising=False)
    pm = create_plugin_manager()
    assert [name for name, _ in pm.list_name_plugin()] == list(plugin_manager.BUILTINS)
    assert all(o.builtin and o.dist == "xent-arena" for o in pm.origins.values())
    reg = Registry.from_plugin_manager(pm)
    assert {"random", "scripted"} <= set(reg.player_names()) and "ngram" in reg.judge_names()
    assert {"local"} <= set(reg.executor_names()) and "mutate" in reg.sampler_names()
    assert reg.player_is_builtin("random") and not reg.failures()


def test_pyproject_declares_the_builtins_as_entry_points() -> None:
    """The built-ins are registered by import and declared as entry points alike."""
    import tomllib
    from pathlib import Path

    from arena.plugins.plugin_manager import BUILTINS, ENTRY_POINT_GROUP

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    declared = project["entry-points"][ENTRY_POINT_GROUP]
    assert {n: v for n, v in declared.items() if n.startswith("builtin_")} == dict(BUILTINS)
