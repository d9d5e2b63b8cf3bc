"""The websocket server remote agents connect to: one per (host, port) per event loop.

Every `remote:<name>` seat registers its agent name and token with the shared server; an
agent connects to ``/agents/<name>`` with ``Authorization: Bearer <token>`` (tokens are
compared with `hmac.compare_digest`). Each agent name has its own secret: a seat without
`token_env` gets one made here (`secrets.token_urlsafe`) and printed once to the organiser's
stderr, and two names may never share one, so no entrant can present its own token for
another's seat. One connection per name: a second one while the first is live is refused
(HTTP 409) and changes nothing for the first; once the first has gone (closed, or dropped
and caught by the heartbeat) the agent connects again.

Tokens are never logged, stored or sent anywhere but that one line, and the aiohttp access
log is off so that nothing a client puts in a URL is logged either.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import secrets
import sys
import uuid
from dataclasses import dataclass, field

from aiohttp import WSMsgType, web

from arena.errors import ConfigError, PlayerError
from arena.players.remote.protocol import (
    ErrorMessage,
    Hello,
    ProtocolError,
    observation,
    parse_agent_message,
)
from arena.protocols.player import MoveRequest

log = logging.getLogger(__name__)
MAX_MESSAGE_BYTES = 4 * 1024 * 1024
HEARTBEAT_S = 30.0


class AgentDisconnected(PlayerError):
    """The agent's websocket closed while a move was pending."""


@dataclass(frozen=True)
class _Secret:
    """The token an agent name has on this server, and whether the server made it."""

    value: bytes = field(repr=False)
    made_here: bool


@dataclass(eq=False)
class _Agent:
    """One agent name: its token, its current connection and its unanswered requests.

    `claimed` is set, before any await, by the connection being accepted, so that of two
    handshakes racing for one name only the first gets in."""

    name: str
    token: bytes = field(repr=False)
    users: int = 0
    claimed: bool = False
    ws: web.WebSocketResponse | None = None
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    pending: dict[str, asyncio.Future[dict[str, str]]] = field(default_factory=dict)

    def fail_pending(self, error: Exception) -> None:
        for future in self.pending.values():
            if not future.done():
                future.set_exception(error)


class RemoteServer:
    """An aiohttp app serving `/agents/<name>` websockets for the registered agents."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.requested_port = port
        self.port = port
        self.loop = asyncio.get_running_loop()
        self._agents: dict[str, _Agent] = {}
        # Kept after a seat closes: an agent keeps its token for the server's whole life.
        self._secrets: dict[str, _Secret] = {}
        self._runner: web.AppRunner | None = None
        self._starting = asyncio.Lock()

    def url(self, agent: str) -> str:
        return f"ws://{self.host}:{self.port}/agents/{agent}"

    async def start(self) -> None:
        """Bind the port (once); later calls return at once."""
        async with self._starting:
            if self._runner is not None:
                return
            app = web.Application()
            app.router.add_get("/agents/{name}", self._handle)
            runner = web.AppRunner(app, access_log=None)
            await runner.setup()
            site = web.TCPSite(runner, self.host, self.port)
            try:
                await site.start()
            except OSError as error:
                await runner.cleanup()
                raise ConfigError(
                    f"Cannot listen for remote agents on {self.host}:{self.port}: {error}. "
                    "Pick another port with ?port=<n> (0 picks a free one)."
                ) from error
            self._runner = runner
            self.port = int(runner.addresses[0][1])
            log.info("remote agents connect to ws://%s:%s/agents/<name>", self.host, self.port)

    def register(self, name: str, token: str | None) -> None:
        """Let agent `name` connect with `token`, or with one made here when `token` is None
        (several seats may share one agent; two agents never share a token)."""
        secret = self._secret_for(name, token)
        agent = self._agents.get(name)
        if agent is None:
            agent = self._agents[name] = _Agent(name, secret)
        agent.users += 1

    def _secret_for(self, name: str, token: str | None) -> bytes:
        known = self._secrets.get(name)
        if known is not None:
            same = (
                known.made_here if token is None
                else not known.made_here and hmac.compare_digest(known.value, token.encode())
            )
            if not same:
                raise ConfigError(
                    f"Remote agent '{name}' is already registered on port {self.port} with a "
                    "different token. Give every seat of one agent the same token_env (or "
                    "leave token_env out on all of them)."
                )
            return known.value
        if token is None:
            made = secrets.token_urlsafe(32)
            self._secrets[name] = _Secret(made.encode(), made_here=True)
            _announce(
                self.url(name),
                f"; it sends the header 'Authorization: Bearer {made}' (a token made for "
                "this agent and this run, shown only here)",
            )
            return self._secrets[name].value
        secret = token.encode("utf-8")
        for other, known in self._secrets.items():
            if hmac.compare_digest(known.value, secret):
                raise ConfigError(
                    f"Remote agents '{other}' and '{name}' would share one token, so either "
                    "could play the other's seats. Give each agent its own token_env (a "
                    "different secret each), or leave token_env out to have one made per agent."
                )
        self._secrets[name] = _Secret(secret, made_here=False)
        return secret

    async def unregister(self, name: str) -> None:
        """Undo one `register`; the last one closes the agent's connection."""
        agent = self._agents.get(name)
        if agent is None:
            return
        agent.users -= 1
        if agent.users <= 0:
            del self._agents[name]
            agent.fail_pending(AgentDisconnected(f"Remote agent '{name}' was unregistered."))
            if agent.ws is not None:
                await agent.ws.close(message=b"seat closed")

    @property
    def agents(self) -> list[str]:
        return sorted(self._agents)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        agent = self._agents.get(name)
        if agent is None:
            return web.json_response(
                {"error": f"No seat is waiting for agent '{name}'."}, status=404
            )
        header = request.headers.get("Authorization", "")
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            given.strip().encode("utf-8"), agent.token
        ):
            log.warning("remote agent %r: connection refused (missing or wrong token)", name)
            return web.json_response(
                {"error": "Missing or wrong token. Send 'Authorization: Bearer <token>'."},
                status=401,
                headers={"WWW-Authenticate": "Bearer"},
            )
        if agent.claimed:
            # Refused, not swapped in: the live connection keeps its seat and its requests.
            log.warning("remote agent %r: second connection refused (one is live)", name)
            return web.json_response(
                {"error": f"Agent '{name}' is already connected; only one connection per "
                 "agent. Close the other one first (a dropped connection is noticed within "
                 f"{HEARTBEAT_S * 1.5:g} s), then connect again."},
                status=409,
            )
        agent.claimed = True
        ws = web.WebSocketResponse(heartbeat=HEARTBEAT_S, max_msg_size=MAX_MESSAGE_BYTES)
        try:
            await ws.prepare(request)
            agent.ws = ws
            agent.connected.set()
            log.info("remote agent %r connected", name)
            await ws.send_str(Hello(agent=name).model_dump_json())
            async for message in ws:
                if message.type == WSMsgType.TEXT:
                    await self._on_text(agent, ws, message.data)
                elif message.type == WSMsgType.BINARY:
                    await _send_error(ws, None, "Send JSON text messages, not binary ones.")
        finally:
            agent.claimed = False
            if agent.ws is ws:
                agent.ws = None
                agent.connected.clear()
                agent.fail_pending(AgentDisconnected(f"Remote agent '{name}' disconnected."))
            log.info("remote agent %r disconnected", name)
        return ws

    async def _on_text(self, agent: _Agent, ws: web.WebSocketResponse, text: str) -> None:
        try:
            reply = parse_agent_message(text)
        except ProtocolError as error:
            future = agent.pending.get(error.request_id or "")
            if future is not None and not future.done():
                future.set_exception(error)  # fails this attempt; the runtime asks again
            await _send_error(ws, error.request_id, str(error))
            return
        future = agent.pending.get(reply.request_id)
        if future is None or future.done():
            await _send_error(
                ws, reply.request_id, "Unknown or already answered request_id; ignored."
            )
            return
        future.set_result(reply.moves)

    async def ask(self, name: str, request: MoveRequest, timeout: float) -> dict[str, str]:
        """Send `request` to agent `name` and wait for its moves, at most `timeout` s in all."""
        agent = self._agents.get(name)
        if agent is None:
            raise PlayerError(f"Remote agent '{name}' is not registered with this server.")
        deadline = self.loop.time() + timeout
        if agent.ws is None:
            _announce(self.url(name))
            try:
                await asyncio.wait_for(agent.connected.wait(), timeout)
            except TimeoutError:
                raise PlayerError(
                    f"Remote agent '{name}' did not connect to {self.url(name)} within "
                    f"{timeout:g} s."
                ) from None
        ws = agent.ws
        assert ws is not None  # set together with `connected`
        request_id = uuid.uuid4().hex
        future: asyncio.Future[dict[str, str]] = self.loop.create_future()
        agent.pending[request_id] = future
        try:
            try:
                await ws.send_str(observation(request_id, request))
            except ConnectionError as error:
                raise AgentDisconnected(f"Remote agent '{name}' is gone: {error}") from None
            left = max(0.0, deadline - self.loop.time())
            try:
                return await asyncio.wait_for(future, left)
            except TimeoutError:
                raise PlayerError(
                    f"Remote agent '{name}' did not answer within {timeout:g} s."
                ) from None
        finally:
            del agent.pending[request_id]

    async def close(self) -> None:
        """Close every agent connection and stop listening."""
        for agent in list(self._agents.values()):
            agent.fail_pending(AgentDisconnected(f"Remote agent '{agent.name}': server closed."))
            if agent.ws is not None:
                await agent.ws.close(message=b"server closing")
        self._agents.clear()
        self._secrets.clear()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        _SERVERS.pop((self.host, self.requested_port), None)


async def _send_error(ws: web.WebSocketResponse, request_id: str | None, message: str) -> None:
    with contextlib.suppress(ConnectionError):
        await ws.send_str(ErrorMessage(request_id=request_id, message=message).model_dump_json())


_announced: set[str] = set()


def _announce(url: str, how: str = "") -> None:
    """Tell the person running the arena once where the agent should connect; a token made
    here (`how`) is always told, on stderr only, never to a log, event or database."""
    if url not in _announced or how:
        _announced.add(url)
        print(f"arena: waiting for remote agent at {url}{how}", file=sys.stderr, flush=True)


_SERVERS: dict[tuple[str, int], RemoteServer] = {}


def get_server(host: str, port: int) -> RemoteServer:
    """The process's server for (host, port) on the running event loop, created if needed.

    A server left behind by an event loop that has finished is replaced."""
    loop = asyncio.get_running_loop()
    server = _SERVERS.get((host, port))
    if server is None or server.loop is not loop:
        server = _SERVERS[(host, port)] = RemoteServer(host, port)
    return server


async def shutdown_servers() -> None:
    """Close every server of the running event loop (for tournament and test teardown)."""
    loop = asyncio.get_running_loop()
    for server in [s for s in _SERVERS.values() if s.loop is loop]:
        await server.close()
