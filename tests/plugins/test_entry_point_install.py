"""Real entry points: pip-install throwaway plugin distributions and discover them.

Installs into the current environment and uninstalls in a `finally` block. Names carry a
random suffix so that a concurrent test run never sees another run's plugins.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.metadata
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from arena.plugins.plugin_manager import create_plugin_manager
from arena.plugins.registry import Registry
from arena.protocols.player import GameView, MoveRequest

GOOD_MODULE = '''
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_types import PlayerEntry


class Parrot:
    def __init__(self, word):
        self._word = word

    @property
    def name(self):
        return "parrot"

    async def move(self, request):
        return {{r: self._word for r in request.registers}}


@hookimpl
def arena_players():
    return [PlayerEntry("{player}", lambda spec, ctx: Parrot(spec.arg or "squawk"), "a parrot")]
'''

BROKEN_MODULE = 'raise ImportError("this plugin needs a package that is not installed")\n'


def write_dist(root: Path, dist: str, module: str, code: str | None, eps: dict[str, str]) -> Path:
    path = root / dist
    path.mkdir()
    lines = "\n".join(f'{name} = "{value}"' for name, value in eps.items())
    modules = f'py-modules = ["{module}"]' if code is not None else "py-modules = []"
    (path / "pyproject.toml").write_text(
        f"""[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{dist}"
version = "1.2.3"

[project.entry-points.xent_arena]
{lines}

[tool.setuptools]
{modules}
""",
        encoding="utf-8",
    )
    if code is not None:
        (path / f"{module}.py").write_text(code, encoding="utf-8")
    return path


def pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "-q", *args], check=True,
                   capture_output=True, text=True)


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@pytest.mark.slow
def test_installed_plugins_are_discovered_and_broken_ones_skipped(tmp_path: Path) -> None:
    tag = uuid.uuid4().hex[:8]
    good, broken, shadow = (f"xent-arena-testplugin-{kind}-{tag}"
                            for kind in ("good", "broken", "builtins"))
    good_ep, broken_ep, player = f"tp_good_{tag}", f"tp_broken_{tag}", f"parrot_{tag}"
    dirs = [
        write_dist(tmp_path, good, f"tp_good_{tag}", GOOD_MODULE.format(player=player),
                   {good_ep: f"tp_good_{tag}"}),
        write_dist(tmp_path, broken, f"tp_broken_{tag}", BROKEN_MODULE,
                   {broken_ep: f"tp_broken_{tag}"}),
        # Declares a built-in entry point, as the installed xent-arena would: the checkout's
        # copy must then not be registered a second time.
        write_dist(tmp_path, shadow, "", None, {"builtin_players": "arena.players.plugin"}),
    ]
    try:
        pip("install", "--no-deps", "--no-build-isolation", "--no-index", *map(str, dirs))
        importlib.invalidate_caches()

        pm = create_plugin_manager()
        reg = Registry.from_plugin_manager(pm)
        assert norm(pm.origins[good_ep].dist) == norm(good)
        assert pm.origins[good_ep].version == "1.2.3"
        assert player in reg.player_names()
        parrot = reg.create_player(f"{player}:hello")
        req = MoveRequest(game=GameView("g", "", "xgl"), role="black", round=1, rounds=1,
                          line=1, registers=("s",), max_len=5, visible={}, reveals=(),
                          history=())
        assert asyncio.run(parrot.move(req)) == {"s": "hello"}

        (failure,) = [f for f in reg.failures() if f.name == broken_ep]
        assert norm(failure.dist) == norm(broken) and failure.version == "1.2.3"
        assert "ImportError: this plugin needs a package" in failure.error

        names = [name for name, _ in pm.list_name_plugin()]
        assert names.count("builtin_players") == 1
        # The built-ins are registered by import first; another distribution declaring the
        # same module under the same name is that plugin again, neither loaded nor credited.
        assert pm.origins["builtin_players"].dist == "xent-arena"
        assert pm.origins["builtin_players"].builtin
        assert pm.origins["builtin_judges"].dist == "xent-arena"
        assert {"random", "scripted"} <= set(reg.player_names())
        assert not [f for f in reg.failures() if f.name.startswith("builtin_")]

        only_good = create_plugin_manager(allow=[good_ep])
        assert broken_ep in only_good.skipped
        assert not [f for f in only_good.load_failures if f.name == broken_ep]
        assert good_ep in {name for name, _ in only_good.list_name_plugin()}
    finally:
        pip("uninstall", "-y", good, broken, shadow)
        for name in (f"tp_good_{tag}", f"tp_broken_{tag}"):
            sys.modules.pop(name, None)
