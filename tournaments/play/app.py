"""The play server's aiohttp application and its life: one static page, the JSON API, one
websocket per person (docs/play.md).

Why aiohttp and not a Streamlit page: a move request must wait on the event loop that plays
the match (the desk) while the page stays live, and every byte a person gets must be one of
our frames (`frames.py`), so that the information-set check covers page source and websocket
frames alike.

Safety (docs/threats.md, "The play page"): every request, the socket's included, must name
this server as its `Host` (`hosts.py`, against DNS rebinding) before anything else is
looked at, and a browser's must come from the page's own origin. It binds 127.0.0.1 unless
told otherwise, and a non-loopback host needs a token (checked with `hmac.compare_digest` on
every endpoint and the socket's first frame, never in a URL). The page holds no data:
everything arrives as JSON and is shown as text. This server writes only the matches it
plays.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

from aiohttp import web

from arena.plugins.registry import Registry
from arena.storage import Store
from arena.tournaments.play.api import MAX_BODY_BYTES, Api, Handler, refused
from arena.tournaments.play.hosts import HostRule
from arena.tournaments.play.ladder import human_seats
from arena.tournaments.play.server import PlayServer, Settings
from arena.tournaments.play.sockets import socket
from arena.tournaments.running.prepare import PreparedTournament

PAGES = {"/": "play.html", "/play.js": "play.js", "/play.css": "play.css"}
KINDS = {"html": "text/html", "js": "text/javascript", "css": "text/css"}
HEADERS = {"Content-Security-Policy": "default-src 'self'; connect-src 'self'",
           "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store",
           "Referrer-Policy": "no-referrer"}


def host_guard(hosts: HostRule) -> Any:
    """The first check of every request, page and socket included: it names this server
    (DNS rebinding) and, from a browser, comes from the page's own origin."""

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        host = request.headers.get("Host")
        target = request.message.url  # absolute in `GET http://name/...`: that name too
        if not hosts.allows(host) or (target.is_absolute() and not hosts.allows(
                target.raw_authority)):
            return refused(hosts.refusal(host), 403)
        if not HostRule.same_origin(request.headers.get("Origin"), request.scheme, host):
            return refused("A request from another site (its Origin is not this page's). "
                           "Open the play page itself.", 403)
        return await handler(request)

    return guard


async def static(request: web.Request) -> web.StreamResponse:
    name = PAGES[request.path]
    page = resources.files("arena.tournaments.play").joinpath("static", name)
    return web.Response(text=page.read_text(encoding="utf-8"),
                        content_type=KINDS[name.rsplit(".", 1)[1]], headers=HEADERS)


def build_app(server: PlayServer) -> web.Application:
    """The application: the guard, the page, the API and the socket."""
    app = web.Application(client_max_size=MAX_BODY_BYTES,
                          middlewares=[host_guard(server.settings.hosts)])
    for path in PAGES:
        app.router.add_get(path, static)
    Api(server).routes(app)

    async def person_socket(request: web.Request) -> web.StreamResponse:
        return await socket(server, request)

    app.router.add_get("/ws", person_socket)
    return app


def invite_link(base: str, person: str, secret: str) -> str:
    """The link that lets `person` in: the secret after `#`, which the browser keeps to
    itself (never sent to a server, so never in an access log or a Referer)."""
    return f"{base}#person={person}&secret={secret}"


def announce_invites(base: str, made: dict[str, str], kept: list[str]) -> None:
    """Tell the organiser, on stderr only and once, the invite links made at start."""
    for person, secret in sorted(made.items()):
        print(f"play server: invite for {person}, made now and shown only here (send it to "
              f"{person} alone): {invite_link(base, person, secret)}",
              file=sys.stderr, flush=True)
    for person in sorted(kept):
        print(f"play server: {person} joins with the invite link made earlier (a new one: "
              f"--invite {person})", file=sys.stderr, flush=True)


async def serve(settings: Settings, host: str, port: int, registry: Registry,
                tournaments: Sequence[PreparedTournament] = (),
                ready: Callable[[str], None] = lambda url: None) -> None:
    """Run the play server until cancelled; `ready(url)` is called once it listens.
    `registry` is the process's (its `__main__` discovers the plugins once)."""
    store = Store.open(settings.db)
    server = PlayServer(settings, registry, store)
    undo = server.desk.listen(server.queue_changed)
    entrants = sorted({person for prepared in tournaments for plan in prepared.plans
                       for person in human_seats(plan).values()})
    made = settings.people.reserve(entrants)
    made.update({name: settings.people.invite(name) for name in settings.invites})
    runner = web.AppRunner(build_app(server), access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound = runner.addresses[0][1]
        for prepared in tournaments:
            server.start_tournament(prepared)
        base = f"http://{settings.hosts.page_host(host)}:{bound}/"
        ready(base)
        announce_invites(base, made, [e for e in entrants if e not in made])
        await asyncio.Event().wait()
    finally:
        undo()
        await server.close()
        await runner.cleanup()
        store.close()
