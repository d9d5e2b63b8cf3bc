"""How an `arena` console program ends, whatever happened.

* A usage error (unknown command or option, missing or malformed value): typer's own
  message, exit 2.
* A user error (`ArenaError`): ``error: <one sentence>`` (plus the listing, for game code),
  exit 2.
* Ctrl-C or SIGTERM: one line, exit 130.
* Anything else is a bug: one line naming the log file that holds the traceback, exit 1
  (``--verbose`` prints the traceback too).

`ArenaGroup` puts this around the `arena` app itself, so that typer's test runner sees what
a terminal sees; `run_app` does the same for the modules' own ``python -m`` entry points.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from platformdirs import user_log_dir
from typer.core import TyperGroup

from arena.errors import ArenaError
from arena.interrupts import sigterm_as_interrupt
from arena.listing import printable, without_controls

USAGE_ERROR = USER_ERROR = 2
INTERNAL_ERROR = 1
INTERRUPTED = 130
LOG_DIR_ENV = "XENT_ARENA_LOG_DIR"
KEEP_CRASH_LOGS = 20
DEFAULT_INTERRUPTED = "aborted"

_verbose = False


def set_verbose(verbose: bool) -> None:
    """`--verbose`: internal errors also print their traceback."""
    global _verbose
    _verbose = verbose


def crash_log_dir() -> Path:
    """Where tracebacks of internal errors go: $XENT_ARENA_LOG_DIR, else the user log dir."""
    from arena.storage.engine import APP_NAME  # imports SQLAlchemy: only after a crash

    return Path(os.environ.get(LOG_DIR_ENV) or user_log_dir(APP_NAME))


def write_crash_log(error: BaseException, argv: Sequence[str]) -> Path | None:
    """Write the traceback of `error` to a new file in `crash_log_dir()` and return its path
    (None if it cannot be written). Only the newest `KEEP_CRASH_LOGS` files are kept."""
    directory = crash_log_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = directory / f"crash-{stamp}-{os.getpid()}.log"
    text = "".join(traceback.format_exception(error))
    try:
        directory.mkdir(parents=True, exist_ok=True)
        path.write_text(f"arena {' '.join(argv)}\n\n{text}", encoding="utf-8")
        old = sorted(directory.glob("crash-*.log"), key=lambda p: p.stat().st_mtime)
        for stale in old[:-KEEP_CRASH_LOGS]:
            stale.unlink(missing_ok=True)
    except OSError:
        return None
    return path


def _user_errors(error: BaseException) -> list[ArenaError] | None:
    """The ArenaErrors `error` consists of (an exception group of only ArenaErrors counts),
    else None."""
    if isinstance(error, ArenaError):
        return [error]
    if isinstance(error, BaseExceptionGroup):
        found: list[ArenaError] = []
        for inner in error.exceptions:
            errors = _user_errors(inner)
            if errors is None:
                return None
            found += errors
        return found
    return None


def _from_interrupt(error: BaseException | None) -> bool:
    """Whether `error` was raised because of Ctrl-C, and nothing said so yet (a command
    that reports the interruption itself raises its exit `from None`)."""
    seen = 0
    while error is not None and seen < 10:
        if isinstance(error, KeyboardInterrupt):
            return True
        if error.__cause__ is not None:
            error = error.__cause__
        else:
            error = None if error.__suppress_context__ else error.__context__
        seen += 1
    return False


def report_internal_error(error: BaseException) -> None:
    """One line for the user; the traceback goes to a log file (and to stderr if verbose)."""
    if _verbose:
        traceback.print_exception(error, file=sys.stderr)
    path = write_crash_log(error, sys.argv[1:])
    where = f"the traceback is in {path}" if path else "the traceback could not be logged"
    summary = printable(f"{type(error).__name__}: {error}")[:300]
    typer.echo(
        f"internal error ({summary}): this is a bug in the arena, not in your input; "
        f"{where} — please report it.",
        err=True,
    )


@contextmanager
def console_errors(interrupted: str = DEFAULT_INTERRUPTED) -> Iterator[None]:
    """Turn whatever escapes a command into a message and an exit status (see module doc).
    SIGTERM counts as Ctrl-C (`arena.interrupts`): a stopped command cleans up the same way."""
    try:
        with sigterm_as_interrupt():
            yield
    except SystemExit as done:
        # typer turns Ctrl-C into exit 130 without a word; say what it means here.
        if done.code == INTERRUPTED and _from_interrupt(done):
            typer.echo(interrupted, err=True)
        raise
    except KeyboardInterrupt:
        typer.echo(interrupted, err=True)
        sys.exit(INTERRUPTED)
    except BaseException as error:
        if not isinstance(error, Exception | BaseExceptionGroup):
            raise
        errors = _user_errors(error)
        if errors is None:
            report_internal_error(error)
            sys.exit(INTERNAL_ERROR)
        for user_error in errors:
            typer.echo(f"error: {without_controls(str(user_error))}", err=True)
        sys.exit(USER_ERROR)


class ArenaGroup(TyperGroup):
    """The `arena` command group: every run ends as `console_errors` says."""

    interrupted_message = DEFAULT_INTERRUPTED

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        with console_errors(self.interrupted_message):
            return super().main(
                args, prog_name, complete_var, standalone_mode, windows_expand_args, **extra
            )


def run_app(
    app: typer.Typer, argv: list[str] | None = None, *, interrupted: str = DEFAULT_INTERRUPTED
) -> None:
    """Run a typer app as a console program (see the module doc for how it ends); returns
    on success, so that a caller can go on."""
    command = typer.main.get_command(app)
    try:
        if isinstance(command, ArenaGroup):
            command.interrupted_message = interrupted
            command.main(args=argv)
        else:
            with console_errors(interrupted):
                command.main(args=argv)
    except SystemExit as done:
        if done.code not in (0, None):
            raise

