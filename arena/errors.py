"""One error tree for the whole arena. Every message names the thing, shows the offending
input, lists valid options where there are some, and says how to fix it."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.redaction import redact


class ArenaError(Exception):
    """Base of every error the arena raises on purpose. Its message is redacted
    (`arena.redaction`): messages quote specs and URLs, which may hold credentials, and
    they reach consoles, logs and stored events."""

    def __init__(self, *args: object) -> None:
        if args and isinstance(args[0], str):
            args = (redact(args[0]), *args[1:])
        super().__init__(*args)


def did_you_mean(word: str, options: Iterable[str]) -> str:
    """A "Did you mean 'x'?" suffix (or "") plus the list of valid options."""
    opts = sorted(set(options))
    close = difflib.get_close_matches(word, opts, n=1, cutoff=0.6)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    listing = ", ".join(opts) if opts else "(none)"
    return f"{hint} Valid options: {listing}."


class UnknownNameError(ArenaError):
    """An unknown player, judge, game, register, function or dialect."""

    def __init__(self, kind: str, name: str, options: Iterable[str], fix: str = "") -> None:
        self.kind, self.name, self.options = kind, name, sorted(set(options))
        msg = f"Unknown {kind} '{name}'.{did_you_mean(name, self.options)}"
        super().__init__(msg + (f" {fix}" if fix else ""))


@dataclass(frozen=True)
class Diagnostic:
    """One problem in a game file, located precisely."""

    filename: str
    line: int  # 1-based
    col: int  # 0-based start column
    end_col: int  # 0-based end column (exclusive)
    message: str
    source_line: str
    hint: str = ""

    def render(self) -> str:
        shown, col, end_col = _window(self.source_line, self.col, self.end_col)
        # A lone surrogate cannot be printed or stored: one U+FFFD keeps the caret aligned.
        shown = "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in shown)
        caret = " " * col + "^" * max(1, end_col - col)
        text = (
            f"{self.filename}:{self.line}:{self.col + 1}: error: {self.message}\n"
            f"    {shown}\n    {caret}"
        )
        if self.hint:
            text += f"\n    hint: {self.hint}"
        return text


_SHOWN_CHARS = 160  # a longer source line is shown as a window around the caret


def _window(line: str, col: int, end_col: int) -> tuple[str, int, int]:
    """The part of a (possibly megabytes long) line to show, and the caret's columns in it."""
    if len(line) <= _SHOWN_CHARS:
        return line, col, end_col
    start = max(0, min(col - 40, len(line) - _SHOWN_CHARS))
    stop = start + _SHOWN_CHARS
    lead = "…" if start else ""
    shown = lead + line[start:stop] + ("…" if stop < len(line) else "")
    shift = len(lead) - start
    return shown, col + shift, min(end_col, stop) + shift


class GameSyntaxError(ArenaError):
    """A game file that does not parse or check. Carries every problem found; the message
    lists the first `SHOWN_DIAGNOSTICS` (a file that is not XGL at all would otherwise
    print a screen per line of it), then how many more there are."""

    SHOWN_DIAGNOSTICS = 20

    def __init__(self, diagnostics: Sequence[Diagnostic]) -> None:
        self.diagnostics = tuple(diagnostics)
        n = len(self.diagnostics)
        head = f"{n} problem{'s' if n != 1 else ''} in game file"
        shown = self.diagnostics[: self.SHOWN_DIAGNOSTICS]
        body = "\n".join(d.render() for d in shown)
        if n > len(shown):
            body += f"\n… and {n - len(shown)} more (fix these first, then check again)"
        super().__init__(f"{head}:\n{body}")


class GameRuntimeError(ArenaError):
    """A game that fails while running (instruction budget, bad index, wrong value kind)."""

    def __init__(self, message: str, line: int = 0, source_line: str = "") -> None:
        self.line, self.source_line = line, source_line
        where = f" (line {line}: {source_line.strip()})" if line else ""
        super().__init__(message + where)


class JudgeError(ArenaError):
    """A judge failed to score, tokenise or generate."""


class PlayerError(ArenaError):
    """A player failed to produce a valid move."""


class PermanentPlayerError(PlayerError):
    """A player failure that every retry would repeat (rejected credentials, a malformed
    request, an unknown model): the seat forfeits the move at once instead of retrying."""


class NoResultError(PlayerError):
    """A move that could not be had for a reason outside the game (a provider that kept
    failing after the player's own retries), from a player that asks for the published Xent
    benchmark's rule: the match then has no result (absent from every score, counted as
    such) instead of a forfeit. The runtime does not retry it."""


class ConfigError(ArenaError):
    """Bad configuration: a spec string, a tournament file, a CLI option."""


class MissingExtraError(ConfigError):
    """A feature needs a package that is not installed: one sentence naming the feature,
    what is missing and the command that installs it (every "install the extra" error)."""

    def __init__(self, feature: str, missing: str, install: str, also: str = "") -> None:
        self.feature, self.missing, self.install = feature, missing, install
        text = f"{feature} needs {missing}, which is not installed. Install it with: {install}"
        super().__init__(text + (f" {also}" if also else ""))


class PluginError(ArenaError):
    """A plugin failed to load or registered something invalid."""


class StorageError(ArenaError):
    """The database cannot be opened, is too new for this arena, or a write failed."""
