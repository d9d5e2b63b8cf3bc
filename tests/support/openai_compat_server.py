"""A scriptable OpenAI-compatible server on the loopback interface, for tests and benchmarks
(test-only, so it is not shipped in the wheel).

It implements ``POST /v1/chat/completions`` and ``POST /v1/completions`` (non-streaming).
Each request takes the next *behaviour* from a queue, or the default behaviour when the
queue is empty. A behaviour is a dict with any of:

- ``{"reply": text}``: answer with this text (the default behaviour's text otherwise);
- ``{"status": 429}`` / ``{"status": 500}`` (any code >= 400): answer with that error;
  with ``"echo_auth": true`` the error message repeats the bearer token (to test that
  clients redact it);
- ``{"delay": seconds}``: wait first (combinable with the others);
- ``{"malformed": true}``: a body that is not JSON; ``{"malformed": "no_choices"}``: JSON
  without ``choices``.

Every request is recorded (path, JSON body, headers with Authorization masked, and a short
SHA-256 fingerprint of the bearer token so tests can check which key arrived without the
key ever being stored). Usage figures are word counts, deterministic for tests.

    state = ServerState(default={"reply": '<move register="t">hi</move>'})
    async with start_server(state=state) as base_url:  # "http://127.0.0.1:PORT/v1"
        ...
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import json
import time
from collections import deque
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from arena.errors import ConfigError

Behaviour = Mapping[str, Any]
DEFAULT_REPLY = "<move>ok</move>"
MASK = "***"


def key_fingerprint(key: str) -> str:
    """The fingerprint the server records for a bearer token (12 hex digits of SHA-256)."""
    return hashlib.sha256(key.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it, with the credentials masked."""

    path: str
    body: Mapping[str, Any]
    headers: Mapping[str, str]
    key_fingerprint: str  # "" when no bearer token was sent

    @property
    def text(self) -> str:
        """Every message/prompt text of the request, joined (what the model was shown)."""
        if "messages" in self.body:
            return "\n".join(_content_text(m.get("content")) for m in self.body["messages"])
        prompt = self.body.get("prompt", "")
        return "\n".join(prompt) if isinstance(prompt, list) else str(prompt)


@dataclass
class ServerState:
    """The server's script and what it has seen; safe to inspect between requests."""

    default: Behaviour = field(default_factory=lambda: {"reply": DEFAULT_REPLY})
    queue: deque[Behaviour] = field(default_factory=deque)
    requests: list[RecordedRequest] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    closing: asyncio.Event = field(default_factory=asyncio.Event)

    def script(self, behaviours: Iterable[Behaviour]) -> None:
        """Queue behaviours for the next requests, in order."""
        self.queue.extend(behaviours)


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}]
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _mask_headers(headers: Mapping[str, str]) -> dict[str, str]:
    masked = {}
    for name, value in headers.items():
        secret = name.lower() in ("authorization", "api-key", "x-api-key")
        masked[name] = MASK if secret else value
    return masked


def _words(text: str) -> int:
    return len(text.split())


def _completion_body(path: str, body: Mapping[str, Any], reply: str, prompt: str) -> Any:
    usage = {
        "prompt_tokens": _words(prompt),
        "completion_tokens": _words(reply),
        "total_tokens": _words(prompt) + _words(reply),
    }
    model = str(body.get("model", "test-model"))
    if path.endswith("/chat/completions"):
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": reply},
            "finish_reason": "stop",
        }
        kind = "chat.completion"
    else:
        choice = {"index": 0, "text": reply, "finish_reason": "stop", "logprobs": None}
        kind = "text_completion"
    return {
        "id": f"cmpl-{len(reply)}-{int(time.time())}",
        "object": kind,
        "created": int(time.time()),
        "model": model,
        "choices": [choice],
        "usage": usage,
    }


def _handler(state: ServerState) -> Any:
    async def handle(request: web.Request) -> web.StreamResponse:
        state.in_flight += 1
        state.max_in_flight = max(state.max_in_flight, state.in_flight)
        try:
            return await _respond(state, request)
        finally:
            state.in_flight -= 1

    return handle


async def _respond(state: ServerState, request: web.Request) -> web.StreamResponse:
    try:
        body = await request.json()
    except json.JSONDecodeError:
        return web.json_response({"error": {"message": "body is not JSON"}}, status=400)
    auth = request.headers.get("Authorization", "")
    token = auth.removeprefix("Bearer ").strip()
    recorded = RecordedRequest(
        path=request.path,
        body=body,
        headers=_mask_headers(request.headers),
        key_fingerprint=key_fingerprint(token) if token else "",
    )
    state.requests.append(recorded)
    behaviour = state.queue.popleft() if state.queue else state.default
    delay = float(behaviour.get("delay", 0))
    if delay > 0:
        # Wake early when the server shuts down, so a slow reply never holds up cleanup.
        with suppress(TimeoutError):
            await asyncio.wait_for(state.closing.wait(), timeout=delay)
    status = int(behaviour.get("status", 200))
    if status >= 400:
        message = f"scripted error {status}"
        if behaviour.get("echo_auth"):  # like a careless server that echoes the bad key
            message += f": invalid key {token!r}"
        error = {"message": message, "type": "test_error", "code": status}
        return web.json_response({"error": error}, status=status)
    malformed = behaviour.get("malformed")
    if malformed == "no_choices":
        return web.json_response({"id": "x", "object": "chat.completion", "model": "m"})
    if malformed:
        return web.Response(text="{this is not json", content_type="application/json")
    reply = str(behaviour.get("reply", state.default.get("reply", DEFAULT_REPLY)))
    return web.json_response(_completion_body(request.path, body, reply, recorded.text))


def build_app(state: ServerState) -> web.Application:
    """The aiohttp application serving `state` (both with and without the /v1 prefix)."""
    app = web.Application()
    handle = _handler(state)
    for prefix in ("/v1", ""):
        app.router.add_post(f"{prefix}/chat/completions", handle)
        app.router.add_post(f"{prefix}/completions", handle)
    return app


def _check_loopback(host: str) -> None:
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ConfigError(
            f"The test server only listens on the loopback interface, not on {host!r}. "
            "Use host='127.0.0.1' (or '::1', 'localhost')."
        )


@asynccontextmanager
async def start_server(
    host: str = "127.0.0.1", port: int = 0, *, state: ServerState | None = None
) -> AsyncIterator[str]:
    """Serve `state` (a fresh default one if None) and yield the base URL ending in /v1.

    Port 0 picks a free port. The server stops when the context exits.
    """
    _check_loopback(host)
    state = state if state is not None else ServerState()
    runner = web.AppRunner(build_app(state), handle_signals=False, shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = runner.addresses[0][1] if runner.addresses else port
    shown = f"[{host}]" if ":" in host else host
    try:
        yield f"http://{shown}:{bound}/v1"
    finally:
        state.closing.set()
        await runner.cleanup()
