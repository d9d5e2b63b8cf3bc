"""Importing Ray, and what driver and workers share: the registry a worker rebuilds."""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType

from arena.errors import ConfigError
from arena.plugins.registry import Registry

INSTALL = "pip install 'xent-arena[ray]'"


def import_ray() -> ModuleType:
    """The `ray` module, or one sentence naming the extra to install."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise ConfigError(
            f"The ray executor needs Ray, which is not installed; install it with {INSTALL} "
            "or run with --executor local."
        ) from None


@cache
def worker_registry(ref: str | None) -> Registry:
    """The registry of a Ray worker process, built once: the installed plugins, or the
    result of the zero-argument function `ref` ("module:function"), which a program with
    plugins of its own (a test) names so workers see the same players and judges."""
    if ref is None:
        return Registry.load()
    module, _, function = ref.partition(":")
    made = getattr(importlib.import_module(module), function)()
    if not isinstance(made, Registry):
        raise ConfigError(f"Registry factory '{ref}' returned a {type(made).__name__}.")
    return made
