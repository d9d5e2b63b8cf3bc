"""A real `arena dashboard` on loopback and a real headless Chromium (Debian's
`chromium-headless-shell`, driven by Playwright through its executable path: no browser
download), for the browser tests."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "build" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
_CANDIDATES = (
    "/usr/bin/chromium-headless-shell",
    "/usr/lib/chromium/chromium-headless-shell",
    "/usr/lib/chromium-headless-shell/chromium-headless-shell",
)
START_LIMIT_S = 90.0


def chromium_path() -> str | None:
    found = shutil.which("chromium-headless-shell")
    if found:
        return found
    return next((c for c in _CANDIDATES if Path(c).is_file()), None)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False


@contextlib.contextmanager
def serve_dashboard(db: str | None, environ: Mapping[str, str] | None = None) -> Iterator[str]:
    """`arena dashboard --db DB` (no --db when `db` is None: the default database) on a free
    loopback port, in `environ` (default: this process's); yields its base URL; stops it."""
    port = free_port()
    env = {**(os.environ if environ is None else environ), "PYTHONPATH": str(ROOT)}
    where = [] if db is None else ["--db", db]
    child = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "dashboard", *where, "--port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_LIMIT_S
        while not _healthy(base):
            if child.poll() is not None:
                raise AssertionError(f"arena dashboard exited: {child.stdout.read() if child.stdout else ''}")
            if time.monotonic() > deadline:
                raise AssertionError("arena dashboard did not answer in time")
            time.sleep(0.2)
        yield base
    finally:
        child.send_signal(signal.SIGINT)
        try:
            child.wait(timeout=20)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
