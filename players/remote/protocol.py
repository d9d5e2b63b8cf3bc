"""The wire protocol between the arena and a remote agent (JSON over a websocket).

An agent connects to ``ws://<host>:<port>/agents/<name>`` with the header
``Authorization: Bearer <token>`` (its own: see `arena.players.remote.player`); a wrong or missing
token gets HTTP 401, an agent name no seat is waiting for gets 404, and a second connection
while the agent's first one is live gets 409. Every message is one JSON object with a
``type``, in one text frame of at most 4 MiB (a bigger one closes the connection); a frame
that is not JSON, or nests deeper than the parser allows, gets an ``error`` message:

arena -> agent
    ``{"type": "hello", "agent": "alice", "protocol": 1}`` once, on connection.
    ``{"type": "observation", "request_id": "9f...", "request": {...}}`` for every move the
    arena needs. ``request`` is the `MoveRequest` (the player's information set) as JSON:
    ``game {name, code, dialect, header, version}``, ``role``, ``round``, ``rounds``,
    ``line``, ``registers`` (the registers to fill, in order), ``max_len`` (judge tokens;
    longer moves are cut), ``visible {register: value}``, ``reveals [{label, value,
    line}]``, ``history [...]`` (own moves, rewards, failed ensures, reveals this round),
    ``previous_rounds``, ``attempt``, ``failed_condition``, ``omniscient``, ``seed``.
    A reward item's ``terms`` carry per-token ``bits`` and ``tokens`` only for terms over
    texts the agent has seen; the terms that score or condition on hidden text come as one
    entry with ``hidden: true``, empty ``bits``/``tokens`` and their combined ``total``
    rounded to 0.01 bits (XGL.md section 4). ``seed`` is for the agent's own randomness:
    derived with a key the arena keeps secret, it says nothing about the map.
    ``{"type": "error", "request_id": "9f..." | null, "message": "..."}`` when a message
    from the agent was rejected; a rejected move fails that attempt (the arena retries with
    a new observation, then forfeits the seat).

agent -> arena
    ``{"type": "move", "request_id": "9f...", "moves": {"t": "my move"}}`` with one string
    per requested register, answering the observation with the same ``request_id``.

`message_schemas()` returns the JSON Schema of each message; ``python -m
arena.players.remote.protocol`` prints them.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from arena.errors import PlayerError
from arena.protocols.player import MoveRequest

PROTOCOL_VERSION = 1
_REQUEST = TypeAdapter(MoveRequest)
_ANY_JSON: TypeAdapter[Any] = TypeAdapter(Any)  # pydantic's parser: bounded nesting depth


class Hello(BaseModel):
    """Sent once when an agent connects."""

    type: Literal["hello"] = "hello"
    agent: str
    protocol: int = PROTOCOL_VERSION


class Observation(BaseModel):
    """A move request for the agent."""

    type: Literal["observation"] = "observation"
    request_id: str
    request: MoveRequest


class MoveReply(BaseModel):
    """The agent's answer to one observation: one string per requested register."""

    model_config = ConfigDict(extra="ignore")

    type: Literal["move"]
    request_id: str
    moves: dict[str, str]


class ErrorMessage(BaseModel):
    """Tells the agent that one of its messages was rejected, and why."""

    type: Literal["error"] = "error"
    request_id: str | None = None
    message: str


def request_to_json(request: MoveRequest) -> dict[str, Any]:
    """A `MoveRequest` as plain JSON data."""
    data: dict[str, Any] = _REQUEST.dump_python(request, mode="json")
    return data


def request_from_json(data: object) -> MoveRequest:
    """Rebuild a `MoveRequest` from `request_to_json` output (for Python agents)."""
    return _REQUEST.validate_python(data)


def observation(request_id: str, request: MoveRequest) -> str:
    """The observation message for `request`, as JSON text."""
    return Observation(request_id=request_id, request=request).model_dump_json()


class ProtocolError(PlayerError):
    """A message from a remote agent that does not follow the protocol."""

    def __init__(self, message: str, request_id: str | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id


def parse_agent_message(text: str) -> MoveReply:
    """Parse one message from an agent; raises `ProtocolError` saying what is wrong.

    pydantic's parser (not `json.loads`) is used because it bounds nesting: 200 KB of
    ``[[[...`` is one error message here, not a `RecursionError` on the organiser's
    console; it also refuses lone surrogates and numbers beyond any float."""
    try:
        data = _ANY_JSON.validate_json(text)
    except ValidationError as error:  # its text would echo the input: only the reason
        raise ProtocolError(
            f"Message is not valid JSON ({error.errors()[0]['msg']}); send one UTF-8 JSON "
            'object, {"type": "move", "request_id": ..., "moves": {register: text}}.'
        ) from None
    except ValueError as error:
        raise ProtocolError(
            f"Message is not valid JSON ({error}); send one UTF-8 JSON object, "
            '{"type": "move", "request_id": ..., "moves": {register: text}}.'
        ) from None
    request_id = data.get("request_id") if isinstance(data, dict) else None
    if not isinstance(data, dict) or data.get("type") != "move":
        kind = data.get("type") if isinstance(data, dict) else type(data).__name__
        raise ProtocolError(
            f"Unexpected message type {kind!r}; agents send only "
            '{"type": "move", "request_id": ..., "moves": {register: text}}.',
            request_id if isinstance(request_id, str) else None,
        )
    try:
        return MoveReply.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'message'}: {e['msg']}" for e in error.errors()
        )
        raise ProtocolError(
            f"Bad move message: {problems}.", request_id if isinstance(request_id, str) else None
        ) from None


def message_schemas() -> dict[str, dict[str, Any]]:
    """The JSON Schema of every message type, keyed by its ``type``."""
    return {
        "hello": Hello.model_json_schema(),
        "observation": Observation.model_json_schema(),
        "move": MoveReply.model_json_schema(),
        "error": ErrorMessage.model_json_schema(),
    }


if __name__ == "__main__":
    print(json.dumps(message_schemas(), indent=2))
