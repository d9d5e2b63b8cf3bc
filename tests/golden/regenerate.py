"""Rewrite the golden playthroughs of every bundled game (or of the games named):

    python -m tests.golden.regenerate [GAME ...]

Run it after an intended change to the runtime, the ngram judge or a game, then review the
diff of `tests/golden/*.json` before committing it.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from arena.analysis.golden import update_goldens
from arena.match_setup import load_entry
from arena.plugins.registry import Registry

GOLDEN_DIR = Path(__file__).resolve().parent


def main(argv: list[str]) -> None:
    registry = Registry.load()
    names = argv or registry.game_names()
    games = [load_entry(registry.game(name)) for name in names]
    written = asyncio.run(update_goldens(GOLDEN_DIR, registry, games))
    for path in written:
        print(path.relative_to(GOLDEN_DIR.parents[1]))


if __name__ == "__main__":
    main(sys.argv[1:])
