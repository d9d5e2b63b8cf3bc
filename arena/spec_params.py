"""Declared spec parameters: a player, judge or story source says once which ':' argument and
which `?key=value` parameters its spec takes (name, type, default, help).

The registry validates a spec against the declaration before it calls the factory or the
entry's `check` (so a tournament file is checked before it runs), and `arena plugins`
renders the parameter docs from it. Factories then read values with `Spec.int_param` and
friends, knowing they are well-formed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final, Literal

from arena.errors import ConfigError, did_you_mean
from arena.specs import Spec, shorten

ParamType = Literal["int", "float", "bool", "str"]
# The largest integer a parameter takes when its declaration names no maximum: what a
# 64-bit column stores, far beyond any count, seed or port a spec needs.
INT_MAXIMUM: Final = 2**63 - 1


def is_none(text: str) -> bool:
    """Whether a parameter's value is the word `none` (see `Param.none`)."""
    return text.strip().lower() == "none"


@dataclass(frozen=True)
class Param:
    """One `?name=value` parameter.

    Attributes:
        name: the key, e.g. "words".
        type: "int", "float", "bool" (1/true/yes/on, 0/false/no/off) or "str".
        default: shown in the docs (None: no default, or computed by the factory).
        help: one phrase for `arena plugins`.
        minimum: for numbers, the smallest accepted value.
        maximum: for numbers, the largest accepted value.
        choices: for strings, the accepted values (empty: any text).
        none: for numbers, what the value `none` means (e.g. "not sent: the provider's
            default"); empty: `none` is refused like any other word.
    """

    name: str
    type: ParamType = "str"
    default: object = None
    help: str = ""
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    none: str = ""

    def check(self, spec: Spec, kind: str) -> None:
        """Raise `ConfigError` when the spec's value does not fit the declared type."""
        raw = shorten(spec.raw)
        if self.none and is_none(spec.params[self.name]):
            return
        value: float
        if self.type == "int":
            least = None if self.minimum is None else int(self.minimum)
            example = self.default if isinstance(self.default, int) else least or 1
            value = spec.int_param(self.name, example, minimum=least)
            most = INT_MAXIMUM if self.maximum is None else int(self.maximum)
            if value > most:
                raise ConfigError(
                    f"Parameter '{self.name}' of {kind} '{raw}' must be <= "
                    f"{most}, got {shorten(str(value))}. Write e.g. {self.name}={most}."
                )
            return
        if self.type == "float":
            number = self.default if isinstance(self.default, float | int) else 1.0
            value = spec.float_param(self.name, float(number))
            if not math.isfinite(value):
                raise ConfigError(
                    f"Parameter '{self.name}' of {kind} '{raw}' must be a finite "
                    f"number, got {spec.params[self.name]!r}. Write e.g. {self.name}={number}."
                )
            if self.minimum is not None and value < self.minimum:
                raise ConfigError(
                    f"Parameter '{self.name}' of {kind} '{raw}' must be >= "
                    f"{self.minimum:g}, got {value:g}."
                )
        elif self.type == "bool":
            spec.bool_param(self.name, False)
            return
        else:
            text = spec.params[self.name]
            if self.choices and text not in self.choices:
                raise ConfigError(
                    f"Parameter '{self.name}' of {kind} '{raw}' cannot be '{shorten(text)}'."
                    f"{did_you_mean(shorten(text), self.choices)}"
                )
            return
        if self.maximum is not None and value > self.maximum:
            raise ConfigError(
                f"Parameter '{self.name}' of {kind} '{raw}' must be <= "
                f"{self.maximum:g}, got {value:g}. Write e.g. {self.name}={self.maximum:g}."
            )

    def doc(self) -> str:
        default = "" if self.default is None else f" (default {self.default})"
        shape = "|".join(self.choices) if self.choices else f"<{self.type}>"
        if self.none:
            shape += "|none"
            default += f"; none: {self.none}"
        return f"{self.name}={shape} {self.help}{default}".replace("  ", " ").strip()


@dataclass(frozen=True)
class SpecParams:
    """What a spec may contain: the ':' argument (None: none allowed) and the parameters."""

    arg: str | None = None  # help for the ':' argument, e.g. "litellm model id"
    params: tuple[Param, ...] = ()
    arg_required: bool = False
    # The ':' argument is a file path: in a tournament file a relative one is read from the
    # file's folder (as game paths are), so that a tournament folder can be moved.
    arg_is_path: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def validate(self, spec: Spec, kind: str) -> None:
        """Raise `ConfigError` naming the problem and the valid options when `spec` does not
        fit: an argument where none is taken (or none where one is needed), an unknown
        parameter, or a value of the wrong type."""
        raw = shorten(spec.raw)
        if spec.arg and self.arg is None:
            raise ConfigError(
                f"{kind.capitalize()} spec '{raw}': '{spec.name}' takes no ':' argument. "
                f"Write '{spec.name}'" + (f" with ?{self.names[0]}=..." if self.names else "")
                + "."
            )
        if not spec.arg and self.arg_required:
            raise ConfigError(
                f"{kind.capitalize()} spec '{raw}' needs a ':' argument ({self.arg}). "
                f"Write e.g. {spec.name}:<value>."
            )
        for key in spec.params:
            if key not in self.names:
                hint = did_you_mean(key, self.names) if self.names else " It takes none."
                raise ConfigError(
                    f"Unknown parameter '{shorten(key)}' for {kind} '{raw}'.{hint} Remove it or "
                    "use one of those."
                )
        for param in self.params:
            if param.name in spec.params:
                param.check(spec, kind)

    def doc(self) -> str:
        """One line for `arena plugins`: the argument, then each parameter."""
        parts = [] if self.arg is None else [f"arg: {self.arg}"]
        parts += [p.doc() for p in self.params]
        return "; ".join(parts)
