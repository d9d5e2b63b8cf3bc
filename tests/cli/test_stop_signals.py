"""SIGTERM stops every long-running command, also one started with SIGINT ignored (a shell
script's `cmd &`), where forwarding SIGTERM to the SIGINT handler did nothing (issue 24 item
9). `arena run` and `arena dashboard` are checked end to end in
tests/tournaments/test_stopping.py and tests/cli/test_dashboard_stop.py; here the helper
they share, the scheduler, and a guard that every command goes through the helper."""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.storage import Store, sqlite_url

ROOT = Path(__file__).resolve().parents[2]
BOUND_S = 30.0

# A coroutine that would sleep a minute, run with arena.interrupts.run_stoppable; its
# cleanup announces itself, as a run marking itself interrupted does.
SLEEPER = """
import asyncio, sys
from arena.interrupts import run_stoppable

async def main() -> None:
    print("started", flush=True)
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        print("cancelled, cleaning up", flush=True)
        raise

try:
    run_stoppable(main())
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
    sys.exit(130)
"""


def ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def start(command: list[str], *, sigint_ignored: bool) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, preexec_fn=ignore_sigint if sigint_ignored else None,
    )


@pytest.mark.parametrize("sigint_ignored", [True, False], ids=["sigint-ignored", "sigint-default"])
def test_sigterm_cancels_the_main_task_then_interrupts(sigint_ignored: bool) -> None:
    child = start([sys.executable, "-c", SLEEPER], sigint_ignored=sigint_ignored)
    assert child.stdout is not None
    assert child.stdout.readline() == "started\n"
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=BOUND_S)
    assert child.returncode == 130, (out, err)
    assert out.splitlines() == ["cancelled, cleaning up", "KeyboardInterrupt"], (out, err)


def test_an_ignored_sigint_stays_ignored_and_a_default_one_interrupts() -> None:
    # The shell ignores SIGINT for a script's background jobs so that Ctrl-C in the
    # script's terminal does not reach them; the arena keeps that, and stops on SIGTERM.
    ignored = start([sys.executable, "-c", SLEEPER], sigint_ignored=True)
    default = start([sys.executable, "-c", SLEEPER], sigint_ignored=False)
    try:
        for child in (ignored, default):
            assert child.stdout is not None and child.stdout.readline() == "started\n"
            child.send_signal(signal.SIGINT)
        out, _ = default.communicate(timeout=BOUND_S)
        assert out.splitlines() == ["cancelled, cleaning up", "KeyboardInterrupt"]
        time.sleep(1.0)
        assert ignored.poll() is None, "an ignored SIGINT stopped the command"
    finally:
        for child in (ignored, default):
            if child.poll() is None:
                child.kill()
            child.communicate(timeout=BOUND_S)


def test_the_scheduler_stops_on_sigterm_with_sigint_ignored(tmp_path: Path) -> None:
    db = sqlite_url(tmp_path / "arena.db")
    Store.open(db).close()
    child = start(
        [sys.executable, "-c", "from arena.cli import main; main()", "scheduler", "--db", db,
         "--sync-every", "0.2"],
        sigint_ignored=True,
    )
    assert child.stderr is not None
    started = child.stderr.readline()
    assert "started" in started, started
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=BOUND_S)
    assert child.returncode == 0, (out, err)
    assert "Traceback" not in err and "stopped" in err, err


# The modules of the long-running commands (run, demo, play, games, generate, scope grow,
# transfer, schedule run-now). `arena scheduler` handles SIGINT and SIGTERM itself
# (arena.tournaments.services.recurring.service) and is checked above.
COMMAND_MODULES = [
    *sorted((ROOT / "arena" / "cli" / "commands").glob("*.py")),
    ROOT / "tournaments" / "cli" / "run.py",
    ROOT / "tournaments" / "cli" / "demo.py",
    ROOT / "tournaments" / "services" / "recurring" / "cli.py",
]
SELF_HANDLED = {("tournaments/services/recurring/cli.py", "scheduler_command")}


def asyncio_runs(path: Path) -> list[str]:
    """Functions in `path` that call asyncio.run directly."""
    found = []
    for function in ast.walk(ast.parse(path.read_text())):
        if not isinstance(function, ast.FunctionDef):
            continue
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "run"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "asyncio"
            ):
                found.append(function.name)
    return found


def test_long_running_commands_run_their_coroutines_stoppably() -> None:
    offenders = [
        (str(path.relative_to(ROOT)), name)
        for path in COMMAND_MODULES
        for name in asyncio_runs(path)
        if (str(path.relative_to(ROOT)), name) not in SELF_HANDLED
    ]
    assert offenders == [], "use arena.interrupts.run_stoppable instead of asyncio.run"
    assert asyncio_runs(ROOT / "tournaments" / "services" / "recurring" / "cli.py") == ["scheduler_command"]
