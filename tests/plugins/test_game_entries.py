"""Game entries: header metadata, the bundled-games directory scan, the games hook."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import arena.games.plugin as games_plugin
from arena.plugins.plugin_manager import create_plugin_manager
from arena.plugins.plugin_types import GameEntry
from arena.plugins.registry import Registry

CONDENSE = """# Condense: compress a story into a short prefix.
# version: 2
# measures: compression of a text into a short hint
assign(s=story())
elicit(x, 10)
reward(xed(s | x))
"""


def test_header_gives_version_description_and_dialect() -> None:
    entry = GameEntry.from_source(CONDENSE, "games/condense.xgl")
    assert (entry.name, entry.filename, entry.dialect) == ("condense", "condense.xgl", "xgl")
    assert entry.version == "2"
    assert entry.description == "compression of a text into a short hint"
    assert entry.source == CONDENSE


def test_defaults_and_dialect_override() -> None:
    entry = GameEntry.from_source("# dialect: xent\n# A tiny game\nassign(s='a')\n", "t.xgl")
    assert entry.dialect == "xent" and entry.version == "1"
    assert entry.description == "A tiny game"
    bare = GameEntry.from_source("assign(s='a')\n# version: 9\n", "bare.xent")
    assert (bare.dialect, bare.version, bare.description) == ("xent", "1", "")
    # any other extension reads as xgl, as the parser reads it
    assert GameEntry.from_source("", "odd.txt", name="odd").dialect == "xgl"


def test_games_in_directory(tmp_path: Path) -> None:
    (tmp_path / "b.xent").write_text("# version: 4\nassign(s='b')\n", encoding="utf-8")
    (tmp_path / "a.xgl").write_text(CONDENSE, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a game", encoding="utf-8")
    (tmp_path / "sub.xgl").mkdir()
    entries = games_plugin.games_in(tmp_path)
    assert [(e.name, e.dialect, e.version) for e in entries] == [
        ("a", "xgl", "2"),
        ("b", "xent", "4"),
    ]


def test_arena_games_hook_lists_every_bundled_game_file() -> None:
    expected = sorted(
        Path(item.name).stem
        for item in files("arena.games").iterdir()
        if item.name.endswith((".xgl", ".xent"))
    )
    pm = create_plugin_manager(load_entrypoints=False)
    pm.register(games_plugin, name="builtin_games")
    reg = Registry.from_plugin_manager(pm)
    assert reg.game_names() == expected
    assert reg.failures() == []
    for name in expected:
        assert reg.game(name).source.strip()
