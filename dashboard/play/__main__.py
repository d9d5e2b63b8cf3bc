"""`python -m arena.dashboard.play`: what `arena play-server` starts (it checks the
options first). The token, if any, comes in `XENT_ARENA_PLAY_TOKEN`, never on this
process's command line, so it does not show in the process list."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys

from arena.dashboard.play.matches import tournament_with_humans
from arena.dashboard.play.server import Settings, serve
from arena.errors import ArenaError
from arena.plugins.registry import Registry
from arena.tournaments.config import load_tournament

TOKEN_ENV = "XENT_ARENA_PLAY_TOKEN"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m arena.dashboard.play")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8600)
    parser.add_argument("--db", default=None)
    parser.add_argument("--judge", default="ngram")
    parser.add_argument("--move-timeout", type=float, default=3600.0)
    parser.add_argument("--tournament", action="append", default=[])
    args = parser.parse_args(argv)
    token = os.environ.pop(TOKEN_ENV, "") or None
    try:
        registry = Registry.load()
        prepared = [
            tournament_with_humans(load_tournament(path, registry), registry)
            for path in args.tournament
        ]
    except ArenaError as error:
        print(f"arena play-server: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    settings = Settings(db=args.db, judge=args.judge, move_timeout=args.move_timeout,
                        token=token)

    def ready(url: str) -> None:
        print(f"play server: {url}", flush=True)

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(settings, args.host, args.port, registry, prepared, ready))


if __name__ == "__main__":
    main()
