"""Reading a game file from disk. Only XGL text is read as a game: a path to anything else
(a password file, a binary, a Python script) is refused by its name and bytes before a
single line of it could reach an error message or a terminal."""

from __future__ import annotations

import hashlib
from pathlib import Path

from arena.errors import ConfigError

GAME_SUFFIXES = (".xgl", ".xent")
MAX_GAME_FILE_BYTES = 16 * 1024 * 1024  # far above any real game; reading stays bounded


def game_sha256(source: str) -> str:
    """The key of a game's exact text (stored with matches, transfer values and scopes)."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def read_game_file(path: Path) -> str:
    """The text of the game file at `path`; `ConfigError` (naming the path, never showing
    its contents) when it is not a readable UTF-8 `.xgl`/`.xent` text file."""
    if path.suffix.lower() not in GAME_SUFFIXES:
        raise ConfigError(
            f"{path} is not a game file: game files are XGL text ending in .xgl or .xent. "
            "Give the path of a game file, or a registered game name (`arena games list`)."
        )
    try:
        size = path.stat().st_size
        if size > MAX_GAME_FILE_BYTES:
            raise ConfigError(
                f"{path} is {size / 1e6:.1f} MB; a game file is at most "
                f"{MAX_GAME_FILE_BYTES / 1e6:.0f} MB of XGL text. Check that this is the "
                "game you meant."
            )
        data = path.read_bytes()
    except OSError as error:
        raise ConfigError(
            f"Cannot read the game file {path}: {error.strerror}. Check the path and its "
            "permissions."
        ) from None
    if b"\x00" in data:
        raise ConfigError(
            f"{path} is a binary file, not XGL text. Give the path of a game file."
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"The game file {path} is not UTF-8 text (byte {error.start} cannot be "
            "decoded). Save it as UTF-8 and retry."
        ) from None
