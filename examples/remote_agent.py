"""A reference remote agent for the Xent Arena: connects, prints observations, answers.

Run a match with a remote seat; the arena prints the agent's URL and a token made for it
(once, on its stderr). Give that token to this agent only::

    arena play game.xgl --judge ngram --player black=remote:alice
    # arena: waiting for remote agent at ws://127.0.0.1:8765/agents/alice; it sends the
    #        header 'Authorization: Bearer <token>' ...
    export ARENA_AGENT_TOKEN=<token>
    python examples/remote_agent.py --url ws://127.0.0.1:8765/agents/alice

For a token that stays the same from run to run, the organiser picks one secret per agent
and names its variable in the spec: ``remote:alice?token_env=ALICE_TOKEN``. Every agent has
its own token, and one connection per agent name: while this agent is connected, a second
connection for its name is refused (HTTP 409).

The agent needs only aiohttp. It sends ``Authorization: Bearer <token>``, then for every
``{"type": "observation", "request_id", "request"}`` message it answers ``{"type":
"move", "request_id", "moves": {register: text}}``. The message schemas are printed by
``python -m arena.players.remote.protocol``. Replace `choose_moves` with your own strategy.
The token is read from the environment, never from the command line, and never printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import time
from collections.abc import Callable
from typing import Any

import aiohttp

Strategy = Callable[[dict[str, Any]], dict[str, str]]


def choose_moves(request: dict[str, Any]) -> dict[str, str]:
    """A simple strategy: echo words the agent can see, a different slice per attempt."""
    texts = list(request.get("visible", {}).values())
    texts += [revealed["value"] for revealed in request.get("reveals", [])]
    words = re.findall(r"[A-Za-z']+", " ".join(texts)) or ["hello", "world"]
    size = max(1, min(int(request.get("max_len", 1)), 8))
    moves: dict[str, str] = {}
    for index, register in enumerate(request["registers"]):
        start = (index * size + (int(request.get("attempt", 1)) - 1)) % len(words)
        chosen = [words[(start + k) % len(words)] for k in range(size)]
        moves[register] = " ".join(chosen)
    return moves


def describe(request: dict[str, Any]) -> str:
    """A one-paragraph summary of an observation for the terminal."""
    lines = [
        f"{request['game']['name']}: {request['role']} round {request['round']}/"
        f"{request['rounds']} line {request['line']} attempt {request['attempt']} -> "
        f"{', '.join(request['registers'])} (max {request['max_len']} tokens)"
    ]
    lines += [f"  {register} = {value!r}" for register, value in request["visible"].items()]
    lines += [f"  revealed {r['label']} = {r['value']!r}" for r in request["reveals"]]
    if request.get("failed_condition"):
        lines.append(f"  last move failed: {request['failed_condition']}")
    return "\n".join(lines)


async def connect(
    session: aiohttp.ClientSession, url: str, token: str, connect_timeout: float
) -> aiohttp.ClientWebSocketResponse:
    """Connect, retrying while the arena's server is not up yet."""
    deadline = time.monotonic() + connect_timeout
    while True:
        try:
            return await session.ws_connect(url, headers={"Authorization": f"Bearer {token}"})
        except aiohttp.WSServerHandshakeError as error:
            if error.status in (401, 403):
                raise SystemExit(f"{url}: the token was refused (HTTP {error.status}).") from None
            if time.monotonic() > deadline:
                if error.status == 409:
                    raise SystemExit(
                        f"{url}: another connection for this agent is live (HTTP 409); "
                        "stop it first."
                    ) from None
                raise
        except aiohttp.ClientConnectionError as error:
            if time.monotonic() > deadline:
                raise SystemExit(
                    f"{url}: cannot connect ({error}); is the arena's match running?"
                ) from None
        await asyncio.sleep(0.2)


async def run_agent(
    url: str,
    token: str,
    *,
    strategy: Strategy = choose_moves,
    connect_timeout: float = 60.0,
    show: Callable[[str], None] = print,
) -> int:
    """Play until the arena closes the connection; returns how many moves were sent."""
    answered = 0
    async with aiohttp.ClientSession() as session:
        ws = await connect(session, url, token, connect_timeout)
        async with ws:
            async for message in ws:
                if message.type != aiohttp.WSMsgType.TEXT:
                    break
                data = json.loads(message.data)
                if data["type"] == "observation":
                    show(describe(data["request"]))
                    moves = strategy(data["request"])
                    show(f"  -> {moves}")
                    await ws.send_json(
                        {"type": "move", "request_id": data["request_id"], "moves": moves}
                    )
                    answered += 1
                elif data["type"] == "error":
                    show(f"arena rejected a message: {data['message']}")
                else:
                    show(f"arena says: {data}")
    return answered


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="ws://host:port/agents/<name>")
    parser.add_argument("--token-env", default="ARENA_AGENT_TOKEN",
                        help="environment variable holding this agent's token")
    parser.add_argument("--connect-timeout", type=float, default=60.0,
                        help="seconds to keep retrying the first connection")
    args = parser.parse_args(argv)
    token = os.environ.get(args.token_env, "").strip()
    if not token:
        parser.error(f"set the environment variable {args.token_env} to the agent's token")
    moves = asyncio.run(run_agent(args.url, token, connect_timeout=args.connect_timeout))
    print(f"connection closed after {moves} move(s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
