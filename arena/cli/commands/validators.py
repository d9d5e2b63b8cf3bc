"""Checks of option values that typer's types cannot express; a failure is a usage error
(typer's message, exit 2), like any malformed option value."""

from __future__ import annotations

import math

import typer


def positive(value: float | None) -> float | None:
    """A number of seconds, a size...: must be greater than zero (None: not given)."""
    if value is not None and not value > 0:
        raise typer.BadParameter(f"{value} is not positive; give a number greater than 0.")
    return value


def finite_positive(value: float | None) -> float | None:
    """A size in bits (theta...): a finite number greater than zero (None: not given)."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise typer.BadParameter(
            f"{value} is not a finite positive number; give e.g. 1.0 (bits)."
        )
    return value


def open_probability(value: float | None) -> float | None:
    """A clipping epsilon: strictly between 0 and 1 (None: the default)."""
    if value is not None and not 0.0 < value < 1.0:
        raise typer.BadParameter(
            f"{value} is not strictly between 0 and 1; give e.g. 2e-5, or leave it out "
            "for 1/|V| of the judge."
        )
    return value


def failure_probability(value: float | None) -> float | None:
    """A tolerated failure probability: in [0, 1) (None: not given)."""
    if value is not None and not 0.0 <= value < 1.0:
        raise typer.BadParameter(f"{value} is not in [0, 1); give e.g. 0.1.")
    return value
