"""The play server: an aiohttp app with one static page and one websocket per person.

Why aiohttp and not a Streamlit page: a move request must wait on the event loop that plays
the match (the human desk) while the page stays live, and every byte a person gets must be
one of our frames (`frames.py`), so that the information-set check covers page source and
websocket frames alike. Streamlit reruns scripts and ships its own state; this is 1 page,
1 socket, a few JSON endpoints.

Safety: it binds 127.0.0.1 unless told otherwise, and a non-loopback host needs a token
(checked with `hmac.compare_digest` on every endpoint and the socket's first frame, never in
a URL). Requests from another origin are refused (a web page elsewhere cannot drive a local
play server). The page holds no data: everything arrives as JSON and is shown as text.
Browsing pages of the dashboard are untouched; this server writes only the matches it plays.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import secrets
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from aiohttp import WSMsgType, web

from arena.dashboard.play.frames import Frame, queue_frame, request_frame, seat_frame
from arena.dashboard.play.matches import SeatChoice, human_seats, single_match
from arena.errors import ArenaError
from arena.events import Event
from arena.human_desk import HumanDesk, get_desk
from arena.lang.limits import ResourceLimits
from arena.match_setup import load_game_ref, load_game_text
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.specs import NAME_RE
from arena.storage import Store
from arena.tournaments.executors.engine import run_tournament
from arena.tournaments.prepare import PreparedTournament

log = logging.getLogger(__name__)
MAX_BODY_BYTES = 256 * 1024  # a pasted game is at most 64 lines; moves are short
MAX_COUNT_CHARS = 20_000
TOKEN_HEADER = "X-Play-Token"


@dataclass
class Settings:
    """How the server runs: the database, the judge of single matches, the move timeout of
    single matches, the resource limits of pasted games, and the token (None on loopback)."""

    db: str | None = None
    judge: str = "ngram"
    move_timeout: float = 3600.0
    limits: ResourceLimits = field(default_factory=ResourceLimits)
    token: str | None = None


@dataclass
class _Match:
    """A match (or tournament) this server plays: which seats are people's, best scores."""

    number: int
    label: str
    seats: dict[str, dict[str, str]]  # plan key -> role -> person
    best: dict[tuple[str, str], float] = field(default_factory=dict)
    done: bool = False


class PlayServer:
    """The app's state: the desk, the people connected, the matches in flight."""

    def __init__(self, settings: Settings, registry: Registry, store: Store, judge: Judge):
        self.settings = settings
        self.registry = registry
        self.store = store
        self.judge = judge
        self.desk: HumanDesk | None = None
        self.sockets: dict[str, web.WebSocketResponse] = {}
        self.matches: list[_Match] = []
        self.tasks: set[asyncio.Task[None]] = set()

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
        match = _Match(len(self.matches) + 1, label, seats)
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


def _allowed(request: web.Request, token: str | None, given: str | None) -> bool:
    origin = request.headers.get("Origin")
    if origin is not None and origin != f"{request.scheme}://{request.host}":
        return False
    if token is None:
        return True
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


def _refused(message: str, status: int = 400) -> web.Response:
    return web.json_response({"ok": False, "error": message}, status=status)


Handler = Callable[[web.Request], Coroutine[Any, Any, web.StreamResponse]]


def build_app(server: PlayServer) -> web.Application:
    """The aiohttp application (routes and the checks every endpoint shares)."""
    settings = server.settings
    page = resources.files("arena.dashboard.play").joinpath("static")

    def guarded(handler: Handler) -> Handler:
        async def wrapped(request: web.Request) -> web.StreamResponse:
            if not _allowed(request, settings.token, request.headers.get(TOKEN_HEADER)):
                return _refused("Missing or wrong play token (or a request from another "
                                "site). Enter the token the server was started with.", 403)
            try:
                return await handler(request)
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
                     "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"},
        )

    async def options(request: web.Request) -> web.StreamResponse:
        players = [{"name": n, "help": server.registry.player_entry(n).description}
                   for n in server.registry.player_names() if n != "human"]
        return web.json_response({
            "games": server.registry.game_names(), "players": players,
            "judge": settings.judge, "token_needed": settings.token is not None,
        })

    async def body(request: web.Request) -> dict[str, Any]:
        try:
            data = await request.json()
        except ValueError:
            raise ArenaError("Send a JSON object.") from None
        if not isinstance(data, dict):
            raise ArenaError("Send a JSON object.")
        return data

    def load(data: dict[str, Any]) -> Any:
        source = str(data.get("source") or "")
        dialect = data.get("dialect") or None
        if source:
            return load_game_text(source, "pasted.xgl", dialect=dialect,
                                  limits=settings.limits)
        return load_game_ref(str(data.get("game") or ""), server.registry, dialect=dialect,
                             limits=settings.limits)

    async def check(request: web.Request) -> web.StreamResponse:
        data = await body(request)
        game = await asyncio.to_thread(load, data)  # raises GameSyntaxError: carets
        return web.json_response({
            "ok": True, "name": game.name, "roles": list(game.roles), "code": game.source,
            "rules": [line.lstrip("#").strip() for line in game.program.header],
        })

    async def count(request: web.Request) -> web.StreamResponse:
        data = await body(request)
        text = str(data.get("text") or "")[:MAX_COUNT_CHARS]
        judge = server.judge
        if server.desk is not None:
            for move in server.desk.waiting(str(data.get("person") or "")):
                if move.id == data.get("id") and move.judge is not None:
                    judge = move.judge
        tokens = (await judge.tokenize([text]))[0] if text else []
        return web.json_response({"ok": True, "tokens": len(tokens)})

    async def start(request: web.Request) -> web.StreamResponse:
        data = await body(request)
        person = str(data.get("person") or "")
        if not NAME_RE.fullmatch(person):
            raise ArenaError("Your name may hold letters, digits, '_', '-' and '.' only; "
                             "e.g. ada.")
        others = data.get("others") or {}
        if not isinstance(others, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in others.items()
        ):
            raise ArenaError("Give a player spec for every other seat, e.g. random.")
        choice = SeatChoice(
            person=person, game=str(data.get("game") or ""), role=str(data.get("role") or ""),
            others={k: v.strip() for k, v in others.items()},
            source=str(data.get("source") or ""), dialect=data.get("dialect") or None,
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
        if not _allowed(request, None, None):
            return _refused("A request from another site.", 403)
        ws = web.WebSocketResponse(heartbeat=30.0, max_msg_size=MAX_BODY_BYTES)
        await ws.prepare(request)
        person = ""
        try:
            first = await ws.receive_json(timeout=30)
            person = str(first.get("person") or "")
            if settings.token is not None and not hmac.compare_digest(
                str(first.get("token") or "").encode(), settings.token.encode()
            ):
                await ws.send_json({"type": "error", "message": "Wrong play token."})
                return ws
            if not NAME_RE.fullmatch(person):
                await ws.send_json({"type": "error", "message": "Pick a name of letters, "
                                    "digits, '_', '-' and '.', e.g. ada."})
                return ws
            if person in server.sockets:
                await ws.send_json({"type": "error", "message": f"'{person}' is already "
                                    "playing in another tab; close it first."})
                return ws
            server.sockets[person] = ws
            await ws.send_json({"type": "hello", "person": person})
            server.queue_changed(person)
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    continue
                await _on_move(server, ws, person, message.data)
        except (TypeError, ValueError, AttributeError):
            with contextlib.suppress(ConnectionError):
                await ws.send_json({"type": "error", "message": "Send JSON frames."})
        finally:
            if server.sockets.get(person) is ws:
                del server.sockets[person]
        return ws

    app = web.Application(client_max_size=MAX_BODY_BYTES)
    for path in ("/", "/play.js", "/play.css"):
        app.router.add_get(path, static)
    app.router.add_get("/api/options", guarded(options))
    app.router.add_post("/api/check", guarded(check))
    app.router.add_post("/api/count", guarded(count))
    app.router.add_post("/api/start", guarded(start))
    app.router.add_get("/ws", socket)
    return app


async def _on_move(server: PlayServer, ws: web.WebSocketResponse, person: str, text: str) -> None:
    import json

    try:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("type") != "move":
            raise ValueError
        moves = data.get("moves")
        if not isinstance(moves, dict):
            raise ValueError
        assert server.desk is not None
        server.desk.answer(person, str(data.get("id")), moves)
    except ValueError:
        await ws.send_json({"type": "error", "message": "Send {type: move, id, moves}."})
    except ArenaError as error:
        await ws.send_json({"type": "error", "message": str(error)})


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
    runner = web.AppRunner(build_app(server), access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound = runner.addresses[0][1]
        for prepared in tournaments:
            server.start(prepared, f"tournament {prepared.config.name}", owner=None)
        ready(f"http://{host}:{bound}/")
        await asyncio.Event().wait()
    finally:
        undo()
        await server.close()
        await runner.cleanup()
        await judge.aclose()
        store.close()


def new_token() -> str:
    return secrets.token_urlsafe(24)
