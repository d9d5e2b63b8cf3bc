"""Issue 24, items 2 and 14: one entrant cannot take over another's remote seat, and a
hostile frame gets a protocol error, not a traceback. Real websockets on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from arena.errors import ConfigError
from arena.judges.ngram import NgramJudge
from arena.players.remote.player import RemotePlayer, create_remote_player
from arena.players.remote.protocol import ProtocolError, parse_agent_message
from arena.players.remote.server import shutdown_servers
from arena.plugins.plugin_types import PlayerContext
from arena.protocols.player import MoveRequest
from arena.specs import parse_spec
from tests.players.test_remote_player import GAME, agent_example
from tests.runtime.helpers import ListPlayer, events_of, run_game

# The old default: every `remote:NAME` read this variable, so every entrant knew every token.
SHARED = "the-old-shared-token-everyone-knew"


@pytest.fixture
async def servers() -> AsyncIterator[None]:
    yield
    await shutdown_servers()


@pytest.fixture
async def requests() -> list[MoveRequest]:
    """Real move requests of GAME's two elicits."""
    recorder = ListPlayer(["river dawn", "a", "b"])
    await run_game(GAME, {"alice": recorder}, NgramJudge())
    return recorder.requests


def seat(spec: str) -> RemotePlayer:
    return create_remote_player(parse_spec(spec), PlayerContext(role="alice"))


def made_token(err: str, agent: str) -> str:
    """The token the arena printed for `agent` (its only appearance anywhere); before the
    fix nothing was printed and every agent's token was the shared one."""
    found = re.findall(rf"/agents/{agent}; it sends the header 'Authorization: Bearer (\S+)'", err)
    assert len(found) <= 1
    return str(found[0]) if found else SHARED


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def handshake_status(url: str, headers: dict[str, str]) -> int:
    """Connect, and close at once if let in; the HTTP status of the handshake."""
    async with aiohttp.ClientSession() as session:
        try:
            ws = await session.ws_connect(url, headers=headers)
        except aiohttp.WSServerHandshakeError as error:
            return error.status
        await ws.close()
        return 101


async def test_an_entrant_cannot_play_another_entrants_seat(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture, servers: None,
) -> None:
    """The reproduction: mallory connects to /agents/victim with the shared token (and with
    her own) during a whole match, connecting and closing; victim plays undisturbed."""
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("ARENA_REMOTE_TOKEN", SHARED)
    victim, mallory = seat("remote:victim?port=0&timeout=20"), seat("remote:mallory?port=0")
    victim_url = await victim.start()
    await mallory.start()
    err = capsys.readouterr().err
    victim_token, mallory_token = made_token(err, "victim"), made_token(err, "mallory")

    def victims_moves(request: dict[str, Any]) -> dict[str, str]:
        return dict.fromkeys(request["registers"], "victim")

    statuses: list[int] = []
    stop = asyncio.Event()

    async def attacker() -> None:
        while not stop.is_set():
            for token in (SHARED, mallory_token, ""):
                statuses.append(await handshake_status(victim_url, bearer(token)))

    agent = asyncio.create_task(
        agent_example.run_agent(victim_url, victim_token, strategy=victims_moves,
                                show=lambda _: None)
    )
    attack = asyncio.create_task(attacker())
    result = await run_game(GAME, {"alice": victim}, NgramJudge())
    stop.set()
    await attack
    await shutdown_servers()
    assert await asyncio.wait_for(agent, 10) == 2  # two observations, none lost to mallory

    assert statuses and set(statuses) == {401}
    assert not events_of(result, "forfeit") and not result.error
    assert [r.values for r in events_of(result, "elicit_response")] == [
        {"t": "victim"}, {"t1": "victim", "t2": "victim"}
    ]
    assert len({victim_token, mallory_token, SHARED}) == 3 and len(victim_token) >= 32
    # The made tokens were printed once, on stderr, and went nowhere else.
    assert victim_token not in caplog.text and mallory_token not in caplog.text
    assert victim_token not in repr(result.events) and victim_token not in repr(victim)


async def test_a_rejected_connect_and_close_leaves_the_pending_move_alone(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    requests: list[MoveRequest], servers: None,
) -> None:
    """The reproduction: mallory's connect-and-close on /agents/victim failed the
    victim's pending request."""
    monkeypatch.setenv("ARENA_REMOTE_TOKEN", SHARED)
    monkeypatch.setenv("MALLORY_TOKEN", "mallory-secret-0123456789")
    victim = seat("remote:victim?port=0&timeout=20")
    mallory = seat("remote:mallory?port=0&token_env=MALLORY_TOKEN")
    url = await victim.start()
    await mallory.start()
    victim_token = made_token(capsys.readouterr().err, "victim")
    async with aiohttp.ClientSession() as session, session.ws_connect(
        url, headers=bearer(victim_token)
    ) as ws:
        assert (await ws.receive_json())["type"] == "hello"
        move = asyncio.create_task(victim.move(requests[1]))
        observation = await ws.receive_json()
        for token in (SHARED, "mallory-secret-0123456789", "", victim_token[:-1]):
            assert await handshake_status(url, bearer(token)) == 401
        await asyncio.sleep(0.05)
        assert not move.done()  # nothing mallory did reached the victim's request
        await ws.send_json({"type": "move", "request_id": observation["request_id"],
                            "moves": {"t1": "mine", "t2": "too"}})
        assert await move == {"t1": "mine", "t2": "too"}


async def test_a_second_connection_for_a_connected_agent_is_refused(
    monkeypatch: pytest.MonkeyPatch, requests: list[MoveRequest],
    caplog: pytest.LogCaptureFixture, servers: None,
) -> None:
    monkeypatch.setenv("VICTIM_TOKEN", "victim-secret-0123456789")
    victim = seat("remote:victim?port=0&timeout=20&token_env=VICTIM_TOKEN")
    url = await victim.start()
    headers = bearer("victim-secret-0123456789")
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url, headers=headers) as ws:
            await ws.receive_json()
            move = asyncio.create_task(victim.move(requests[0]))
            observation = await ws.receive_json()
            # Even with the right token, a second connection is refused, not swapped in.
            async with session.get(url, headers={**headers, "Connection": "Upgrade",
                                                 "Upgrade": "websocket"}) as refused:
                assert refused.status == 409
                assert "already connected" in (await refused.json())["error"]
            with pytest.raises(aiohttp.WSServerHandshakeError) as info:
                await session.ws_connect(url, headers=headers)
            assert info.value.status == 409
            await asyncio.sleep(0.05)
            assert not move.done()
            await ws.send_json({"type": "move", "request_id": observation["request_id"],
                                "moves": {"t": "still mine"}})
            assert await move == {"t": "still mine"}
        # Once the first connection has gone, the agent connects again.
        async with session.ws_connect(url, headers=headers) as again:
            assert (await again.receive_json())["type"] == "hello"
    assert "second connection refused" in caplog.text


async def test_two_agents_cannot_share_one_token(
    monkeypatch: pytest.MonkeyPatch, servers: None
) -> None:
    monkeypatch.setenv("ARENA_REMOTE_TOKEN", SHARED)
    first = seat("remote:first?port=0&token_env=ARENA_REMOTE_TOKEN")
    await first.start()
    second = seat("remote:second?port=0&token_env=ARENA_REMOTE_TOKEN")
    with pytest.raises(ConfigError, match="'first' and 'second' would share one token") as info:
        await second.start()
    assert SHARED not in str(info.value)


async def test_a_hostile_frame_gets_a_protocol_error_and_the_server_keeps_serving(
    monkeypatch: pytest.MonkeyPatch, requests: list[MoveRequest],
    capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture, servers: None,
) -> None:
    """The reproduction: 200 KB of nested brackets printed a RecursionError traceback."""
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("AGENT_TOKEN", "agent-secret-0123456789")
    player = seat("remote:nester?port=0&timeout=20&token_env=AGENT_TOKEN")
    url = await player.start()
    headers = bearer("agent-secret-0123456789")
    nested = "[" * 100_000 + "]" * 100_000
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url, headers=headers) as ws:
            await ws.receive_json()
            move = asyncio.create_task(player.move(requests[0]))
            observation = await ws.receive_json()
            for frame in (nested, '{"type": "move", "moves": {"t": ' + nested + "}}",
                          '{"a": ' + "9" * 5000 + "}"):
                await ws.send_str(frame)
                error = await ws.receive_json()
                assert error["type"] == "error" and "not valid JSON" in error["message"]
            assert "recursion limit" in error["message"] or "number" in error["message"]
            await ws.send_json({"type": "move", "request_id": observation["request_id"],
                                "moves": {"t": "after the junk"}})
            assert await move == {"t": "after the junk"}
        # A frame over the size bound closes that connection only.
        async with session.ws_connect(url, headers=headers) as ws:
            await ws.receive_json()
            with contextlib.suppress(ConnectionError):  # the server may hang up mid-frame
                await ws.send_str("[" * (5 * 1024 * 1024))
            closing = await ws.receive()
            assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        async with session.ws_connect(url, headers=headers) as ws:
            await ws.receive_json()
            move = asyncio.create_task(player.move(requests[0]))
            observation = await ws.receive_json()
            await ws.send_json({"type": "move", "request_id": observation["request_id"],
                                "moves": {"t": "served"}})
            assert await move == {"t": "served"}
    out, err = capfd.readouterr()
    for shown in (out, err, caplog.text):
        assert "Traceback" not in shown and "RecursionError" not in shown
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[" * 100_000 + "]" * 100_000, "recursion limit"),
        ('{"type": "move", "request_id": "r", "moves": {"t": "\\ud800"}}', "hex escape"),
        ("1" * 5000, "number"),
        ("", "EOF"),
    ],
)
def test_unparsable_messages_are_one_protocol_error(text: str, problem: str) -> None:
    with pytest.raises(ProtocolError, match="not valid JSON") as info:
        parse_agent_message(text)
    assert problem in str(info.value) and len(str(info.value)) < 300
