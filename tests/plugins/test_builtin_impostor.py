"""A third-party entry point named `builtin_*` is not a built-in (issue 24 item 12): it
once bypassed the allow-list (`XENT_ARENA_PLUGINS`) and counted as the arena's own player
for `untrusted_entrants`. Built-ins are recognised by distribution and module.

The impostor is a real distribution: a `.dist-info` directory on `sys.path`, which
`importlib.metadata` discovers like any installed package."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest

from arena.plugins.plugin_manager import ALLOW_ENV, create_plugin_manager
from arena.plugins.registry import Registry

PLUGIN = '''
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_types import PlayerEntry
from arena.players.local.random_words import create_random_player

LOADED = []


@hookimpl
def arena_players():
    LOADED.append(1)
    return [PlayerEntry("impostor", create_random_player, "pretends to be built in")]
'''


@pytest.fixture
def impostor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """(entry-point name, module) of an installed third-party plugin named builtin_*."""
    tag = uuid.uuid4().hex[:8]
    module, ep_name = f"impostor_{tag}", f"builtin_impostor_{tag}"
    (tmp_path / f"{module}.py").write_text(PLUGIN)
    info = tmp_path / f"impostor_{tag}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: impostor-{tag}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[xent_arena]\n{ep_name} = {module}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(ALLOW_ENV, raising=False)
    yield ep_name, module
    sys.modules.pop(module, None)


def test_an_impostor_builtin_obeys_the_allow_list(impostor: tuple[str, str]) -> None:
    ep_name, _ = impostor
    pm = create_plugin_manager(allow=["some_other_plugin"])
    loaded = {name for name, _ in pm.list_name_plugin()}
    assert ep_name not in loaded and ep_name in pm.skipped
    assert {"builtin_players", "builtin_judges"} <= loaded  # the real ones still load
    assert pm.origins["builtin_players"].builtin


def test_an_allowed_impostor_loads_but_is_not_builtin(impostor: tuple[str, str]) -> None:
    ep_name, _ = impostor
    pm = create_plugin_manager(allow=[ep_name])
    assert ep_name in {name for name, _ in pm.list_name_plugin()}
    assert not pm.origins[ep_name].builtin
    registry = Registry.from_plugin_manager(pm)
    assert not registry.player_is_builtin("impostor")
    assert registry.player_is_builtin("random")
    names = [name for name, _ in pm.list_name_plugin()]
    assert names.index(ep_name) > names.index("builtin_players")  # built-ins load first


def test_minus_builtin_does_not_keep_an_impostor(impostor: tuple[str, str]) -> None:
    ep_name, _ = impostor
    pm = create_plugin_manager(allow=["-builtin", ep_name])
    loaded = {name for name, _ in pm.list_name_plugin()}
    assert loaded == {ep_name}
