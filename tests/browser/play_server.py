"""A real play server (`python -m arena.tournaments.play`, what `arena play-server` starts) on
loopback, for the play-page tests (browser and attacks)."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from tests.browser.dashboard_server import ROOT, free_port

START_LIMIT_S = 90.0
_INVITE = re.compile(r"invite for (\S+), .*?: (http://\S+)")


def _log(db: str, port: int) -> Path:
    return Path(db.removeprefix("sqlite:///")).with_suffix(f".{port}.log")


@contextlib.contextmanager
def serve_play(db: str, extra: Sequence[str] = (), token: str | None = None,
               models: Sequence[str] = ("random",)) -> Iterator[str]:
    """The play server over `db` (judge ngram; its people file beside the database; the
    ladder's `models`, by default the quick random one) on a free port; yields its base
    URL."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if token:
        env["XENT_ARENA_PLAY_TOKEN"] = token
    log = _log(db, port)
    people = Path(db.removeprefix("sqlite:///")).with_name("people.json")
    with log.open("w") as out:
        child = subprocess.Popen(
            [sys.executable, "-m", "arena.tournaments.play", "--port", str(port), "--db", db,
             "--judge", "ngram", "--people", str(people),
             *[part for model in models for part in ("--model", model)], *extra],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, text=True,
        )
    try:
        deadline = time.monotonic() + START_LIMIT_S
        while "play server:" not in log.read_text():
            if child.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"play server did not start: {log.read_text()}")
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        child.terminate()
        try:
            child.wait(timeout=20)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def server_output(db: str, base: str) -> str:
    """What the server at `base` printed so far (its ready line and invite links)."""
    return _log(db, int(base.rsplit(":", 1)[1])).read_text()


def invites(db: str, base: str) -> dict[str, str]:
    """person -> the invite link the server printed for them at start."""
    return dict(_INVITE.findall(server_output(db, base)))


def db_url(folder: Path) -> str:
    return f"sqlite:///{folder / 'play.db'}"
