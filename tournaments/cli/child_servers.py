"""Servers the commands start as child processes on a port (Streamlit for `arena dashboard`,
the play server for `arena play-server` and `arena dashboard --play`): the port is tried
first, so a busy one is one clear sentence, and a child is stopped with SIGTERM, then
killed if it lingers."""

from __future__ import annotations

import socket
import subprocess

from arena.errors import ArenaError

LOOPBACK = "127.0.0.1"
STOP_WAIT_S = 10.0
STOPPED = "dashboard stopped."


class ServerError(ArenaError):
    """A server cannot start (its program missing, its port busy)."""


def check_port(host: str, port: int) -> None:
    """Raise unless `host:port` can be bound now (Streamlit would fail later, less clearly)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise ServerError(
            f"Cannot listen on host '{host}': {error.strerror}. Use an address of this "
            f"machine, e.g. --host {LOOPBACK} (this machine only) or --host 0.0.0.0 (every "
            "interface)."
        ) from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            raise ServerError(
                f"Cannot listen on {host}:{port}: {error.strerror}. Pick another port with "
                f"--port (e.g. --port {port + 1})."
            ) from None


def stop_child(child: subprocess.Popen[bytes]) -> None:
    """Stop a child server with SIGTERM, which Streamlit obeys even when started with SIGINT
    ignored (a script's background job inherits that), then kill it if it lingers."""
    child.terminate()
    try:
        child.wait(timeout=STOP_WAIT_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
