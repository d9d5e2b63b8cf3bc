"""Spec strings: how players, judges and story sources are named on the command line and in
tournament files.

Grammar: ``name[:arg][?key=value&key=value...]``, for example ``random``,
``scripted:a|b|c``, ``litellm:openai/gpt-4o-mini?temperature=0.2&max_tokens=64``,
``hf:/path/to/model?device=cpu``, ``search?budget=64``, ``remote:alice-bot``.

- ``name`` is the text up to the first ``:`` or ``?``: letters, digits, ``_``, ``-``, ``.``.
- ``arg`` is everything after that ``:`` up to the first ``?``. It is taken verbatim (no
  percent-decoding), so it may contain ``/``, ``:``, ``|`` and spaces, but never ``?``:
  the first ``?`` always starts the parameters.
- Parameters are ``&``-separated ``key=value`` pairs, decoded like a URL query
  (``+`` is a space, ``%XX`` escapes). Every field needs an ``=``; keys are unique.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from urllib.parse import parse_qsl, urlencode

from arena.errors import ConfigError, did_you_mean

# Anchored: pydantic's `pattern=` searches, so an unanchored pattern let a name such as
# "a<script>" or "a\u202e\n" through because it contains a valid character.
NAME_RE = re.compile(r"^[A-Za-z0-9_.\-]+$")
_BAD_NAME_CHAR = re.compile(r"[^A-Za-z0-9_.\-]")


def _error(text: str, col: int, width: int, problem: str, fix: str) -> ConfigError:
    caret = " " * col + "^" * max(1, width)
    return ConfigError(f"Bad spec '{text}': {problem}\n    {text}\n    {caret}\n{fix}")



def shorten(text: str, keep: int = 80) -> str:
    """`text` as one printable line, or its start and length when long: a 5 000-digit value
    is not echoed whole, and a newline, control character, direction mark or lone
    surrogate is shown escaped (\\n, \\u202e, \\ud800), never sent to the terminal."""
    shown = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text[:keep])
    return shown if len(text) <= keep else f"{shown}... ({len(text):,} characters)"

@dataclass(frozen=True)
class Spec:
    """A parsed spec string. `params` is read-only; `raw` is the text as written."""

    name: str
    arg: str = ""
    params: Mapping[str, str] = field(default_factory=dict, hash=False)
    raw: str = ""

    def __post_init__(self) -> None:
        # Freeze the mapping so a shared Spec cannot be changed behind a factory's back.
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))
        if not self.raw:
            object.__setattr__(self, "raw", self.canonical)

    @property
    def canonical(self) -> str:
        """The spec written back in normal form (parameters sorted by key)."""
        text = self.name + (f":{self.arg}" if self.arg else "")
        if self.params:
            text += "?" + urlencode(sorted(self.params.items()))
        return text

    def __str__(self) -> str:
        return self.raw

    def expect_params(self, allowed: Collection[str], kind: str = "spec") -> None:
        """Raise `ConfigError` when a parameter is not one of `allowed`."""
        for key in self.params:
            if key not in allowed:
                raise ConfigError(
                    f"Unknown parameter '{shorten(key)}' for {kind} '{shorten(self.raw)}'."
                    f"{did_you_mean(key, allowed)} Remove it or use one of those."
                )

    def int_param(
        self, key: str, default: int, *, minimum: int | None = None, maximum: int | None = None
    ) -> int:
        """The integer parameter `key` (or `default`), checked against `minimum` and
        `maximum` (a count that sizes work must have one)."""
        text = self.params.get(key)
        if text is None:
            return default
        try:
            value = int(text.strip())
        except ValueError:
            raise ConfigError(
                f"Parameter '{key}' of '{shorten(self.raw)}' must be an integer, got "
                f"{shorten(repr(text))}. Write e.g. {key}={default}."
            ) from None
        if minimum is not None and value < minimum:
            raise ConfigError(
                f"Parameter '{key}' of '{shorten(self.raw)}' must be >= {minimum}, got "
                f"{shorten(str(value))}. Write e.g. {key}={max(default, minimum)}."
            )
        if maximum is not None and value > maximum:
            raise ConfigError(
                f"Parameter '{key}' of '{shorten(self.raw)}' must be <= {maximum}, got "
                f"{shorten(str(value))}. Write e.g. {key}={min(default, maximum) or maximum}."
            )
        return value

    def float_param(self, key: str, default: float) -> float:
        """The float parameter `key` (or `default`)."""
        text = self.params.get(key)
        if text is None:
            return default
        try:
            return float(text.strip())
        except ValueError:
            raise ConfigError(
                f"Parameter '{key}' of '{shorten(self.raw)}' must be a number, got "
                f"{shorten(repr(text))}. Write e.g. {key}={default}."
            ) from None

    def bool_param(self, key: str, default: bool) -> bool:
        """The boolean parameter `key`: 1/true/yes/on or 0/false/no/off."""
        text = self.params.get(key)
        if text is None:
            return default
        low = text.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ConfigError(
            f"Parameter '{key}' of '{shorten(self.raw)}' must be a boolean (1/0, true/false), "
            f"got {text!r}."
        )


def parse_spec(text: str) -> Spec:
    """Parse ``name[:arg][?key=value&...]`` into a `Spec`.

    Raises:
        ConfigError: empty or malformed name, or a malformed parameter; the message shows
            the spec with a caret under the bad part and says how to fix it.
    """
    raw = text.strip()
    cut = min((i for i in (raw.find(":"), raw.find("?")) if i >= 0), default=len(raw))
    name = raw[:cut]
    if not name:
        raise _error(
            raw, 0, 1, "the name is empty.",
            "Start with a registered name, e.g. 'random' or 'litellm:openai/gpt-4o-mini'; "
            "run `arena plugins` to list them.",
        )
    bad = _BAD_NAME_CHAR.search(name)
    if bad:
        raise _error(
            raw, bad.start(), 1, f"the name '{name}' contains {bad.group()!r}.",
            "A name is letters, digits, '_', '-' and '.'; put paths and model ids after "
            "':', e.g. 'litellm:openai/gpt-4o-mini'.",
        )
    rest = raw[cut:]
    arg, query_at = "", -1
    if rest.startswith(":"):
        q = rest.find("?")
        arg = rest[1:] if q < 0 else rest[1:q]
        query_at = -1 if q < 0 else cut + q
    elif rest.startswith("?"):
        query_at = cut
    params = _parse_params(raw, query_at) if query_at >= 0 else {}
    return Spec(name=name, arg=arg, params=params, raw=raw)


def _parse_params(raw: str, query_at: int) -> dict[str, str]:
    params: dict[str, str] = {}
    pos = query_at + 1
    if pos == len(raw):  # a bare trailing '?' means no parameters
        return params
    for piece in raw[pos:].split("&"):
        try:
            pairs = parse_qsl(piece, keep_blank_values=True, strict_parsing=True)
        except ValueError:
            pairs = []
        if len(pairs) != 1 or not pairs[0][0]:
            problem = "empty parameter." if not piece else f"parameter '{piece}' is not key=value."
            raise _error(
                raw, pos, len(piece), problem,
                "Write parameters as key=value pairs joined by '&', e.g. "
                "'litellm:openai/gpt-4o-mini?temperature=0.2&max_tokens=64'.",
            )
        key, value = pairs[0]
        if key in params:
            raise _error(
                raw, pos, len(piece), f"parameter '{key}' is given twice.",
                "Keep one value per parameter.",
            )
        params[key] = value
        pos += len(piece) + 1
    return params
