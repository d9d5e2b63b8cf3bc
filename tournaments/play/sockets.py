"""One person's websocket: capped in number (all together and per address); its first frame
says who they are (a name and its secret, or a free name to take); then the server pushes
the person's frames and takes their moves (`{"type": "move", "id", "moves"}`)."""

from __future__ import annotations

import asyncio
import contextlib
import json

from aiohttp import WSMsgType, web

from arena.errors import ArenaError
from arena.tournaments.play.frames import Frame
from arena.tournaments.play.server import PlayServer, Refused

MAX_FRAME_BYTES = 256 * 1024


async def socket(server: PlayServer, request: web.Request) -> web.StreamResponse:
    caps = server.settings.caps
    address = request.remote or "unknown"
    ws = web.WebSocketResponse(heartbeat=30.0, max_msg_size=MAX_FRAME_BYTES)
    await ws.prepare(request)
    total, mine = sum(server.open_sockets.values()), server.open_sockets.get(address, 0)
    if total >= caps.sockets or mine >= caps.sockets_per_address:
        full = (f"{mine} pages are open from your address, the most this server allows "
                "from one; close one and reload." if mine >= caps.sockets_per_address
                else f"The play server has {total} pages open, its most; reload in a while.")
        await _say(ws, full)
        await ws.close()
        return ws
    server.open_sockets[address] = mine + 1
    person = ""
    try:
        first = await ws.receive_json(timeout=caps.hello_s)
        if not isinstance(first, dict):
            raise ValueError
        person, made = server.join(first, address)
        await _take_over(server, person, ws)
        hello: Frame = {"type": "hello", "person": person}
        if made is not None:
            hello["secret"] = made  # the only time the server says it
        await ws.send_json(hello)
        server.queue_changed(person)
        server.send(person, await asyncio.to_thread(server.rating_of, person))
        async for message in ws:
            if message.type == WSMsgType.TEXT:
                await _on_move(server, ws, person, message.data)
    except Refused as error:
        await _say(ws, str(error))
    except TimeoutError:
        await _say(ws, f"Say who you are within {caps.hello_s:g} seconds: reload the page.")
    except (TypeError, ValueError, AttributeError, RecursionError):
        await _say(ws, "Send JSON frames.")
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


async def _take_over(server: PlayServer, person: str, ws: web.WebSocketResponse) -> None:
    """The person's newest tab is theirs; an older one is told and closed."""
    old, server.sockets[person] = server.sockets.get(person), ws
    if old is not None and not old.closed:
        await _say(old, "You opened the page in another tab or browser; this one has stopped.")
        await old.close()


async def _say(ws: web.WebSocketResponse, message: str) -> None:
    with contextlib.suppress(ConnectionError):
        await ws.send_json({"type": "error", "message": message})


async def _on_move(server: PlayServer, ws: web.WebSocketResponse, person: str, text: str) -> None:
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("type") != "move":
            raise ValueError
        moves = data.get("moves")
        if not isinstance(moves, dict):
            raise ValueError
        server.desk.answer(person, str(data.get("id")), moves)
    except (ValueError, RecursionError):
        await ws.send_json({"type": "error", "message": "Send {type: move, id, moves}."})
    except ArenaError as error:
        await ws.send_json({"type": "error", "message": str(error)})
