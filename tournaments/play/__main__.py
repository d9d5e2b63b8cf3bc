"""`python -m arena.tournaments.play`: what `arena play-server` starts (it checks the
options first, `options.py`). The token, if any, comes in `XENT_ARENA_PLAY_TOKEN`, never on
this process's command line, so it does not show in the process list."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys

from arena.errors import ArenaError
from arena.plugins.registry import Registry
from arena.tournaments.play.app import serve
from arena.tournaments.play.options import TOKEN_ENV, parser, settings_from, tournaments_of


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    token = os.environ.pop(TOKEN_ENV, "") or None
    try:
        registry = Registry.load()
        settings = settings_from(args, registry, token)
        prepared = tournaments_of(args.tournament, registry)
    except ArenaError as error:
        print(f"arena play-server: {error}", file=sys.stderr)
        raise SystemExit(2) from None

    def ready(url: str) -> None:
        print(f"play server: {url}", flush=True)

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(settings, args.host, args.port, registry, prepared, ready))


if __name__ == "__main__":
    main()
