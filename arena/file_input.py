"""Reading a file a user names and may not have made: an imported config or result file, a
story corpus, a maps file.

Such a path may name anything: `/dev/zero` (endless), a FIFO (opening it waits for a
writer, and a blocked read ignores SIGTERM), a directory, or a file of gigabytes. So only a
regular file is read, without ever blocking on open, and only up to a size limit; and JSON
is parsed so that deep nesting is one sentence, not a `RecursionError`.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

__all__ = ["FileInputError", "loads_json", "open_regular_file", "read_regular_file"]

_KINDS = (
    (stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class FileInputError(ValueError):
    """Why a file cannot be read, as a phrase the caller puts into its own sentence
    (e.g. "is a named pipe (FIFO), not a regular file")."""


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular_file(path: Path, max_bytes: int) -> tuple[int, int]:
    """Open `path` for reading and return (file descriptor, size); `FileInputError` when it
    is no regular file or larger than `max_bytes`, `OSError` when it cannot be opened.
    O_NONBLOCK keeps a FIFO swapped in after any earlier check from blocking the open;
    the kind is checked on the opened descriptor, so no path trick gets around it."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileInputError(f"is {_kind(info.st_mode)}, not a regular file")
        if info.st_size > max_bytes:
            raise FileInputError(
                f"is {info.st_size:,} bytes, over the limit of {max_bytes:,} bytes"
            )
        os.set_blocking(fd, True)
        return fd, info.st_size
    except BaseException:
        os.close(fd)
        raise


def read_regular_file(path: Path, max_bytes: int) -> bytes:
    """The bytes of the regular file `path`, at most `max_bytes` of them (a file that grows
    while it is read is cut off at the limit and refused); errors as `open_regular_file`."""
    fd, _ = open_regular_file(path, max_bytes)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FileInputError(f"is over the limit of {max_bytes:,} bytes")
    return data


def loads_json(text: str | bytes) -> Any:
    """Parsed JSON; `json.JSONDecodeError` for bad syntax (with its line), `FileInputError`
    for nesting too deep to parse (the standard parser's recursion limit)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise FileInputError(
            "nests arrays or objects too deeply to be read (thousands of levels)"
        ) from None
