"""The example plugins in `plugins/`: a player plugin and a game-pack plugin.

The slow test pip-installs them (and a deliberately broken plugin) into the current
environment and drives the real `arena` console script; the fast tests load the same
modules in-process.
"""

from __future__ import annotations

import importlib.metadata as md
import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from arena.judges.ngram import NgramJudge
from arena.lang.loader import load_game
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_manager import create_plugin_manager
from arena.plugins.plugin_types import PlayerContext
from arena.plugins.registry import Registry
from tests.runtime.helpers import events_of, run_game

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = ROOT / "plugins"
ECHO, RIDDLES = PLUGINS / "arena-echo-player", PLUGINS / "arena-riddle-games"
BROKEN_MODULE = '''
from arena.plugins.hookspecs import hookimpl


@hookimpl
def arena_players():
    raise RuntimeError("this plugin is broken on purpose")


@hookimpl
def arena_on_event(event, match_id):
    raise RuntimeError("this observer is broken on purpose")
'''
BUILTIN_ONLY_GAME = 'assign(s="the miller walked to the river")\nelicit(t, 5)\nreward(xed(s | t))\n'


def pip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pip", "-q", *args], check=True,
                          capture_output=True, text=True)


def installed(dist: str) -> bool:
    try:
        md.distribution(dist)
    except md.PackageNotFoundError:
        return False
    return True


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The installed `arena` console script, run outside the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "XENT_ARENA_PLUGINS")}
    script = Path(sys.executable).parent / "arena"
    return subprocess.run([str(script), *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


def broken_dist(root: Path, tag: str) -> tuple[Path, str, str]:
    dist, module = f"xent-arena-broken-example-{tag}", f"broken_example_{tag}"
    path = root / dist
    path.mkdir()
    (path / f"{module}.py").write_text(BROKEN_MODULE, encoding="utf-8")
    (path / "pyproject.toml").write_text(
        f'[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
        f'[project]\nname = "{dist}"\nversion = "0.0.1"\n'
        f'[project.entry-points.xent_arena]\n{module} = "{module}"\n'
        f'[tool.setuptools]\npy-modules = ["{module}"]\n',
        encoding="utf-8",
    )
    return path, dist, module


def by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {plugin["name"]: plugin for plugin in report["plugins"]}


@pytest.mark.slow
def test_pip_installed_example_plugins_work_and_uninstall_cleanly(tmp_path: Path) -> None:
    tag = uuid.uuid4().hex[:8]
    # Build from copies so that pip's in-tree build files never land in the checkout.
    echo, riddles = (shutil.copytree(p, tmp_path / p.name) for p in (ECHO, RIDDLES))
    broken, broken_name, broken_ep = broken_dist(tmp_path, tag)
    game = tmp_path / "clue.xgl"
    game.write_text(BUILTIN_ONLY_GAME, encoding="utf-8")
    dists = ["arena-echo-player", "arena-riddle-games", broken_name]
    added_main = not installed("xent-arena")
    try:
        if added_main:  # CI installs the arena; a bare dev checkout may not have yet
            pip("install", "--no-deps", "--no-build-isolation", "-e", str(ROOT))
        pip("install", "--no-deps", "--no-build-isolation", str(echo), str(riddles), str(broken))

        listing = arena("plugins", "--json", cwd=tmp_path)
        assert listing.returncode == 0, listing.stderr
        plugins = by_name(json.loads(listing.stdout))
        assert plugins["echo"]["players"] == ["echo"]
        assert plugins["echo"]["dist"] == "arena-echo-player"
        assert plugins["echo"]["version"] == "0.1.0"
        assert plugins["riddle_games"]["games"] == ["riddle", "riddle_duel", "riddle_guess"]
        failures = json.loads(listing.stdout)["failures"]
        assert any(f["name"] == broken_ep and "broken on purpose" in f["error"] for f in failures)

        played = arena("play", "riddle_guess", "--judge", "ngram", "--player", "black=echo",
                       "--json", cwd=tmp_path)
        assert played.returncode == 0, played.stderr
        report = json.loads(played.stdout)
        assert report["game"] == "riddle_guess" and report["error"] is None
        assert isinstance(report["scores"]["black"]["best"], float)
        (response,) = [e for e in report["events"] if e["type"] == "elicit_response"]
        assert response["values"]["t"]

        # The broken plugin does not break a match that uses only built-ins.
        builtin = arena("play", str(game), "--judge", "ngram", "--player", "black=random",
                        "--json", cwd=tmp_path)
        assert builtin.returncode == 0, builtin.stderr
        assert json.loads(builtin.stdout)["scores"]["black"]["best"] is not None

        pip("uninstall", "-y", *dists)
        after = by_name(json.loads(arena("plugins", "--json", cwd=tmp_path).stdout))
        assert "echo" not in after and "riddle_games" not in after
        gone = arena("play", str(game), "--judge", "ngram", "--player", "black=echo",
                     cwd=tmp_path)
        assert gone.returncode == 2 and "Unknown player 'echo'" in gone.stderr
    finally:
        subprocess.run([sys.executable, "-m", "pip", "uninstall", "-y", *dists],
                       capture_output=True)
        if added_main:
            subprocess.run([sys.executable, "-m", "pip", "uninstall", "-y", "xent-arena"],
                           capture_output=True)


# ---------------------------------------------------------------- fast, in-process


@pytest.fixture
def example_modules(monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleType, ModuleType]:
    monkeypatch.syspath_prepend(str(ECHO))
    monkeypatch.syspath_prepend(str(RIDDLES))
    import arena_echo_player.plugin as echo_plugin
    import arena_riddle_games.plugin as riddle_plugin

    return echo_plugin, riddle_plugin


class BrokenPlugin:
    """A plugin object whose registration hook raises."""

    @staticmethod
    @hookimpl
    def arena_players() -> list[object]:
        raise RuntimeError("this plugin is broken on purpose")


async def test_the_example_plugins_register_and_play(
    example_modules: tuple[ModuleType, ModuleType],
) -> None:
    echo_plugin, riddle_plugin = example_modules
    pm = create_plugin_manager()
    pm.register(echo_plugin, name="echo")
    pm.register(riddle_plugin, name="riddle_games")
    registry = Registry.from_plugin_manager(pm)
    assert "echo" in registry.player_names()
    for name in ("riddle", "riddle_duel", "riddle_guess"):
        entry = registry.game(name)
        assert entry.version == "1" and entry.description and entry.dialect == "xgl"
        load_game(entry.source, filename=entry.filename, dialect=entry.dialect)
    judge = NgramJudge()
    player = registry.create_player("echo?words=3", PlayerContext(judge=judge, role="black"))
    result = await run_game(registry.game("riddle_guess").source, {"black": player}, judge)
    (move,) = events_of(result, "elicit_response")
    riddle = events_of(result, "assign")[0].values["a"]
    assert len(move.values["t"].split()) == 3
    assert set(move.values["t"].split()) <= set(re.findall(r"[A-Za-z0-9']+", riddle))
    assert result.scores["black"].best is not None


async def test_a_raising_plugin_does_not_break_a_builtin_match() -> None:
    pm = create_plugin_manager()
    pm.register(BrokenPlugin(), name="broken")
    registry = Registry.from_plugin_manager(pm)
    assert any(f.name == "broken" and "broken on purpose" in f.error
               for f in registry.failures())
    judge = NgramJudge()
    player = registry.create_player("random", PlayerContext(judge=judge, role="black"))
    result = await run_game(BUILTIN_ONLY_GAME, {"black": player}, judge)
    assert result.error is None and result.scores["black"].best is not None
