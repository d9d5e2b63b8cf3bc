"""Run a tournament file into a database with the test plugin loaded (for test_resume).
Exits 130 on Ctrl-C, like `arena run`."""

from __future__ import annotations

import asyncio
import sys

from arena.tournaments.services.run_config import run_file
from tests.tournaments import arena_fixtures as fx

if __name__ == "__main__":
    try:
        summary = asyncio.run(run_file(sys.argv[1], db=sys.argv[2], registry=fx.registry()))
    except KeyboardInterrupt:
        sys.exit(130)
    print(summary.status, summary.written)
