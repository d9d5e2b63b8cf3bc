"""The plugin module named by the `xent_arena` entry point: registers the bundled games.

Games are plain `.xgl` files inside the package (see `[tool.setuptools.package-data]` in
pyproject.toml), read with `importlib.resources` so that they work from a wheel, a zip or
an editable install alike. Each game's name is its file stem; `GameEntry.from_source`
reads the `# version:` and `# measures:` header lines.
"""

from __future__ import annotations

from importlib.resources import files

from arena import GameEntry, hookimpl


@hookimpl
def arena_games() -> list[GameEntry]:
    folder = files("arena_riddle_games") / "games"
    return [
        GameEntry.from_source(item.read_text(encoding="utf-8"), item.name)
        for item in sorted(folder.iterdir(), key=lambda item: item.name)
        if item.name.endswith((".xgl", ".xent"))
    ]
