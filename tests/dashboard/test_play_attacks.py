"""The play server attacked as a hostile visitor would (issue 29, items 2 to 5 and 12): a
real `python -m arena.tournaments.play` on loopback, real HTTP and websocket requests with
crafted Host, Origin and bodies. Each test is the reproduction of one attack that worked
before the fix (the start requests still carry the old API's `person` field, which the
server now ignores: the person is the one whose secret came in the headers).

- 2: a browser picks the other seats' players from the organiser's list only (no
  `litellm` with the server's keys, no `remote` port, no `human` console, no model path).
- 3: a request naming another host (DNS rebinding) is refused on every endpoint and the
  socket, even with a matching Origin.
- 4: a name alone never receives a person's move requests; the real person is never
  locked out; secrets are kept as digests only.
- 5: games are registered names or pasted text; no server path is read, and the answer is
  the same whether the path exists or not.
- 12: starts per person per minute and open sockets are capped, with a clear message.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest
from aiohttp import web

from tests.browser.play_server import db_url, invites, serve_play

ENTRANT = """
name = "humans"
mode = "eval"
judge = "ngram"
maps = 1
move_timeout = 300
move_retries = 0

[[participants]]
name = "alice"
player = "human:web?name=alice"

[[participants]]
name = "teller"
player = "scripted:a friendly tale"
npc_only = true

[[participants]]
name = "guesser"
player = "random?words=3"
npc_only = true

[[games]]
game = "describe_to_partner"
npc = {alice = "teller", bob = "guesser"}
"""
MAX_STARTS = 2
MAX_SOCKETS = 40  # a quarter from one address: 10
WAIT_S = 60


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("play-attacks")


@pytest.fixture(scope="module")
def db(folder: Path) -> str:
    return db_url(folder)


@pytest.fixture(scope="module")
def server(folder: Path, db: str) -> Iterator[str]:
    tournament = folder / "humans.toml"
    tournament.write_text(ENTRANT)
    with serve_play(db, ["--tournament", str(tournament), "--max-starts", str(MAX_STARTS),
                         "--max-sockets", str(MAX_SOCKETS)]) as base:
        yield base


def port_of(base: str) -> int:
    return int(urlsplit(base).port or 0)


def raw(base: str, method: str, path: str, host: str | None, headers: dict[str, str] | None
        = None, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    """One HTTP request with exactly the Host header given (None: no Host at all)."""
    conn = http.client.HTTPConnection("127.0.0.1", port_of(base), timeout=30)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        if host is not None:
            conn.putheader("Host", host)
        data = json.dumps(body).encode() if body is not None else b""
        for key, value in {**(headers or {}),
                           **({"Content-Type": "application/json"} if body else {})}.items():
            conn.putheader(key, value)
        conn.putheader("Content-Length", str(len(data)))
        conn.endheaders(data)
        reply = conn.getresponse()
        text = reply.read().decode("utf-8", "replace")
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = {"text": text}
        return reply.status, parsed if isinstance(parsed, dict) else {"value": parsed}
    finally:
        conn.close()


def local(base: str) -> str:
    return f"127.0.0.1:{port_of(base)}"


async def join(base: str, session: aiohttp.ClientSession, person: str, secret: str = ""
               ) -> tuple[aiohttp.ClientWebSocketResponse, dict[str, Any]]:
    ws = await session.ws_connect(base + "/ws")
    await ws.send_json({"person": person, "secret": secret})
    return ws, await ws.receive_json(timeout=WAIT_S)


def person_headers(person: str, secret: str) -> dict[str, str]:
    return {"X-Play-Person": person, "X-Play-Secret": secret}


_TAKEN: dict[tuple[str, str], str] = {}


def newcomer(base: str, person: str) -> str:
    """`person` takes a free name (once per server); their secret."""
    if (base, person) in _TAKEN:
        return _TAKEN[base, person]

    async def go() -> str:
        async with aiohttp.ClientSession() as session:
            ws, hello = await join(base, session, person)
            await ws.close()
            assert hello["type"] == "hello", hello
            return str(hello.get("secret", ""))  # (a server without secrets said none)
    _TAKEN[base, person] = asyncio.run(go())
    return _TAKEN[base, person]


# ---------------------------------------------------------------------------------- item 3

REBOUND = ["attacker.example", "localhost.attacker.example", "127.0.0.1.nip.io",
           "localhost.", "2130706433", "0x7f.1", "[::1].evil", "evil@127.0.0.1"]


@pytest.mark.parametrize("name", REBOUND)
@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/"), ("GET", "/play.js"), ("GET", "/api/options"), ("POST", "/api/check"),
    ("POST", "/api/start"), ("POST", "/api/count"), ("GET", "/ws"),
])
def test_a_rebound_host_is_refused_on_every_endpoint(
        server: str, name: str, method: str, path: str) -> None:
    host = f"{name}:{port_of(server)}"
    status, reply = raw(server, method, path, host, {"Origin": f"http://{host}"},
                        {"game": "single_text"} if method == "POST" else None)
    assert status == 403, (status, reply)
    assert "answers to" in reply["error"] and "--allowed-host" in reply["error"]


def test_a_request_without_a_host_is_refused(server: str) -> None:
    status, reply = raw(server, "GET", "/api/options", None)
    assert status in (400, 403) and "games" not in reply  # aiohttp's own 400 for HTTP/1.1


def test_the_websocket_refuses_a_rebound_host_before_its_first_frame(server: str) -> None:
    host = f"attacker.example:{port_of(server)}"

    async def go() -> int:
        async with aiohttp.ClientSession() as session:
            try:
                ws = await session.ws_connect(
                    server + "/ws", headers={"Host": host, "Origin": f"http://{host}"})
            except aiohttp.WSServerHandshakeError as refused:
                return refused.status
            await ws.send_json({"person": "rebound"})
            frame = await ws.receive_json(timeout=10)
            await ws.close()
            raise AssertionError(f"the socket was accepted: {frame}")

    assert asyncio.run(go()) == 403


def test_an_absolute_request_target_naming_another_host_is_refused(server: str) -> None:
    import socket

    with socket.create_connection(("127.0.0.1", port_of(server)), timeout=30) as conn:
        conn.sendall(f"GET http://attacker.example/api/options HTTP/1.1\r\nHost: "
                     f"{local(server)}\r\nConnection: close\r\n\r\n".encode())
        reply = b""
        while chunk := conn.recv(65536):
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 403") and b"games" not in reply


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "LOCALHOST"])
def test_the_page_answers_to_its_own_names(server: str, host: str) -> None:
    status, reply = raw(server, "GET", "/api/options", f"{host}:{port_of(server)}")
    assert status == 200 and "single_text" in reply["games"]


def test_a_page_from_another_origin_is_refused_with_the_right_host(server: str) -> None:
    status, reply = raw(server, "POST", "/api/check", local(server),
                        {"Origin": "http://elsewhere.example"}, {"game": "single_text"})
    assert status == 403 and "another site" in reply["error"]


# ---------------------------------------------------------------------------------- item 2


class Listener:
    """A loopback HTTP server standing in for an attacker's LLM endpoint: it records every
    request (and the Authorization header it carried)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def handle(self, request: web.Request) -> web.Response:
        self.seen.append(f"{request.path} {request.headers.get('Authorization', '')}")
        return web.json_response({"error": "no"}, status=500)


HOSTILE_OTHERS = [
    "litellm:openai/gpt-4o-mini?api_base=http://127.0.0.1:{port}/v1&api_key_env=HOME",
    "remote:x?port=0",
    "remote:x?host=0.0.0.0&port=0",
    "human",
    "human:web?name=alice",
    "hf:/etc",
    "hf:bundled?device=cuda:7",
    "hf:../../../../tmp",
    "random?words=100000000",
    "scripted:hello?per_round=1",
    "search?budget=999999999",
    " litellm:x ",
]


@pytest.mark.parametrize("spec", HOSTILE_OTHERS)
def test_the_other_seats_take_only_the_organisers_list(server: str, spec: str) -> None:
    secret = newcomer(server, "mallory")

    async def go() -> tuple[int, dict[str, Any], list[str]]:
        listener = Listener()
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", listener.handle)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        try:
            body_sent = {"person": "mallory", "game": "describe_to_partner", "role": "bob",
                         "others": {"alice": spec.format(port=port)}}
            async with aiohttp.ClientSession() as session, session.post(
                server + "/api/start", json=body_sent,
                headers=person_headers("mallory", secret),
            ) as reply:
                status, body = reply.status, await reply.json()
            await asyncio.sleep(1.0)  # time enough for a started match to call out
            return status, body, listener.seen
        finally:
            await runner.cleanup()

    status, body, seen = asyncio.run(go())
    assert status == 400 and not body["ok"], body
    offered = "pick one of the players this server offers: random, search, scripted:*, hf:bundled"
    assert offered in body["error"] or (  # a script with options: the script's own rule
        spec.startswith("scripted:") and "without '?'" in body["error"]), body["error"]
    assert seen == []


def test_the_page_offers_the_organisers_list_and_a_script_is_allowed(server: str) -> None:
    status, options = raw(server, "GET", "/api/options", local(server))
    assert status == 200
    assert [o["spec"] for o in options["opponents"]] == [
        "random", "search", "scripted:*", "hf:bundled"]
    assert "players" not in options  # the old list of every installed kind
    secret = newcomer(server, "olga")
    status, started = raw(server, "POST", "/api/start", local(server),
                          person_headers("olga", secret),
                          {"person": "olga", "game": "describe_to_partner", "role": "bob",
                           "others": {"alice": "scripted:a tale|of rivers"}})
    assert status == 200 and started["ok"], started


# ---------------------------------------------------------------------------------- item 5

def _game_paths(root: Path) -> list[str]:
    return [
        str(root / "arena" / "games" / "single_text.xgl"),  # exists: its code came back
        "/etc/passwd", "/etc/hostname", "~/x.xgl", "~", "../../etc/hosts",
        "arena/games/single_text.xgl", "./arena/games/single_text.xgl",
        "/nonexistent/a.xgl", "/tmp", "file:///etc/passwd", "single_text/../single_text",
    ]


def test_games_are_names_or_pasted_text_never_a_server_path(server: str) -> None:
    from tests.browser.dashboard_server import ROOT

    secret = newcomer(server, "pat")
    errors = {}
    existing = str(ROOT / "arena" / "games" / "single_text.xgl")
    twin = existing.replace("/arena/", "/no-such-folder/")  # the same path, but absent
    for path in [*_game_paths(ROOT), twin]:
        for endpoint, body in (("/api/check", {"game": path}),
                               ("/api/start", {"person": "pat", "game": path,
                                               "role": "black", "others": {}})):
            status, reply = raw(server, "POST", endpoint, local(server),
                                person_headers("pat", secret), body)
            assert status == 400 and not reply["ok"], (endpoint, path, reply)
            assert "code" not in reply
            text = reply["error"]
            assert text.startswith("Unknown game '") and "paste a game's text" in text, text
            assert "No game file" not in text and "not a game file" not in text
            errors[(endpoint, path)] = text
    for endpoint in ("/api/check", "/api/start"):  # exists or not: the same answer
        assert errors[endpoint, existing] == errors[endpoint, twin].replace(
            "no-such-folder", "arena")


def test_a_registered_name_and_pasted_text_still_load(server: str) -> None:
    secret = newcomer(server, "quinn")
    headers = person_headers("quinn", secret)
    status, named = raw(server, "POST", "/api/check", local(server), headers,
                        {"game": "single_text"})
    assert status == 200 and named["roles"] == ["black"]
    status, pasted = raw(server, "POST", "/api/check", local(server), headers,
                         {"source": "elicit(t, 5)\nreward(xent(t))\n"})
    assert status == 200 and pasted["name"] == "pasted"


# ---------------------------------------------------------------------------------- item 4

def test_a_name_alone_never_gets_alices_moves_and_alice_is_never_locked_out(
        server: str, db: str, folder: Path) -> None:
    async def go() -> dict[str, Any]:
        async with aiohttp.ClientSession() as session:
            # an impostor comes first, by name only, then with made-up secrets
            for guess in ("", "x" * 32, "y" * 5000):
                ws, frame = await join(server, session, "alice", guess)
                assert frame["type"] == "error", frame  # was: hello, then alice's request
                extra = await ws.receive(timeout=5)  # nothing else: the socket closes
                assert extra.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED,
                                      aiohttp.WSMsgType.CLOSING), extra
                await ws.close()
            secret = invites(db, server)["alice"].split("secret=", 1)[1]
            near, frame = await join(server, session, "alice", secret[:-1] + (
                "A" if secret[-1] != "A" else "B"))
            assert frame["type"] == "error" and "not the secret" in frame["message"]
            await near.close()
            # the real alice gets in with her secret and sees her queued move
            real, hello = await join(server, session, "alice", secret)
            assert hello == {"type": "hello", "person": "alice"}
            frames = [await real.receive_json(timeout=WAIT_S) for _ in range(2)]
            request = next(f for f in frames if f["type"] == "request")
            # while she plays, the impostor is still refused, and she keeps her seat
            again, refused = await join(server, session, "alice")
            assert refused["type"] == "error" and "taken" in refused["message"]
            await again.close()
            status, reply = raw(server, "POST", "/api/start", local(server),
                                {"X-Play-Person": "alice"},
                                {"person": "alice", "game": "single_text", "role": "black",
                                 "others": {}})
            assert status == 403 and "secret" in reply["error"]
            assert not real.closed
            await real.send_json({"type": "move", "id": request["id"],
                                  "moves": dict.fromkeys(request["request"]["registers"],
                                                         "rivers and tales")})
            await real.close()
            return {**request, "secret": secret}

    request = asyncio.run(go())
    secret = request["secret"]
    assert request["request"]["role"] in ("alice", "bob")
    people = folder / "people.json"
    assert secret not in people.read_text()  # a digest only, readable by the owner only
    assert stat.S_IMODE(people.stat().st_mode) == 0o600
    assert secret.encode() not in Path(db.removeprefix("sqlite:///")).read_bytes()


def test_a_newcomer_keeps_a_name_and_a_second_tab_takes_over(server: str) -> None:
    async def go() -> None:
        async with aiohttp.ClientSession() as session:
            first, hello = await join(server, session, "bea")
            assert hello["type"] == "hello" and len(hello["secret"]) >= 32
            # someone else asks for "bea": refused; bea's tab is untouched
            other, refused = await join(server, session, "bea")
            assert refused["type"] == "error" and "taken" in refused["message"]
            await other.close()
            assert not first.closed
            # bea herself, in a second tab, with her secret: the newer tab plays
            second, again = await join(server, session, "bea", hello["secret"])
            assert again == {"type": "hello", "person": "bea"}
            told = await first.receive_json(timeout=10)
            while told["type"] != "error":  # its queue came first
                told = await first.receive_json(timeout=10)
            assert "another tab" in told["message"]
            await second.close()

    asyncio.run(go())


# --------------------------------------------------------------------------------- item 12

def test_starts_per_person_are_capped_with_a_clear_message(server: str) -> None:
    secret = newcomer(server, "rapid")
    replies = [raw(server, "POST", "/api/start", local(server),
                   person_headers("rapid", secret),
                   {"person": "rapid", "game": "single_text", "role": "black",
                    "others": {}})
               for _ in range(MAX_STARTS + 3)]
    assert [status for status, _ in replies[:MAX_STARTS]] == [200] * MAX_STARTS
    status, reply = replies[MAX_STARTS]
    assert status == 429 and f"You started {MAX_STARTS} matches in the last minute" in (
        reply["error"]) and "wait" in reply["error"]
    assert all(status == 429 for status, _ in replies[MAX_STARTS:])


def test_open_sockets_are_capped_with_a_clear_message(server: str) -> None:
    per_address = MAX_SOCKETS // 4

    async def go() -> dict[str, Any]:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
            held = [await session.ws_connect(server + "/ws") for _ in range(per_address)]
            try:
                extra = await session.ws_connect(server + "/ws")
                frame: dict[str, Any] = await extra.receive_json(timeout=10)
                await extra.close()
                return frame
            finally:
                for ws in held:
                    await ws.close()

    frame = asyncio.run(go())
    assert frame["type"] == "error" and "pages are open from your address" in frame["message"]


def test_a_socket_that_never_says_who_it_is_is_closed(server: str) -> None:
    async def go() -> dict[str, Any]:
        async with aiohttp.ClientSession() as session:
            ws = await session.ws_connect(server + "/ws")
            frame: dict[str, Any] = await ws.receive_json(timeout=20)
            await ws.close()
            return frame

    frame = asyncio.run(go())
    assert frame["type"] == "error" and "Say who you are within" in frame["message"]


# ------------------------------------------------------------------- hostile bodies, frames

def test_deeply_nested_json_is_one_sentence_over_http_and_the_socket(server: str) -> None:
    secret = newcomer(server, "pat")  # (each new name spends this address's quota)
    conn = http.client.HTTPConnection("127.0.0.1", port_of(server), timeout=30)
    try:
        conn.request("POST", "/api/check", body="[" * 100_000, headers={
            "Content-Type": "application/json", **person_headers("pat", secret)})
        reply = conn.getresponse()
        assert reply.status == 400 and "Send a JSON object" in reply.read().decode()
    finally:
        conn.close()

    async def go() -> list[str]:
        said = []
        async with aiohttp.ClientSession() as session:
            ws = await session.ws_connect(server + "/ws")  # as the first frame
            await ws.send_str("[" * 100_000)
            said.append((await ws.receive_json(timeout=10))["message"])
            await ws.close()
            ws, _ = await join(server, session, "pat", secret)  # as a move
            await ws.send_str("[" * 100_000)
            while (frame := await ws.receive_json(timeout=10))["type"] != "error":
                pass
            said.append(frame["message"])
            assert not ws.closed  # the person plays on
            await ws.close()
        return said

    assert asyncio.run(go()) == ["Send JSON frames.", "Send {type: move, id, moves}."]


def test_a_huge_role_is_not_echoed_whole(server: str) -> None:
    secret = newcomer(server, "pat")
    status, reply = raw(server, "POST", "/api/start", local(server),
                        person_headers("pat", secret),
                        {"game": "single_text", "role": "x" * 100_000, "others": {}})
    assert status == 400 and "does not play in this game" in reply["error"]
    assert len(reply["error"]) < 300


def test_new_names_from_one_address_are_capped(server: str) -> None:
    """Last in the file: it spends this address's new names for the minute."""
    async def go() -> dict[str, Any]:
        async with aiohttp.ClientSession() as session:
            for number in range(11):
                ws, frame = await join(server, session, f"flood{number}")
                await ws.close()
                if frame["type"] == "error":
                    return frame
        raise AssertionError("11 new names in a minute were all taken")

    frame = asyncio.run(go())
    assert "new names were taken from your address in the last minute" in frame["message"]
