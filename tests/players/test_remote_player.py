"""Remote players: a real websocket agent (the example client) plays through the server."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from types import ModuleType
from typing import Any

import aiohttp
import jsonschema
import pytest

from arena.errors import ConfigError
from arena.judges.ngram import NgramJudge
from arena.players.remote.player import RemotePlayer, create_remote_player
from arena.players.remote.protocol import (
    message_schemas,
    request_from_json,
    request_to_json,
)
from arena.players.remote.server import shutdown_servers
from arena.plugins.plugin_types import PlayerContext
from arena.specs import parse_spec
from tests.runtime.helpers import ListPlayer, events_of, run_game

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "s3cret-token-for-tests-only"
GAME = (
    'assign(s="the old miller walked to the river at dawn")\n'
    "reveal(alice, s)\n"
    "elicit(alice, t, 4)\n"
    "reward(alice, xed(s | t))\n"
    "elicit(alice, t1, t2, 3)\n"
    "reward(alice, xed(s | t1 + t2))\n"
)


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("remote_agent", ROOT / "examples/remote_agent.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


agent_example = load_example()


@pytest.fixture
async def servers() -> AsyncIterator[None]:
    yield
    await shutdown_servers()


def remote(spec: str, monkeypatch: pytest.MonkeyPatch, token: str = TOKEN) -> RemotePlayer:
    """A remote seat whose agent's own token (`token`) is in the variable its spec names."""
    monkeypatch.setenv("TEST_AGENT_TOKEN", token)
    spec += "&token_env=TEST_AGENT_TOKEN" if "?" in spec else "?token_env=TEST_AGENT_TOKEN"
    return create_remote_player(parse_spec(spec), PlayerContext(role="alice"))


async def test_a_remote_agent_plays_a_whole_match(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, servers: None
) -> None:
    caplog.set_level(logging.DEBUG)
    player = remote("remote:alice?port=0&timeout=20", monkeypatch)
    url = await player.start()
    assert url.startswith("ws://127.0.0.1:") and url.endswith("/agents/alice")
    seen: list[dict[str, Any]] = []

    def strategy(request: dict[str, Any]) -> dict[str, str]:
        seen.append(request)
        moves: dict[str, str] = agent_example.choose_moves(request)
        return moves

    shown: list[str] = []
    agent = asyncio.create_task(
        agent_example.run_agent(url, TOKEN, strategy=strategy, show=shown.append)
    )
    result = await run_game(GAME, {"alice": player}, NgramJudge())
    await shutdown_servers()  # closes the connection, so the agent's loop ends
    assert await asyncio.wait_for(agent, 10) == 2

    responses = events_of(result, "elicit_response")
    assert [r.values for r in responses] == [agent_example.choose_moves(r) for r in seen]
    assert responses[0].values["t"] == "the old miller walked"  # words alice was shown
    assert set(responses[1].values) == {"t1", "t2"}
    assert len(events_of(result, "reward")) == 2 and not result.error
    # The agent got exactly its information set, in the documented format.
    first = request_from_json(seen[0])
    assert first.role == "alice" and first.registers == ("t",) and first.visible == {}
    assert [r.value for r in first.reveals] == ["the old miller walked to the river at dawn"]
    assert seen[1]["history"][0]["kind"] == "reveal"
    assert any("t = " in line or "-> " in line for line in shown)
    # The token never reaches the logs or the player's repr.
    assert caplog.records and TOKEN not in caplog.text
    assert TOKEN not in repr(player) and TOKEN not in player.name


async def test_observations_follow_the_published_schemas(
    monkeypatch: pytest.MonkeyPatch, servers: None
) -> None:
    recorder = ListPlayer(["river dawn", "a", "b"])
    await run_game(GAME, {"alice": recorder}, NgramJudge())
    schemas = message_schemas()
    player = remote("remote:schema-bot?port=0&timeout=20", monkeypatch)
    url = await player.start()
    async with aiohttp.ClientSession() as session, session.ws_connect(
        url, headers={"Authorization": f"Bearer {TOKEN}"}
    ) as ws:
        hello = await ws.receive_json()
        jsonschema.validate(hello, schemas["hello"])
        move = asyncio.create_task(player.move(recorder.requests[1]))
        message = await ws.receive_json()
        jsonschema.validate(message, schemas["observation"])
        assert request_from_json(message["request"]) == recorder.requests[1]
        reply = {"type": "move", "request_id": message["request_id"], "moves": {"t1": "x", "t2": "y"}}
        jsonschema.validate(reply, schemas["move"])
        # A stray answer is rejected with an error message and does not count.
        await ws.send_json({**reply, "request_id": "not-a-request"})
        error = await ws.receive_json()
        jsonschema.validate(error, schemas["error"])
        assert error["request_id"] == "not-a-request" and "Unknown" in error["message"]
        await ws.send_json(reply)
        assert await move == {"t1": "x", "t2": "y"}
    assert request_from_json(request_to_json(recorder.requests[0])) == recorder.requests[0]


async def test_wrong_or_missing_token_gets_401_and_unknown_agent_404(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, servers: None
) -> None:
    caplog.set_level(logging.DEBUG)
    player = remote("remote:bob?port=0", monkeypatch)
    url = await player.start()
    async with aiohttp.ClientSession() as session:
        for headers in ({"Authorization": "Bearer wrong"}, {}, {"Authorization": TOKEN}):
            with pytest.raises(aiohttp.WSServerHandshakeError) as info:
                await session.ws_connect(url, headers=headers)
            assert info.value.status == 401
        with pytest.raises(aiohttp.WSServerHandshakeError) as info:
            await session.ws_connect(
                url.replace("/bob", "/nobody"), headers={"Authorization": f"Bearer {TOKEN}"}
            )
        assert info.value.status == 404
    assert "wrong token" in caplog.text and TOKEN not in caplog.text
    with pytest.raises(SystemExit, match="token was refused"):
        await agent_example.run_agent(url, "wrong", connect_timeout=5)


async def test_a_disconnecting_agent_forfeits_after_the_retries(
    monkeypatch: pytest.MonkeyPatch, servers: None
) -> None:
    player = remote("remote:alice?port=0&timeout=0.3", monkeypatch)
    url = await player.start()
    observations: list[dict[str, Any]] = []

    async def rude_agent() -> None:
        async with aiohttp.ClientSession() as session, session.ws_connect(
            url, headers={"Authorization": f"Bearer {TOKEN}"}
        ) as ws:
            await ws.receive_json()  # hello
            observations.append(await ws.receive_json())
            # ... and leaves without answering.

    agent = asyncio.create_task(rude_agent())
    result = await run_game(GAME, {"alice": player}, NgramJudge())
    await agent
    (forfeit,) = events_of(result, "forfeit")
    assert forfeit.player == "alice"
    assert "disconnected" in forfeit.reason and "did not connect" in forfeit.reason
    assert result.scores["alice"].forfeit and len(observations) == 1


async def test_a_reconnecting_agent_gets_the_move_asked_again(
    monkeypatch: pytest.MonkeyPatch, servers: None
) -> None:
    player = remote("remote:carol?port=0&timeout=20", monkeypatch)
    url = await player.start()

    async def flaky_then_good() -> int:
        async with aiohttp.ClientSession() as session, session.ws_connect(
            url, headers={"Authorization": f"Bearer {TOKEN}"}
        ) as ws:
            await ws.receive_json()
            await ws.receive_json()  # the first observation is dropped with the connection
        answered: int = await agent_example.run_agent(url, TOKEN, show=lambda _: None)
        return answered

    agent = asyncio.create_task(flaky_then_good())
    result = await run_game(GAME, {"alice": player}, NgramJudge())
    await shutdown_servers()
    assert await asyncio.wait_for(agent, 10) == 2
    assert not events_of(result, "forfeit") and len(events_of(result, "elicit_response")) == 2


async def test_a_malformed_move_fails_that_attempt_only(
    monkeypatch: pytest.MonkeyPatch, servers: None
) -> None:
    player = remote("remote:dave?port=0&timeout=20", monkeypatch)
    url = await player.start()

    async def sloppy_agent() -> list[str]:
        errors = []
        async with aiohttp.ClientSession() as session, session.ws_connect(
            url, headers={"Authorization": f"Bearer {TOKEN}"}
        ) as ws:
            await ws.receive_json()
            async for message in ws:
                data = json.loads(message.data)
                if data["type"] == "error":
                    errors.append(data["message"])
                    continue
                registers = data["request"]["registers"]
                if data["request"]["line"] == 3 and not errors:
                    moves: object = {registers[0]: 42}
                else:
                    moves = dict.fromkeys(registers, "fine")
                await ws.send_json({"type": "move", "request_id": data["request_id"], "moves": moves})
        return errors

    agent = asyncio.create_task(sloppy_agent())
    result = await run_game(GAME, {"alice": player}, NgramJudge())
    await shutdown_servers()
    errors = await asyncio.wait_for(agent, 10)
    assert len(errors) == 1 and "moves.t" in errors[0] and "string" in errors[0]
    assert [r.values for r in events_of(result, "elicit_response")] == [
        {"t": "fine"}, {"t1": "fine", "t2": "fine"}
    ]


def test_remote_specs_are_checked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Without token_env a token is made when the seat first plays: building one (as a
    # tournament check does) needs no variable and prints nothing.
    assert create_remote_player(parse_spec("remote:alice"), PlayerContext())
    assert capsys.readouterr().err == ""
    monkeypatch.delenv("MY_TOKEN", raising=False)
    with pytest.raises(ConfigError, match="MY_TOKEN, which is not set"):
        create_remote_player(parse_spec("remote:a?token_env=MY_TOKEN"), PlayerContext())
    monkeypatch.setenv("MY_TOKEN", "short")
    with pytest.raises(ConfigError, match="has 5 characters; use at least 16") as info:
        create_remote_player(parse_spec("remote:a?token_env=MY_TOKEN"), PlayerContext())
    assert "short" not in str(info.value)
    monkeypatch.setenv("MY_TOKEN", "x" * 16)
    assert create_remote_player(parse_spec("remote:a?token_env=MY_TOKEN"), PlayerContext())
    with pytest.raises(ConfigError, match="needs an agent name"):
        create_remote_player(parse_spec("remote?token_env=MY_TOKEN"), PlayerContext())
    with pytest.raises(ConfigError, match="Did you mean 'token_env'"):
        create_remote_player(parse_spec("remote:a?token=x&token_env=MY_TOKEN"), PlayerContext())
    with pytest.raises(ConfigError, match="timeout"):
        create_remote_player(parse_spec("remote:a?token_env=MY_TOKEN&timeout=0"), PlayerContext())


async def test_one_agent_name_cannot_have_two_tokens(
    monkeypatch: pytest.MonkeyPatch, servers: None
) -> None:
    first = remote("remote:erin?port=0", monkeypatch)
    await first.start()
    second = remote("remote:erin?port=0", monkeypatch, token="another-token-for-erin")
    with pytest.raises(ConfigError, match="different token"):
        await second.start()
    same = remote("remote:erin?port=0", monkeypatch)
    assert await same.start() == await first.start()  # one shared server and agent
