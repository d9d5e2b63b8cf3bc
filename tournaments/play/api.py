"""The play page's JSON API (docs/play.md, "The page's API"): options, check, count, start,
each answered for a person proven by their secret (and the token, when the server has one).

Every handler reads its body through `body` (a JSON object, else one sentence) and its text
fields through `text_field`; a refusal is `{"ok": false, "error": one sentence}` with 400
(a mistake), 403 (a missing or wrong secret or token) or 429 (a cap).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from aiohttp import web

from arena.errors import ArenaError
from arena.tournaments.play.games import page_game, registered_game
from arena.tournaments.play.ladder import MAX_ROUNDS, SeatChoice, page_match
from arena.tournaments.play.rules import game_rules
from arena.tournaments.play.server import (
    TOKEN_HEADER,
    PlayServer,
    Refused,
    text_field,
    token_ok,
)

MAX_BODY_BYTES = 256 * 1024  # a pasted game is at most 64 lines; moves are short
MAX_COUNT_CHARS = 20_000
MAX_OTHERS = 16

Handler = Callable[[web.Request], Coroutine[Any, Any, web.StreamResponse]]


def refused(message: str, status: int = 400, **extra: object) -> web.Response:
    return web.json_response({"ok": False, "error": message, **extra}, status=status)


async def body(request: web.Request) -> dict[str, Any]:
    """The request's JSON object; else one sentence."""
    try:
        data = await request.json()
    except (ValueError, RecursionError):  # RecursionError: arrays nested 100 000 deep
        raise ArenaError("Send a JSON object.") from None
    if not isinstance(data, dict):
        raise ArenaError("Send a JSON object.")
    return data


class Api:
    """The endpoints, over one server's state."""

    def __init__(self, server: PlayServer) -> None:
        self.server = server

    def guarded(self, handler: Handler) -> Handler:
        """The token (when the server has one) first, then the handler; its refusals and
        mistakes become one sentence each."""

        async def wrapped(request: web.Request) -> web.StreamResponse:
            if not token_ok(self.server.settings.token, request.headers.get(TOKEN_HEADER)):
                return refused("Missing or wrong play token. Enter the token the server "
                               "was started with.", 403, token_needed=True)
            try:
                return await handler(request)
            except Refused as error:
                return refused(str(error), error.status)
            except ArenaError as error:
                return refused(str(error))
            except (TypeError, ValueError):  # e.g. rounds = "many": one sentence, no trace
                return refused("A field has the wrong type: send the page's own request.")

        return wrapped

    def routes(self, app: web.Application) -> None:
        app.router.add_get("/api/options", self.guarded(self.options))
        app.router.add_post("/api/check", self.guarded(self.check))
        app.router.add_post("/api/count", self.guarded(self.count))
        app.router.add_post("/api/start", self.guarded(self.start))

    async def options(self, request: web.Request) -> web.StreamResponse:
        server = self.server
        ladder = server.settings.ladder
        return web.json_response({
            "games": server.registry.game_names(), "opponents": server.opponents.offered(),
            "judge": ladder.judge, "token_needed": server.settings.token is not None,
            "ladder": ladder.name, "models": list(ladder.models),
            "max_rounds": MAX_ROUNDS, "move_timeout": ladder.move_timeout,
            "dashboard": server.settings.dashboard,
        })

    def _load(self, data: dict[str, Any]) -> Any:
        server = self.server
        return page_game(text_field(data, "game"), text_field(data, "source"),
                         text_field(data, "dialect") or None, server.registry,
                         server.settings.ladder.limits)

    async def check(self, request: web.Request) -> web.StreamResponse:
        self.server.person(request)
        data = await body(request)
        game = await asyncio.to_thread(self._load, data)  # raises GameSyntaxError: carets
        rules = game_rules(game.source, game.source, list(game.roles), None, game.name)
        return web.json_response({
            "ok": True, "name": game.name, "roles": list(game.roles), "code": game.source,
            "rules": rules.as_dict(),
        })

    async def count(self, request: web.Request) -> web.StreamResponse:
        person = self.server.person(request)
        data = await body(request)
        text = text_field(data, "text")[:MAX_COUNT_CHARS]
        move = next((m for m in self.server.desk.waiting(person) if m.id == data.get("id")),
                    None)
        if move is None or move.judge is None:
            raise ArenaError("That move is no longer waiting (answered, or timed out).")
        tokens = (await move.judge.tokenize([text]))[0] if text else []
        return web.json_response({"ok": True, "tokens": len(tokens)})

    async def start(self, request: web.Request) -> web.StreamResponse:
        server = self.server
        person = server.person(request)
        data = await body(request)
        others = data.get("others") or {}
        if not isinstance(others, dict) or len(others) > MAX_OTHERS or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in others.items()
        ):
            raise ArenaError("Pick a player for every other seat from the page's list.")
        chosen = {role: server.opponents.check(role, spec) for role, spec in others.items()}
        source = text_field(data, "source")
        game = "" if source else registered_game(text_field(data, "game"), server.registry)
        choice = SeatChoice(
            person=person, game=game, role=text_field(data, "role"), others=chosen,
            source=source, dialect=text_field(data, "dialect") or None,
            rounds=max(1, min(int(data.get("rounds") or 1), MAX_ROUNDS)),
        )
        server.check_start(person)
        loaded = await asyncio.to_thread(self._load, data)
        page = await asyncio.to_thread(page_match, choice, loaded, server.settings.ladder,
                                       server.registry)
        label = f"{page.mine.game} as {choice.role}"
        match = server.start_page(page, label)
        return web.json_response({"ok": True, "match": match.number, "label": label,
                                  "tournament": page.tournament, "card": f"m{match.number}",
                                  "models": len(page.models)})
