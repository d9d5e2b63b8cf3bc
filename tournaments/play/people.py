"""The people who play on the page and the secret each one holds (docs/play.md, "People and
their secrets").

A seat is a person's by secret, not by name: like a remote agent's token, every person has
their own, made here (`secrets.token_urlsafe`) when the organiser invites them (a tournament
entrant, or `--invite NAME`) or when a newcomer first joins under a free name. The browser
keeps it (the page stores it locally; an invite link carries it after `#`, which browsers
never send to a server). The book keeps only each secret's SHA-256, in a file written
through its model with owner-only permissions, so a returning person keeps their name across
restarts and the file alone lets nobody in. A name in the book is never handed to anyone
else: a newcomer who asks for it is refused, and the real person is never locked out.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from pathlib import Path
from typing import Literal

from filelock import FileLock
from pydantic import BaseModel, Field, ValidationError

from arena.errors import ConfigError
from arena.protocols.people import person_name_problem as person_name_problem  # its home

MAX_SECRET_CHARS = 128  # made ones have 32; longer input is not worth hashing
MAX_PEOPLE = 10_000
MAX_FILE_BYTES = MAX_PEOPLE * 160
FILE_NAME = "play-people.json"


class _PeopleFile(BaseModel):
    """The book on disk: each name and the SHA-256 (hex) of its secret."""

    version: Literal[1] = 1
    people: dict[str, str] = Field(default_factory=dict)


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "replace")).hexdigest()


def default_people_file() -> Path:
    """The book of the user's play servers: ``<user data dir>/play-people.json``."""
    from platformdirs import user_data_dir

    from arena.storage.engine import APP_NAME

    return Path(user_data_dir(APP_NAME)) / FILE_NAME


class PeopleBook:
    """Names and their secrets' digests; the file (if any) is re-read when another process
    changed it, and every change is made under a file lock so two servers sharing the book
    never hand one name to two people."""

    def __init__(self, path: Path | None, max_people: int = MAX_PEOPLE) -> None:
        self.path = path
        self.max_people = max_people
        self._people: dict[str, str] = {}
        self._seen: float | None = None
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise ConfigError(
                    f"Cannot create the folder of the people file {path}: {error.strerror}. "
                    "Choose another with --people FILE."
                ) from None
            self._reload()

    # ------------------------------------------------------------------ the file

    def _read(self) -> dict[str, str]:
        assert self.path is not None
        try:
            with self.path.open("rb") as handle:
                raw = handle.read(MAX_FILE_BYTES + 1)
        except FileNotFoundError:
            return {}
        except OSError as error:
            raise ConfigError(f"Cannot read the people file {self.path}: {error.strerror}. "
                              "Choose another with --people FILE.") from None
        if len(raw) > MAX_FILE_BYTES:
            raise ConfigError(f"The people file {self.path} is larger than {MAX_FILE_BYTES} "
                              "bytes; it is not one this server wrote. Choose another with "
                              "--people FILE.")
        try:
            return _PeopleFile.model_validate_json(raw).people
        except ValidationError:
            raise ConfigError(f"The people file {self.path} is not one this server wrote "
                              "(not its JSON). Move it away or choose another with --people "
                              "FILE.") from None

    def _reload(self) -> None:
        if self.path is None:
            return
        with contextlib.suppress(FileNotFoundError):
            stamp = self.path.stat().st_mtime_ns
            if stamp == self._seen:
                return
            self._seen = stamp
        self._people = self._read()

    def _write(self) -> None:
        assert self.path is not None
        temporary = self.path.with_name(self.path.name + ".tmp")
        text = _PeopleFile(people=self._people).model_dump_json(indent=1)
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(temporary, self.path)
            self._seen = self.path.stat().st_mtime_ns
        except OSError as error:
            self._seen = None  # read the file again before the next change
            raise ConfigError(f"Cannot write the people file {self.path}: {error.strerror}. "
                              "Choose another with --people FILE.") from None

    def _locked(self) -> contextlib.AbstractContextManager[object]:
        if self.path is None:
            return contextlib.nullcontext()
        return FileLock(str(self.path) + ".lock", timeout=10)

    # ------------------------------------------------------------------ people

    def known(self, name: str) -> bool:
        self._reload()
        return name in self._people

    def verify(self, name: str, secret: str) -> bool:
        """Whether `secret` is `name`'s (compared digest to digest, in constant time)."""
        if not secret or len(secret) > MAX_SECRET_CHARS:
            return False
        self._reload()
        stored = self._people.get(name)
        return stored is not None and hmac.compare_digest(stored, _digest(secret))

    def claim(self, name: str) -> str | None:
        """A new secret for a name nobody holds yet; None when it is someone's. Raises
        ConfigError when the book is full."""
        with self._locked():
            self._reload()
            if name in self._people:
                return None
            if len(self._people) >= self.max_people:
                raise ConfigError(
                    f"This play server has {self.max_people} people already and takes no "
                    "new names; play under your own name, or ask the organiser."
                )
            return self._set(name)

    def invite(self, name: str) -> str:
        """A new secret for `name`, replacing any earlier one (a lost or leaked invite)."""
        with self._locked():
            self._reload()
            return self._set(name)

    def reserve(self, names: list[str]) -> dict[str, str]:
        """Secrets for the `names` (tournament entrants) that have none yet: name -> secret.
        The others keep theirs."""
        made = {}
        with self._locked():
            self._reload()
            for name in names:
                if name not in self._people and name not in made:
                    made[name] = self._set(name, write=False)
            if made and self.path is not None:
                self._write()
        return made

    def _set(self, name: str, write: bool = True) -> str:
        secret = secrets.token_urlsafe(24)
        self._people[name] = _digest(secret)
        if write and self.path is not None:
            self._write()
        return secret
