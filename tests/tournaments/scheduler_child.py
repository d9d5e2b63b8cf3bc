"""`arena scheduler` with the test plugin loaded (for test_recurring): runs until SIGTERM
or SIGINT. Arguments: database URL, seconds between re-reads of the schedules."""

from __future__ import annotations

import asyncio
import logging
import sys

from arena.tournaments.services.recurring.service import serve_until_signal
from tests.tournaments import arena_fixtures as fx

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    asyncio.run(serve_until_signal(sys.argv[1], registry=fx.registry(), sync_s=float(sys.argv[2])))
