"""The play server: an aiohttp app with one static page and one websocket per person.

Why aiohttp and not a Streamlit page: a move request must wait on the event loop that plays
the match (the human desk) while the page stays live, and every byte a person gets must be
one of our frames (`frames.py`), so that the information-set check covers page source and
websocket frames alike. Streamlit reruns scripts and ships its own state; this is 1 page,
1 socket, a few JSON endpoints.

Safety (docs/threats.md, "The play page"): every request, the socket's included, must name
this server as its `Host` (`hosts.py`, against DNS rebinding) before anything else is
looked at, and a browser's must come from the page's own origin. It binds 127.0.0.1 unless
told otherwise, and a non-loopback host needs a token (checked with `hmac.compare_digest` on
every endpoint and the socket's first frame, never in a URL). A person acts only with their
own secret (`people.py`): the socket's first frame and the `X-Play-Person`/`X-Play-Secret`
headers of every other call carry it. Games are registered names or pasted text, never a
server path; the other seats are picked from the organiser's list (`opponents.py`); starts
and sockets are capped (`caps.py`). The page holds no data: everything arrives as JSON and
is shown as text. This server writes only the matches it plays.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import json
import logging
import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from aiohttp import WSMsgType, web

from arena.dashboard.play.caps import Caps, Window, seconds_text
from arena.dashboard.play.frames import Frame, queue_frame, request_frame, seat_frame
from arena.dashboard.play.hosts import HostRule
from arena.dashboard.play.matches import (
    SeatChoice,
    human_seats,
    page_game,
    registered_game,
    single_match,
)
from arena.dashboard.play.opponents import DEFAULT_OPPONENTS, Opponents
from arena.dashboard.play.people import PeopleBook, person_name_problem
from arena.errors import ArenaError
from arena.events import Event
from arena.human_desk import HumanDesk, get_desk
from arena.lang.limits import ResourceLimits
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.storage import Store
from arena.tournaments.running.executors.engine import run_tournament
from arena.tournaments.running.prepare import PreparedTournament

log = logging.getLogger(__name__)
MAX_BODY_BYTES = 256 * 1024  # a pasted game is at most 64 lines; moves are short
MAX_COUNT_CHARS = 20_000
TOKEN_HEADER = "X-Play-Token"
PERSON_HEADER = "X-Play-Person"
SECRET_HEADER = "X-Play-Secret"


class Refused(ArenaError):
    """A request the server will not serve: `status` and one sentence."""

    def __init__(self, message: str, status: int = 403) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Settings:
    """How the server runs: the database, the judge of single matches, the move timeout of
    single matches, the resource limits of pasted games, the token (None on loopback), the
    names it answers to, the organiser's list for the other seats (None: the default list),
    the people book and the caps."""

    db: str | None = None
    judge: str = "ngram"
    move_timeout: float = 3600.0
    limits: ResourceLimits = field(default_factory=ResourceLimits)
    token: str | None = None
    hosts: HostRule = field(default_factory=lambda: HostRule.for_bind("127.0.0.1"))
    opponents: Opponents | None = None
    people: PeopleBook = field(default_factory=lambda: PeopleBook(None))
    caps: Caps = field(default_factory=Caps)
    invites: tuple[str, ...] = ()  # names to make a new invite link for at start


@dataclass
class _Match:
    """A match (or tournament) this server plays: which seats are people's, best scores."""

    number: int
    label: str
    seats: dict[str, dict[str, str]]  # plan key -> role -> person
    owner: str | None = None  # the person who started it on the page
    best: dict[tuple[str, str], float] = field(default_factory=dict)
    done: bool = False


class PlayServer:
    """The app's state: the desk, the people connected, the matches in flight."""

    def __init__(self, settings: Settings, registry: Registry, store: Store, judge: Judge):
        self.settings = settings
        self.registry = registry
        self.store = store
        self.judge = judge
        self.people = settings.people
        self.opponents = settings.opponents or Opponents.from_specs(DEFAULT_OPPONENTS, registry)
        self.desk: HumanDesk | None = None
        self.sockets: dict[str, web.WebSocketResponse] = {}
        self.matches: list[_Match] = []  # in play
        self.numbers = itertools.count(1)
        self.tasks: set[asyncio.Task[None]] = set()
        caps = settings.caps
        self.starts = Window(caps.starts_per_minute)
        self.new_names = Window(caps.names_per_minute)
        self.open_sockets: dict[str, int] = {}  # client address -> sockets open

    # ------------------------------------------------------------------ who is asking

    def person(self, request: web.Request) -> str:
        """The person a call comes from, proven by their secret; else `Refused`."""
        name = request.headers.get(PERSON_HEADER, "")
        if not self.people.verify(name, request.headers.get(SECRET_HEADER, "")):
            raise Refused("Join with your name first (your secret is missing or is not "
                          "that name's): reload the page, or open your invite link.")
        return name

    def join(self, first: dict[str, Any], address: str) -> tuple[str, str | None]:
        """Who the socket's first frame says it is: (person, None) for a name and its
        secret; (person, new secret) for a newcomer taking a free name. Else `Refused`."""
        if not _token_ok(self.settings.token, _text(first, "token") or None):
            raise Refused("Wrong play token.")
        person = _text(first, "person").strip()
        problem = person_name_problem(person)
        if problem:
            raise Refused(problem)
        secret = _text(first, "secret")
        if secret and self.people.known(person):
            if not self.people.verify(person, secret):
                raise Refused(f"That is not the secret of '{person}' (an old or mistyped "
                              "link?). Ask the organiser for a new invite link, or join "
                              "under another name.")
            return person, None
        taken = (f"The name '{person}' is taken: someone plays under it with their own "
                 "secret. If it is yours, open your invite link (or the browser you joined "
                 "from); otherwise pick another name.")
        if self.people.known(person):
            raise Refused(taken)
        wait = self.new_names.take(address)
        if wait:
            raise Refused(f"{self.settings.caps.names_per_minute} new names were taken from "
                          f"your address in the last minute; wait {seconds_text(wait)}.")
        made = self.people.claim(person)
        if made is None:
            raise Refused(taken)
        return person, made

    def check_start(self, person: str) -> None:
        """The caps on matches a person starts: at once, and per minute."""
        caps = self.settings.caps
        playing = [m.owner for m in self.matches if m.owner is not None and not m.done]
        if len(playing) >= caps.running:
            raise Refused(f"The server has {len(playing)} page matches in play, its most; "
                          "start yours when one ends.", 429)
        running = playing.count(person)
        if running >= caps.running_per_person:
            raise Refused(f"You have {running} matches in play already (at most "
                          f"{caps.running_per_person} at once): finish one, then start the "
                          "next.", 429)
        wait = self.starts.take(person)
        if wait:
            raise Refused(f"You started {caps.starts_per_minute} matches in the last minute "
                          f"(the most this server allows); wait {seconds_text(wait)}.", 429)

    # ------------------------------------------------------------------ pushing frames

    def _send(self, person: str, frame: Frame) -> None:
        ws = self.sockets.get(person)
        if ws is not None and not ws.closed:
            task = asyncio.ensure_future(ws.send_json(frame))
            task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)

    def queue_changed(self, person: str) -> None:
        assert self.desk is not None
        waiting = self.desk.waiting(person)
        self._send(person, queue_frame(waiting))
        if waiting:
            self._send(person, request_frame(waiting[0]))

    def _on_event(self, match: _Match, event: Event, key: str) -> None:
        for role, person in match.seats.get(key, {}).items():
            if event.type == "round_finished" and event.scores.get(role) is not None:
                score = float(event.scores[role] or 0.0)
                old = match.best.get((key, role))
                match.best[(key, role)] = score if old is None else max(old, score)
            frame = seat_frame(event, role, match.number, match.best.get((key, role)))
            if frame is not None:
                self._send(person, frame)

    # ------------------------------------------------------------------ running matches

    def start(self, prepared: PreparedTournament, label: str, owner: str | None) -> _Match:
        """Play `prepared` in the background; `owner` (the person who started a single
        match) hears how it ended, errors included."""
        seats = {p.key: human_seats(p) for p in prepared.plans}
        match = _Match(next(self.numbers), label, seats, owner)
        self.matches.append(match)
        people = {person for roles in seats.values() for person in roles.values()}

        async def run() -> None:
            frame: Frame = {"type": "done", "match": match.number, "label": label}
            own = prepared.config.judge != self.settings.judge
            judge = self.registry.create_judge(prepared.config.judge) if own else self.judge
            try:
                summary = await run_tournament(
                    prepared, registry=self.registry, judge=judge, store=self.store,
                    on_event=lambda event, key: self._on_event(match, event, key),
                )
                frame["status"] = summary.status
                frame["tournament"] = prepared.config.name
                if owner is not None and summary.errors:
                    frame["error"] = self._stored_error(prepared)
            except Exception as error:  # the server goes on; the person is told
                log.warning("play server: %s failed: %s", label, error)
                frame["status"] = "failed"
                frame["error"] = f"{type(error).__name__}: {error}" if owner else ""
            finally:
                match.done = True
                self.matches.remove(match)  # a long-lived server keeps only those in play
                if own:
                    await judge.aclose()
            for person in people:  # each hears their own best only
                best = [v for (key, role), v in match.best.items()
                        if match.seats.get(key, {}).get(role) == person]
                self._send(person, {**frame, "best": max(best) if best else None})

        self._spawn(run())
        return match

    def _stored_error(self, prepared: PreparedTournament) -> str:
        for stored in self.store.stored_matches(prepared.config.name):
            if stored.error:
                return str(stored.error)
        return "the match ended with an error"

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        for task in list(self.tasks):
            with contextlib.suppress(BaseException):
                await task
        for ws in list(self.sockets.values()):
            await ws.close()


def _token_ok(token: str | None, given: str | None) -> bool:
    if token is None:
        return True
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


def _refused(message: str, status: int = 400) -> web.Response:
    return web.json_response({"ok": False, "error": message}, status=status)


Handler = Callable[[web.Request], Coroutine[Any, Any, web.StreamResponse]]


def _host_guard(hosts: HostRule) -> Any:
    """The first check of every request, page and socket included: it names this server
    (DNS rebinding) and, from a browser, comes from the page's own origin."""

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        host = request.headers.get("Host")
        target = request.message.url  # absolute in `GET http://name/...`: that name too
        if not hosts.allows(host) or (target.is_absolute() and not hosts.allows(
                target.raw_authority)):
            return _refused(hosts.refusal(host), 403)
        if not HostRule.same_origin(request.headers.get("Origin"), request.scheme, host):
            return _refused("A request from another site (its Origin is not this page's). "
                            "Open the play page itself.", 403)
        return await handler(request)

    return guard


def build_app(server: PlayServer) -> web.Application:
    """The aiohttp application (routes and the checks every endpoint shares)."""
    settings = server.settings
    page = resources.files("arena.dashboard.play").joinpath("static")

    def guarded(handler: Handler) -> Handler:
        async def wrapped(request: web.Request) -> web.StreamResponse:
            if not _token_ok(settings.token, request.headers.get(TOKEN_HEADER)):
                return _refused("Missing or wrong play token. Enter the token the server "
                                "was started with.", 403)
            try:
                return await handler(request)
            except Refused as error:
                return _refused(str(error), error.status)
            except ArenaError as error:
                return _refused(str(error))
            except (TypeError, ValueError):  # e.g. rounds = "many": one sentence, no trace
                return _refused("A field has the wrong type: send the page's own request.")
        return wrapped

    async def static(request: web.Request) -> web.StreamResponse:
        name = {"/": "play.html", "/play.js": "play.js", "/play.css": "play.css"}[request.path]
        kind = {"html": "text/html", "js": "text/javascript", "css": "text/css"}[
            name.rsplit(".", 1)[1]]
        return web.Response(
            text=page.joinpath(name).read_text(encoding="utf-8"), content_type=kind,
            headers={"Content-Security-Policy": "default-src 'self'; connect-src 'self'",
                     "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store",
                     "Referrer-Policy": "no-referrer"},
        )

    async def options(request: web.Request) -> web.StreamResponse:
        return web.json_response({
            "games": server.registry.game_names(), "opponents": server.opponents.offered(),
            "judge": settings.judge, "token_needed": settings.token is not None,
        })

    async def body(request: web.Request) -> dict[str, Any]:
        try:
            data = await request.json()
        except (ValueError, RecursionError):  # RecursionError: arrays nested 100 000 deep
            raise ArenaError("Send a JSON object.") from None
        if not isinstance(data, dict):
            raise ArenaError("Send a JSON object.")
        return data

    def load(data: dict[str, Any]) -> Any:
        return page_game(_text(data, "game"), _text(data, "source"),
                         _text(data, "dialect") or None, server.registry, settings.limits)

    async def check(request: web.Request) -> web.StreamResponse:
        server.person(request)
        data = await body(request)
        game = await asyncio.to_thread(load, data)  # raises GameSyntaxError: carets
        return web.json_response({
            "ok": True, "name": game.name, "roles": list(game.roles), "code": game.source,
            "rules": [line.lstrip("#").strip() for line in game.program.header],
        })

    async def count(request: web.Request) -> web.StreamResponse:
        person = server.person(request)
        data = await body(request)
        text = _text(data, "text")[:MAX_COUNT_CHARS]
        judge = server.judge
        if server.desk is not None:
            for move in server.desk.waiting(person):
                if move.id == data.get("id") and move.judge is not None:
                    judge = move.judge
        tokens = (await judge.tokenize([text]))[0] if text else []
        return web.json_response({"ok": True, "tokens": len(tokens)})

    async def start(request: web.Request) -> web.StreamResponse:
        person = server.person(request)
        data = await body(request)
        others = data.get("others") or {}
        if not isinstance(others, dict) or len(others) > MAX_OTHERS or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in others.items()
        ):
            raise ArenaError("Pick a player for every other seat from the page's list.")
        chosen = {role: server.opponents.check(role, spec) for role, spec in others.items()}
        source = _text(data, "source")
        game = "" if source else registered_game(_text(data, "game"), server.registry)
        server.check_start(person)
        choice = SeatChoice(
            person=person, game=game, role=_text(data, "role"), others=chosen, source=source,
            dialect=_text(data, "dialect") or None,
            rounds=max(1, min(int(data.get("rounds") or 1), 10)),
        )
        prepared = await asyncio.to_thread(
            single_match, choice, server.registry, judge=settings.judge,
            move_timeout=settings.move_timeout, limits=settings.limits,
        )
        label = f"{prepared.plans[0].game} as {choice.role}"
        match = server.start(prepared, label, owner=person)
        return web.json_response({"ok": True, "match": match.number, "label": label,
                                  "tournament": prepared.config.name})

    async def socket(request: web.Request) -> web.StreamResponse:
        return await _socket(server, request)

    app = web.Application(client_max_size=MAX_BODY_BYTES,
                          middlewares=[_host_guard(settings.hosts)])
    for path in ("/", "/play.js", "/play.css"):
        app.router.add_get(path, static)
    app.router.add_get("/api/options", guarded(options))
    app.router.add_post("/api/check", guarded(check))
    app.router.add_post("/api/count", guarded(count))
    app.router.add_post("/api/start", guarded(start))
    app.router.add_get("/ws", socket)
    return app


MAX_OTHERS = 16


def _text(data: dict[str, Any], key: str) -> str:
    """A text field of a request (absent: ""); any other type is the sender's mistake."""
    value = data.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ArenaError(f"The field {key!r} must be text: send the page's own request.")
    return value


async def _socket(server: PlayServer, request: web.Request) -> web.StreamResponse:
    """One person's socket: capped in number (all together and per address), then the
    first frame says who they are (name and secret, or a free name to take)."""
    caps = server.settings.caps
    address = request.remote or "unknown"
    ws = web.WebSocketResponse(heartbeat=30.0, max_msg_size=MAX_BODY_BYTES)
    await ws.prepare(request)
    total, mine = sum(server.open_sockets.values()), server.open_sockets.get(address, 0)
    if total >= caps.sockets or mine >= caps.sockets_per_address:
        full = (f"{mine} pages are open from your address, the most this server allows "
                   "from one; close one and reload." if mine >= caps.sockets_per_address
                   else f"The play server has {total} pages open, its most; reload in a "
                   "while.")
        with contextlib.suppress(ConnectionError):
            await ws.send_json({"type": "error", "message": full})
        await ws.close()
        return ws
    server.open_sockets[address] = mine + 1
    person = ""
    try:
        first = await ws.receive_json(timeout=caps.hello_s)
        if not isinstance(first, dict):
            raise ValueError
        person, made = server.join(first, address)
        old, server.sockets[person] = server.sockets.get(person), ws
        if old is not None and not old.closed:  # the same person, in a newer tab
            with contextlib.suppress(ConnectionError):
                await old.send_json({"type": "error", "message": "You opened the page in "
                                     "another tab or browser; this one has stopped."})
            await old.close()
        hello: Frame = {"type": "hello", "person": person}
        if made is not None:
            hello["secret"] = made  # the only time the server says it
        await ws.send_json(hello)
        server.queue_changed(person)
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                continue
            await _on_move(server, ws, person, message.data)
    except Refused as error:
        with contextlib.suppress(ConnectionError):
            await ws.send_json({"type": "error", "message": str(error)})
    except TimeoutError:
        with contextlib.suppress(ConnectionError):
            await ws.send_json({"type": "error", "message": "Say who you are within "
                                f"{caps.hello_s:g} seconds: reload the page."})
    except (TypeError, ValueError, AttributeError, RecursionError):
        with contextlib.suppress(ConnectionError):
            await ws.send_json({"type": "error", "message": "Send JSON frames."})
    finally:
        if server.sockets.get(person) is ws:
            del server.sockets[person]
        left = server.open_sockets.get(address, 1) - 1
        if left > 0:
            server.open_sockets[address] = left
        else:
            server.open_sockets.pop(address, None)
        await ws.close()
    return ws


async def _on_move(server: PlayServer, ws: web.WebSocketResponse, person: str, text: str) -> None:
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("type") != "move":
            raise ValueError
        moves = data.get("moves")
        if not isinstance(moves, dict):
            raise ValueError
        assert server.desk is not None
        server.desk.answer(person, str(data.get("id")), moves)
    except (ValueError, RecursionError):
        await ws.send_json({"type": "error", "message": "Send {type: move, id, moves}."})
    except ArenaError as error:
        await ws.send_json({"type": "error", "message": str(error)})


def invite_link(base: str, person: str, secret: str) -> str:
    """The link that lets `person` in: the secret after `#`, which the browser keeps to
    itself (never sent to a server, so never in an access log or a Referer)."""
    return f"{base}#person={person}&secret={secret}"


def _announce_invites(base: str, made: dict[str, str], kept: list[str]) -> None:
    """Tell the organiser, on stderr only and once, the invite links made at start."""
    for person, secret in sorted(made.items()):
        print(f"play server: invite for {person}, made now and shown only here (send it to "
              f"{person} alone): {invite_link(base, person, secret)}",
              file=sys.stderr, flush=True)
    for person in sorted(kept):
        print(f"play server: {person} joins with the invite link made earlier (a new one: "
              f"--invite {person})", file=sys.stderr, flush=True)


async def serve(settings: Settings, host: str, port: int, registry: Registry,
                tournaments: list[PreparedTournament] = (),  # type: ignore[assignment]
                ready: Callable[[str], None] = lambda url: None) -> None:
    """Run the play server until cancelled; `ready(url)` is called once it listens.
    `registry` is the process's (its `__main__` discovers the plugins once)."""
    store = Store.open(settings.db)
    judge = registry.create_judge(settings.judge)
    server = PlayServer(settings, registry, store, judge)
    server.desk = get_desk()
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
            server.start(prepared, f"tournament {prepared.config.name}", owner=None)
        base = f"http://{settings.hosts.page_host(host)}:{bound}/"
        ready(base)
        _announce_invites(base, made, [e for e in entrants if e not in made])
        await asyncio.Event().wait()
    finally:
        undo()
        await server.close()
        await runner.cleanup()
        await judge.aclose()
        store.close()

