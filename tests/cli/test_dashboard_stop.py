"""`arena dashboard` stops on SIGTERM, and takes its Streamlit server with it, also when it
was started with SIGINT ignored, as a shell script's background job (`arena dashboard &`)
is: before the fix `kill PID` did nothing and only killing the Streamlit child stopped it
(issue 18 item 10, issue 24 item 9). Real processes, a real Streamlit server, real signals.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.storage import Store, sqlite_url
from arena.tournaments.cli.dashboard import STOPPED

ROOT = Path(__file__).resolve().parents[2]
STOP_BOUND_S = 20.0  # Streamlit stops in 2-4 s here; the bound only catches "never"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_serving(child: subprocess.Popen[str], port: int) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    child.kill()
    raise AssertionError(f"the dashboard never served: {child.communicate()}")


def children(pid: int) -> list[int]:
    done = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(found) for found in done.stdout.split()]


def alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "zombie" not in status


@pytest.mark.parametrize("sigint", ["ignored", "default"])
def test_sigterm_stops_the_dashboard_and_its_streamlit_server(
    tmp_path: Path, sigint: str
) -> None:
    db = sqlite_url(tmp_path / "arena.db")
    Store.open(db).close()
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def ignore_sigint() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    child = subprocess.Popen(
        [sys.executable, "-c", "from arena.cli import main; main()", "dashboard", "--db", db,
         "--port", str(port)],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=ignore_sigint if sigint == "ignored" else None,
    )
    streamlit: list[int] = []
    try:
        wait_until_serving(child, port)
        streamlit = children(child.pid)
        assert len(streamlit) == 1, streamlit
        child.send_signal(signal.SIGTERM)
        start = time.monotonic()
        out, err = child.communicate(timeout=STOP_BOUND_S)
        while alive(streamlit[0]) and time.monotonic() - start < STOP_BOUND_S:
            time.sleep(0.1)
        assert not alive(streamlit[0]), "the Streamlit server outlived the dashboard command"
        assert child.returncode == 130, (out, err)
        assert "Traceback" not in err and err.strip().splitlines()[-1] == STOPPED, err
    finally:
        for pid in [child.pid, *streamlit]:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        if child.poll() is None:
            child.wait(timeout=30)
