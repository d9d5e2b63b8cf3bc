"""The one header reader: the same text has the same dialect however it is loaded, and a
dialect pragma below the first instruction is a caret diagnostic (issue 15, fault 1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from arena.errors import GameSyntaxError
from arena.lang.header import read_header
from arena.lang.parser import parse_program
from arena.match_setup import load_entry, load_game_ref
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_manager import create_plugin_manager
from arena.plugins.plugin_types import GameEntry
from arena.plugins.registry import Registry

REPO = Path(__file__).resolve().parents[2]

# A title first, the pragma on the second line: the header style of the bundled games. In
# dialect xent `+` joins plainly; in xgl it would insert a space.
TWIST = """# Twist: a pragma below the title
# dialect: xent
# version: 3
assign(s="ab" + "cd")
elicit(x, 5)
ensure(s == "abcd")
reward(xed(s | x))
"""


def _registry_with(entry: GameEntry) -> Registry:
    @hookimpl
    def arena_games() -> list[GameEntry]:
        return [entry]

    pm = create_plugin_manager(load_entrypoints=False)
    pm.register(SimpleNamespace(arena_games=arena_games), name="twist_games")
    return Registry.from_plugin_manager(pm)


def _arena(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_same_text_same_dialect_from_a_plugin_a_path_and_a_name(tmp_path: Path) -> None:
    path = tmp_path / "twist.xgl"
    path.write_text(TWIST, encoding="utf-8")
    registry = _registry_with(GameEntry.from_source(TWIST, "twist.xgl"))
    from_plugin = load_entry(registry.game("twist"))
    by_name = load_game_ref("twist", registry)
    from_path = load_game_ref(str(path), registry)
    dialects = {
        "plugin entry": registry.game("twist").dialect,
        "plugin": from_plugin.program.dialect,
        "name": by_name.program.dialect,
        "path": from_path.program.dialect,
        "parser": parse_program(TWIST, "twist.xgl").dialect,
    }
    assert set(dialects.values()) == {"xent"}, dialects
    assert from_plugin.version == by_name.version == from_path.version == "3"
    assert from_path.program.header == by_name.program.header == ("Twist: a pragma below the title", "version: 3")

    # `arena play` with the path reads it the same way (plain `+`, so the ensure holds).
    done = _arena("play", str(path), "--judge", "ngram", "--player", "black=scripted:ab", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["dialect"] == "xent"
    assert report["scores"]["black"]["forfeit"] is False


def test_a_pragma_below_the_first_instruction_is_a_caret_diagnostic(tmp_path: Path) -> None:
    late = "# Late pragma\nassign(s=story())\n  # dialect: xent\nelicit(x, 5)\nreward(xed(s | x))\n"
    with pytest.raises(GameSyntaxError) as info:
        parse_program(late, "late.xgl")
    [diagnostic] = info.value.diagnostics
    assert (diagnostic.line, diagnostic.col) == (3, 0)
    assert "must stand in the header" in diagnostic.message
    assert "move this line to the top" in diagnostic.hint
    # every loader refuses it the same way: a plugin entry reads the extension, the load fails
    entry = GameEntry.from_source(late, "late.xgl")
    assert entry.dialect == "xgl"
    with pytest.raises(GameSyntaxError):
        load_entry(entry)
    path = tmp_path / "late.xgl"
    path.write_text(late, encoding="utf-8")
    done = _arena("play", str(path), "--judge", "ngram", "--player", "black=random")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "late.xgl:3:1" in done.stderr and "^^^^" in done.stderr
    assert "must stand in the header" in done.stderr


def test_two_pragmas_that_disagree_and_an_unknown_name_are_reported() -> None:
    with pytest.raises(GameSyntaxError) as info:
        parse_program("# dialect: xent\n# dialect: xgl\nelicit(x, 5)\n", "g.xgl")
    [diagnostic] = info.value.diagnostics
    assert diagnostic.line == 2 and "names two dialects" in diagnostic.message
    with pytest.raises(GameSyntaxError) as info:
        parse_program("# Title\n\n# dialect: xnt\nelicit(x, 5)\n", "g.xgl")
    [diagnostic] = info.value.diagnostics
    assert (diagnostic.line, diagnostic.col) == (3, 11)
    assert "Unknown dialect 'xnt'. Did you mean 'xent'?" in diagnostic.message
    assert GameEntry.from_source("# Title\n# dialect: xnt\nelicit(x, 5)\n", "g.xent").dialect is None


def test_header_fields_title_and_description_lines() -> None:
    header = read_header(
        "#  A title\n\n# dialect: XENT\n# note: one\n# note: two\n# well-posed: no\n"
        "assign(s=story())\n# note: not header\n"
    )
    assert header.title == "A title"
    assert header.dialect == "xent"
    assert header.get("note") == "one two" and header.notes == ("one", "two")
    assert header.declared_ill_posed
    assert header.lines == (" A title", "note: one", "note: two", "well-posed: no")
    assert header.misplaced == ()
