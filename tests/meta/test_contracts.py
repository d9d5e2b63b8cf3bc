"""Contracts are plain data: every dataclass in `arena.protocols` holds strings, numbers,
paths, containers of those, other contract types, or a lent service named by a contract
protocol (a `Judge`), never a loaded game or a registry (issue 23)."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import types
import typing
from pathlib import Path

import arena.protocols
from arena.protocols.judge import Judge

PLAIN = {str, int, float, bool, bytes, type(None), Path, object}
CONTAINERS = {tuple, list, dict, frozenset, set}
LENT_SERVICES = {Judge}  # a running judge is lent to the fine-tuner, see arena.protocols.finetune


def contract_dataclasses() -> list[type]:
    found = []
    for info in pkgutil.iter_modules(arena.protocols.__path__, "arena.protocols."):
        module = importlib.import_module(info.name)
        found += [
            value for value in vars(module).values()
            if isinstance(value, type) and dataclasses.is_dataclass(value)
            and value.__module__ == module.__name__
        ]
    return found


def foreign_types(hint: object) -> list[str]:
    """The parts of a type hint that are not plain data or contract types."""
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return []
    if origin is not None:  # X | None, tuple[...], Mapping[...], Sequence[...]
        container = origin in CONTAINERS or origin in (types.UnionType, typing.Union)
        own = [] if container or origin.__module__ == "collections.abc" else [repr(origin)]
        return own + [bad for arg in typing.get_args(hint) for bad in foreign_types(arg)]
    if hint is Ellipsis or hint in PLAIN or hint in LENT_SERVICES:
        return []
    if isinstance(hint, type) and hint.__module__.startswith("arena.protocols"):
        return []
    return [repr(hint)]


def test_every_contract_dataclass_is_plain_data() -> None:
    classes = contract_dataclasses()
    assert {"FineTuneRequest", "ParentGame", "Proposal", "ChatReply", "GameView"} <= {
        c.__name__ for c in classes
    }
    offenders = {
        f"{cls.__module__}.{cls.__name__}.{name}": bad
        for cls in classes
        for name, hint in typing.get_type_hints(cls).items()
        if (bad := foreign_types(hint))
    }
    assert not offenders, f"contracts must be plain data: {offenders}"


def test_the_check_would_catch_a_loaded_game() -> None:
    from arena.match_setup import LoadedGame
    from arena.plugins.registry import Registry

    assert foreign_types(LoadedGame) and foreign_types(Registry | None)
    assert not foreign_types(tuple[float, ...]) and not foreign_types(dict[str, object])
