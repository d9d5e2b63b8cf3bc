"""Problems in a tournament file, each located by its key path (`games[1].rounds`).

Every problem found is reported at once; values that may hold secrets are redacted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from arena.errors import ConfigError, did_you_mean
from arena.redaction import redact


@dataclass(frozen=True)
class Problem:
    """One mistake: where (`path`), what was written there, and what is wrong."""

    path: str
    message: str
    value: object = None
    show_value: bool = True

    def render(self) -> str:
        if not self.show_value:
            return f"{self.path}: {self.message}"
        value = self.value
        shown = repr(redact(value)) if isinstance(value, str) else redact(repr(value))
        if len(shown) > 80:
            shown = shown[:77] + "..."
        return f"{self.path} = {shown}: {self.message}"


class TournamentConfigError(ConfigError):
    """A tournament file with one or more mistakes, all listed."""

    def __init__(self, source: str, problems: Sequence[Problem]) -> None:
        self.source = source
        self.problems = tuple(problems)
        n = len(self.problems)
        lines = "\n".join(f"  - {p.render()}" for p in self.problems)
        super().__init__(
            f"{source} has {n} problem{'s' if n != 1 else ''} (list indexes count from 0):\n"
            f"{lines}\nFix them and run the same command again."
        )


def key_path(loc: Iterable[int | str], data: object = None) -> str:
    """`('games', 1, 'rounds')` -> `games[1].rounds`; list items named in `data` get their
    name appended, e.g. `games[1](condense).rounds`."""
    out = ""
    node = data
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            node = node[part] if isinstance(node, list) and 0 <= part < len(node) else None
            label = _label(node)
            if label:
                out += f"({label})"
        else:
            out += f".{part}" if out else str(part)
            node = node.get(part) if isinstance(node, Mapping) else None
    return out or "(top level)"


def _label(node: object) -> str:
    if isinstance(node, Mapping):
        for key in ("name", "game"):
            value = node.get(key)
            if isinstance(value, str) and value:
                return value
    return ""


def value_at(data: object, loc: Iterable[int | str]) -> object:
    node = data
    for part in loc:
        if isinstance(part, int) and isinstance(node, list) and 0 <= part < len(node):
            node = node[part]
        elif isinstance(part, str) and isinstance(node, Mapping):
            node = node.get(part)
        else:
            return None
    return node


def from_validation_error(
    error: ValidationError, data: object, fields_at: Mapping[str, Sequence[str]]
) -> list[Problem]:
    """One `Problem` per pydantic error; unknown keys get "did you mean" from `fields_at`
    (the valid keys per container, keyed by its loc with list indexes dropped)."""
    problems = []
    for item in error.errors():
        loc = tuple(item["loc"])
        path = key_path(loc, data)
        kind = item["type"]
        if kind == "extra_forbidden":
            container = ".".join(str(p) for p in loc[:-1] if isinstance(p, str))
            valid = fields_at.get(container, ())
            message = f"unknown key '{loc[-1]}'.{did_you_mean(str(loc[-1]), valid)}"
            problems.append(Problem(path, message, show_value=False))
        elif kind == "missing":
            problems.append(Problem(path, "this key is required", show_value=False))
        elif kind in _BOUNDS:
            problems.append(Problem(path, _BOUNDS[kind](item.get("ctx") or {}), _input(item)))
        else:
            message = _clean(str(item["msg"]))
            problems.append(Problem(path, message, _input(item)))
    return problems


_BOUNDS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "less_than_equal": lambda ctx: (
        f"must be at most {ctx.get('le')}; larger sizes do not fit in memory or time, so "
        f"write a value up to {ctx.get('le')}."
    ),
    "too_long": lambda ctx: (
        f"has too many entries: at most {ctx.get('max_length')}; split the tournament."
    ),
    "finite_number": lambda ctx: "must be a finite number, not nan or inf; write e.g. 1.0.",
    "string_pattern_mismatch": lambda ctx: (  # only names have a pattern
        "a name may hold only letters, digits, '_', '.' and '-' (no spaces, markup or "
        'control characters); write e.g. "my-name-2".'
    ),
}


def _input(item: Mapping[str, Any]) -> object:
    value = item.get("input")
    if isinstance(value, dict | list) and len(repr(value)) > 80:
        return type(value).__name__
    return value


def _clean(message: str) -> str:
    return message.removeprefix("Value error, ").rstrip(".") + "."
