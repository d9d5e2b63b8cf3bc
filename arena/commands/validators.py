"""Checks of option values that typer's types cannot express; a failure is a usage error
(typer's message, exit 2), like any malformed option value."""

from __future__ import annotations

import typer


def positive(value: float | None) -> float | None:
    """A number of seconds, a size...: must be greater than zero (None: not given)."""
    if value is not None and not value > 0:
        raise typer.BadParameter(f"{value} is not positive; give a number greater than 0.")
    return value
