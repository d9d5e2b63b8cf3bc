"""`arena play-server`: loopback by default; another host needs a long token, which never
goes on the server's command line; bad options are one sentence and exit 2; people's
secrets outlive a restart (a returning person keeps their name) and `--invite` replaces
one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from arena.tournaments.play.cli import PlayOptions, server_command
from tests.browser.dashboard_server import ROOT, free_port


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", "play-server", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    ("args", "says"),
    [(["--host", "0.0.0.0"], "needs a token"),
     (["--host", "0.0.0.0", "--token", "short"], "at least 16"),
     (["--tournament", "no/such.toml"], "No tournament file at no/such.toml")],
)
def test_bad_options_are_one_sentence(args: list[str], says: str) -> None:
    done = arena(*args)
    assert done.returncode == 2
    assert says in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [(["--opponent", "human"], "cannot play the other seats"),
     (["--opponent", "remote:x?port=0"], "cannot play the other seats"),
     (["--opponent", "hf:*"], "only scripted may take its argument from the page"),
     (["--opponent", "nosuch"], "no player kind 'nosuch'"),
     (["--allowed-host", "evil.example:80"], "is not a host name"),
     (["--allowed-host", "a b"], "is not a host name"),
     (["--invite", "a b"], "is not allowed"),
     (["--people", "/proc/no/people.json"], "--people FILE"),
     (["--model", "human"], "cannot play the other seats"),
     (["--model", "scripted:*"], "not scripted:*"),
     (["--ladder", "a b"], "is not a tournament name"),
     (["--judge", "nosuch"], "--judge 'nosuch'"),
     (["--dashboard-url", "javascript:alert(1)"], "is not a dashboard address")],
)
def test_bad_play_options_are_one_sentence(tmp_path: Path, args: list[str], says: str) -> None:
    done = arena("--port", str(free_port()), "--db", f"sqlite:///{tmp_path / 'p.db'}", *args)
    assert done.returncode == 2, done.stderr
    assert says in done.stderr and "Traceback" not in done.stderr


def test_the_play_options_reach_the_server() -> None:
    options = PlayOptions(judge="ngram", opponents=["random", "scripted:*"], models=["random"],
                          max_starts=3, ladder="evening", dashboard_url=":8501")
    command = server_command("127.0.0.1", 8600, None, options)
    assert command[command.index("--opponent") + 1] == "random"
    assert "scripted:*" in command and command[command.index("--max-starts") + 1] == "3"
    assert command[command.index("--model") + 1] == "random"
    assert command[command.index("--ladder") + 1] == "evening"
    assert command[command.index("--dashboard-url") + 1] == ":8501"


def test_the_token_is_not_on_the_server_command_line() -> None:
    command = server_command("0.0.0.0", 8600, None, PlayOptions())
    assert "--token" not in command and command[1:3] == ["-m", "arena.tournaments.play"]
    assert command[command.index("--judge") + 1] == "bundled"  # stories a person can read


def page_when_up(child: subprocess.Popen[bytes], port: int, within_s: float) -> bytes:
    """The page at 127.0.0.1:`port` once the server answers (the child must stay alive)."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            page: bytes = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
            return page
        except OSError:
            assert time.monotonic() < deadline and child.poll() is None
            time.sleep(0.3)


def test_it_serves_the_page_on_loopback(tmp_path: Path) -> None:
    port = free_port()
    child = subprocess.Popen(
        [sys.executable, "-m", "arena", "play-server", "--port", str(port), "--db",
         f"sqlite:///{tmp_path / 'p.db'}"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        assert b"Xent Arena: play" in page_when_up(child, port, 60)
    finally:
        os.killpg(child.pid, signal.SIGTERM)
        child.wait(timeout=30)


def test_dashboard_play_needs_a_token_off_loopback() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arena", "dashboard", "--play", "--host", "0.0.0.0"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2 and "needs a token" in done.stderr


def test_dashboard_play_checks_the_play_options_before_it_starts() -> None:
    """The play server's own options pass through `arena dashboard --play`, checked first."""
    done = subprocess.run(
        [sys.executable, "-m", "arena", "dashboard", "--play", "--opponent", "human",
         "--port", str(free_port()), "--play-port", str(free_port())],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2 and "cannot play the other seats" in done.stderr
    assert "Traceback" not in done.stderr and "Dashboard:" not in done.stdout


def test_dashboard_play_serves_the_page_beside_the_dashboard_and_stops_it(
        tmp_path: Path) -> None:
    from arena.storage import Store

    db = f"sqlite:///{tmp_path / 'd.db'}"
    Store.open(db).close()
    port, play_port = free_port(), free_port()
    child = subprocess.Popen(
        [sys.executable, "-m", "arena", "dashboard", "--play", "--db", db, "--port", str(port),
         "--play-port", str(play_port), "--opponent", "random", "--model", "random",
         "--ladder", "evening", "--play-judge", "ngram",
         "--people", str(tmp_path / "people.json")],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        assert b"Xent Arena: play" in page_when_up(child, play_port, 90)
        import json

        options = json.loads(urllib.request.urlopen(
            f"http://127.0.0.1:{play_port}/api/options", timeout=10).read())
        # the play server's own options, passed through; the page links back to the dashboard
        assert [o["spec"] for o in options["opponents"]] == ["random"]
        assert (options["models"], options["ladder"], options["judge"]) == (
            ["random"], "evening", "ngram")
        assert options["dashboard"] == f":{port}"
    finally:
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=60)
    with pytest.raises(OSError):  # the play server stopped with the dashboard
        urllib.request.urlopen(f"http://127.0.0.1:{play_port}/", timeout=2)


def test_arena_run_warns_that_browser_entrants_will_forfeit(tmp_path: Path) -> None:
    file = tmp_path / "t.toml"
    file.write_text(
        'name = "h"\njudge = "ngram"\nmove_timeout = 1\nmove_retries = 0\n'
        '[[participants]]\nname = "ada"\nplayer = "human:web?name=ada"\n'
        '[[games]]\ngame = "single_text"\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "arena", "run", str(file), "--db", f"sqlite:///{tmp_path / 'r.db'}"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert "ada play(s) in the browser" in done.stderr
    assert "arena play-server --tournament" in done.stderr
    assert "done: 1 match(es) stored" in done.stdout  # forfeited on the timeout, stored


ALICE = """
name = "h"
mode = "eval"
judge = "ngram"
[[participants]]
name = "alice"
player = "human:web?name=alice"
[[participants]]
name = "teller"
player = "scripted:a tale"
npc_only = true
[[games]]
game = "single_text"
npc = "teller"
"""


def test_secrets_outlive_a_restart_and_invite_replaces_one(tmp_path: Path) -> None:
    import asyncio

    import aiohttp

    from tests.browser.play_server import db_url, invites, serve_play, server_output

    async def hello(base: str, person: str, secret: str = "") -> dict[str, str]:
        async with aiohttp.ClientSession() as session, session.ws_connect(base + "/ws") as ws:
            await ws.send_json({"person": person, "secret": secret})
            frame: dict[str, str] = await ws.receive_json(timeout=30)
            return frame

    tournament = tmp_path / "h.toml"
    tournament.write_text(ALICE)
    db = db_url(tmp_path)
    with serve_play(db, ["--tournament", str(tournament)]) as base:
        first = invites(db, base)["alice"].split("secret=", 1)[1]
        dora = asyncio.run(hello(base, "dora"))["secret"]  # a newcomer takes a name
    with serve_play(db, ["--tournament", str(tournament)]) as base:
        assert "alice joins with the invite link made earlier" in server_output(db, base)
        assert "alice" not in invites(db, base)  # not shown again
        assert asyncio.run(hello(base, "alice", first))["type"] == "hello"
        assert asyncio.run(hello(base, "dora", dora)) == {"type": "hello", "person": "dora"}
        assert "taken" in asyncio.run(hello(base, "dora"))["message"]
    with serve_play(db, ["--invite", "alice"]) as base:
        second = invites(db, base)["alice"].split("secret=", 1)[1]
        assert second != first
        assert "not the secret" in asyncio.run(hello(base, "alice", first))["message"]
        assert asyncio.run(hello(base, "alice", second))["type"] == "hello"
