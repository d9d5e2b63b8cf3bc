"""A witness for the Ray driver: when the node agent of this machine (the raylet, with its
object store) dies, Ray's C++ core ends the driver process at once with exit status 1
(`_Exit`: no Python exception, no `finally`, no atexit), so `arena run` used to stop without
a word. A small process started beside the driver sees the driver's end; if the driver did
not say it finished and the raylet is gone, it prints one sentence (what happened, that the
run resumes) and writes the crash log the arena writes for internal errors.

Finished matches are stored as they finish and the run left `running` is marked
interrupted by the next process (`arena.storage.abandoned_runs`), so rerunning the same
command resumes it.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

DONE = b"done\n"
# How a driver's own log tells that its raylet (or the raylet's object store) is gone.
RAYLET_LOST = re.compile(
    r"raylet is unavailable|local raylet is dead|Raylet IPC connection failed|"
    r"connection to the plasma store is failed|Raylet .* has been unavailable",
    re.IGNORECASE,
)
LOG_TAIL = 40


class RayNodeLost(RuntimeError):
    """The local Ray node agent died and Ray ended the driver (written to the crash log)."""


def raylet_pid(ray: Any) -> int | None:
    """The pid of the raylet this driver started, if it started one (else None)."""
    with contextlib.suppress(Exception):
        node = ray._private.worker._global_node
        info = node.all_processes[ray._private.ray_constants.PROCESS_TYPE_RAYLET][0]
        return int(info.process.pid)
    return None


def driver_logs_dir(ray: Any) -> str | None:
    with contextlib.suppress(Exception):
        return str(ray._private.worker._global_node.get_logs_dir_path())
    return None


@contextlib.contextmanager
def witnessed(ray: Any) -> Iterator[None]:
    """Run the block with a witness process that reports a driver ended by Ray."""
    raylet = raylet_pid(ray)
    logs = driver_logs_dir(ray)
    command = [
        sys.executable, "-m", "arena.tournaments.running.executors.ray_watchdog", str(os.getpid()),
        str(raylet or 0), logs or "", *sys.argv[1:],
    ]
    witness: subprocess.Popen[bytes] | None = None
    with contextlib.suppress(OSError):
        witness = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    try:
        yield
    finally:
        if witness is not None and witness.stdin is not None:
            with contextlib.suppress(OSError):
                witness.stdin.write(DONE)
                witness.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                witness.wait(timeout=10)


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return "zombie" not in status


def _driver_log(logs: str, driver: int) -> str:
    if not logs:
        return ""
    texts = []
    for path in Path(logs).glob(f"python-core-driver-*_{driver}.log"):
        with contextlib.suppress(OSError):
            texts.append(path.read_text(errors="replace"))
    return "\n".join(texts)


def diagnose(driver: int, raylet: int, logs: str) -> str | None:
    """Why the driver ended, if Ray's raylet ended it; None when nothing says so (a kill
    -9 of the arena itself says nothing more than it does today)."""
    # The driver's log decides: a raylet that ends after its driver (kill -9 of the arena,
    # whose Ray processes then stop) must not be reported as the cause.
    log = _driver_log(logs, driver)
    if not RAYLET_LOST.search(log):
        return None
    state = "" if raylet <= 0 else (" (still running)" if _alive(raylet) else " (gone)")
    tail = "\n".join(log.splitlines()[-LOG_TAIL:])
    return (
        f"the Ray node agent (raylet{f' pid {raylet}' if raylet > 0 else ''}{state}) of "
        f"the driver process {driver} stopped serving it, and Ray ended the driver at once "
        f"(exit 1); the driver's last Ray log lines ({logs}):\n{tail}"
    )


def report(driver: int, raylet: int, logs: str, argv: list[str], err: IO[str]) -> bool:
    """Print the sentence and write the crash log if Ray's raylet ended the driver."""
    from arena.cli.console import write_crash_log

    why = diagnose(driver, raylet, logs)
    if why is None:
        return False
    path = write_crash_log(RayNodeLost(why), argv)
    where = f"details are in {path}" if path else "the details could not be logged"
    print(
        "error: Ray's node agent (raylet) on this machine died and Ray stopped `arena "
        f"{' '.join(argv)}` (exit 1); finished matches are stored, so run the same command "
        f"to resume (with --executor local if Ray cannot start again); {where}.",
        file=err, flush=True,
    )
    return True


def main(args: list[str]) -> None:
    """The witness: wait for the driver to close the pipe; report unless it said done."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    driver, raylet, logs, argv = int(args[0]), int(args[1]), args[2], args[3:]
    said = sys.stdin.buffer.read()
    if said.endswith(DONE):
        return
    report(driver, raylet, logs, argv, sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
