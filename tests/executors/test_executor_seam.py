"""The executor seam: executors are plugins picked by name (file key or --executor), a
third party's included; an unknown name or a missing Ray is one sentence, exit 2."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from arena.errors import ConfigError, UnknownNameError
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_manager import create_plugin_manager
from arena.plugins.plugin_types import ExecutorEntry
from arena.plugins.registry import Registry
from arena.storage import sqlite_url
from arena.tournaments.cli.run import main as cli_main
from arena.tournaments.running.executors.engine import RunSummary
from arena.tournaments.running.executors.local import LocalExecutor
from arena.tournaments.running.executors.ray_support import import_ray
from arena.tournaments.services.run_config import run_file
from tests.tournaments import arena_fixtures as fx

USED: list[str] = []


class CountingExecutor(LocalExecutor):
    """A third party's executor: the local one, noting each tournament it runs."""

    name = "counting"

    async def run(self, tournament: Any, **kwargs: Any) -> RunSummary:
        USED.append(tournament.config.name)
        return await super().run(tournament, **kwargs)


@hookimpl
def arena_executors() -> list[ExecutorEntry]:
    return [ExecutorEntry("counting", CountingExecutor, "test executor")]


def registry() -> Registry:
    pm = create_plugin_manager()
    pm.register_plugin(fx, "tournament_test_fixtures")
    pm.register_plugin(sys.modules[__name__], "executor_test_plugin")
    return Registry.from_plugin_manager(pm)


def test_built_in_executors_register_through_the_hook() -> None:
    reg = registry()
    assert {"local", "ray", "counting"} <= set(reg.executor_names())
    assert {p.name for p in reg.plugins() if "local" in p.provides["executors"]} == {"builtin_executors"}


async def test_the_file_key_and_the_override_pick_the_executor(tmp_path: Path) -> None:
    body = fx.SMALL.replace('name = "small"', 'name = "picked"\nexecutor = "counting"')
    path = fx.tournament_file(tmp_path, body, ["condense.xgl", "duel.xgl"])
    reg = registry()
    summary = await run_file(path, db=sqlite_url(tmp_path / "a.db"), registry=reg)
    assert USED == ["picked"] and summary.written == 12
    again = await run_file(path, db=sqlite_url(tmp_path / "b.db"), registry=reg, executor="local")
    assert USED == ["picked"] and again.written == 12  # the override won


async def test_an_unknown_executor_lists_the_installed_ones(tmp_path: Path) -> None:
    path = fx.tournament_file(tmp_path, fx.SMALL)
    with pytest.raises(UnknownNameError) as caught:
        await run_file(path, db=sqlite_url(tmp_path / "a.db"), registry=registry(), executor="dask")
    message = str(caught.value)
    assert "dask" in message and "local" in message and "ray" in message


def test_without_ray_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails as if not installed
    with pytest.raises(ConfigError, match=r"pip install 'xent-arena\[ray\]'"):
        import_ray()


def test_arena_run_with_an_unknown_executor_exits_2_with_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = fx.tournament_file(tmp_path, fx.SMALL.replace("sleepy?words=3", "random?words=3"))
    path.write_text(path.read_text().replace('player = "sleepy?words=2"', 'player = "random"'))
    with pytest.raises(SystemExit) as caught:
        cli_main(["run", str(path), "--db", sqlite_url(tmp_path / "a.db"), "--executor", "dask"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "dask" in err and "ray" in err and "Traceback" not in err
