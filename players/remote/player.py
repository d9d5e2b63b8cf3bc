"""`remote:<name>?token_env=VAR&host=127.0.0.1&port=8765&timeout=300` — a seat played by
an external agent over a websocket.

The agent connects to ``ws://<host>:<port>/agents/<name>`` with ``Authorization: Bearer
<token>``. Every agent has its own token, so one entrant cannot play another's seat:
without `token_env` the server makes one per agent name and prints it once on the
organiser's stderr (a new one each run); with `token_env=VAR` the token is the value of
that environment variable in the arena's process (the same every run), and two agents may
not share one. A token is never put in the spec, so it never reaches logs or the database.
For every move the agent gets an observation (its information set) and answers with its
moves; see `arena.players.remote.protocol` for the messages and `examples/remote_agent.py` for a
client.

The server starts on the first move and is shared by every remote seat of the process on
the same host and port. `timeout` bounds the wait for the agent to connect plus answer; a
timeout or a disconnection fails the attempt, and the runtime retries, then forfeits.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from arena.errors import ConfigError
from arena.plugins.plugin_types import PlayerContext
from arena.protocols.player import MoveRequest
from arena.spec_params import Param, SpecParams
from arena.specs import NAME_RE, Spec

if TYPE_CHECKING:
    from arena.players.remote.server import RemoteServer

DEFAULT_PORT = 8765
# A guessable token would let anyone play the seat: a chosen one is at least this long.
MIN_TOKEN_CHARS = 16
SPEC_PARAMS = SpecParams(
    arg="agent name (it connects to ws://<host>:<port>/agents/<name>)",
    params=(
        Param("token_env", "str", None, "environment variable holding this agent's own "
              "token (default: one is made per agent and printed once)"),
        Param("host", "str", "127.0.0.1", "address to listen on"),
        Param("port", "int", DEFAULT_PORT, "port to listen on, 0 = any", minimum=0,
              maximum=65535),
        Param("timeout", "float", 300.0, "seconds the agent has per move (> 0)"),
    ),
)
PARAMS = SPEC_PARAMS.names


class RemotePlayer:
    """Forwards each request to a remote agent and returns its moves."""

    def __init__(
        self, *, agent: str, token: str | None, host: str, port: int, timeout: float, name: str
    ) -> None:
        self.agent = agent
        self._token = token
        self.host = host
        self.port = port
        self.timeout = timeout
        self._name = name
        self._server: RemoteServer | None = None

    @property
    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:  # never shows the token
        return f"RemotePlayer(agent={self.agent!r}, host={self.host!r}, port={self.port})"

    async def start(self) -> str:
        """Start (or join) the server and register the agent; returns the agent's URL."""
        if self._server is None or self._server.loop is not asyncio.get_running_loop():
            # Imported here: aiohttp is only needed once a remote seat actually plays.
            from arena.players.remote.server import get_server

            server = get_server(self.host, self.port)
            await server.start()
            server.register(self.agent, self._token)
            self._server = server
        return self._server.url(self.agent)

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        await self.start()
        assert self._server is not None
        return await self._server.ask(self.agent, request, self.timeout)

    async def aclose(self) -> None:
        """Unregister the agent; the server keeps serving other seats."""
        if self._server is not None:
            await self._server.unregister(self.agent)
            self._server = None


def create_remote_player(spec: Spec, ctx: PlayerContext) -> RemotePlayer:
    """Factory for `remote:<name>[?token_env=VAR&host=H&port=P&timeout=S]`; without
    `token_env` the token is made when the seat first plays (building one, e.g. to check a
    tournament file, makes and prints nothing)."""
    spec.expect_params(PARAMS, "player")
    agent = spec.arg.strip()
    if not agent or not NAME_RE.fullmatch(agent):
        raise ConfigError(
            f"Player spec '{spec.raw}' needs an agent name after ':' (letters, digits, "
            "'_', '-', '.'), e.g. 'remote:alice-bot'. The agent connects to "
            "ws://<host>:<port>/agents/<name>."
        )
    token = _chosen_token(spec) if "token_env" in spec.params else None
    timeout = spec.float_param("timeout", 300.0)
    if timeout <= 0:
        raise ConfigError(f"Parameter 'timeout' of '{spec.raw}' must be > 0, got {timeout:g}.")
    port = spec.int_param("port", DEFAULT_PORT, minimum=0)
    if port > 65535:
        raise ConfigError(f"Parameter 'port' of '{spec.raw}' must be <= 65535, got {port}.")
    return RemotePlayer(
        agent=agent,
        token=token,
        host=spec.params.get("host", "127.0.0.1"),
        port=port,
        timeout=timeout,
        name=spec.raw,
    )


def _chosen_token(spec: Spec) -> str:
    """The token in the spec's `token_env` variable: set, and long enough not to be guessed."""
    token_env = spec.params["token_env"]
    token = os.environ.get(token_env, "").strip()
    make = "python -c 'import secrets; print(secrets.token_urlsafe())'"
    if not token:
        raise ConfigError(
            f"Player '{spec.raw}' needs this agent's token in the environment variable "
            f"{token_env}, which is not set. Set it to a secret only this agent knows, e.g. "
            f"`export {token_env}=$({make})`, or leave token_env out to have one made."
        )
    if len(token) < MIN_TOKEN_CHARS:
        raise ConfigError(
            f"The token in {token_env} for player '{spec.raw}' has {len(token)} characters; "
            f"use at least {MIN_TOKEN_CHARS} so that it cannot be guessed, e.g. "
            f"`export {token_env}=$({make})`."
        )
    return token
