"""How a storage function becomes a `Store` method without its engine leaving storage.

Storage modules keep plain functions taking an `Engine` first (easy to test, one SQL concept
each). `Store` lists them with `operation(fn)`: `store.claim_matches(...)` calls
``claims.claim(engine, ...)`` with the store's own engine, with `fn`'s signature checked by
mypy (ParamSpec), and `await store.claim_matches.in_thread(...)` runs it in a worker
thread for async callers (the blocking driver never runs on the event loop).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from sqlalchemy import Engine

P = ParamSpec("P")
R = TypeVar("R", covariant=True)  # an operation of a narrower result is one of a wider


class BoundOperation(Generic[P, R]):
    """A storage function with its engine bound: call it, or await `in_thread`."""

    __slots__ = ("_engine", "_fn")

    def __init__(self, fn: Callable[Concatenate[Engine, P], R], engine: Engine) -> None:
        self._fn = fn
        self._engine = engine

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        return self._fn(self._engine, *args, **kwargs)

    async def in_thread(self, *args: P.args, **kwargs: P.kwargs) -> R:
        """The same call in a worker thread (`asyncio.to_thread`), for async callers."""
        return await asyncio.to_thread(self._fn, self._engine, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<storage operation {self._fn.__module__}.{self._fn.__qualname__}>"


class operation(Generic[P, R]):
    """A class attribute of `Store` standing for `fn`; on an instance it is `fn` bound to
    that store's engine (the instance's `engine` attribute, read by storage only)."""

    def __init__(self, fn: Callable[Concatenate[Engine, P], R]) -> None:
        self._fn = fn
        self.__doc__ = fn.__doc__
        self.name = fn.__name__  # the attribute's own name once set on a class

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self.name = name

    @overload
    def __get__(self, store: None, owner: type[Any]) -> operation[P, R]: ...

    @overload
    def __get__(self, store: object, owner: type[Any] | None = None) -> BoundOperation[P, R]: ...

    def __get__(
        self, store: object, owner: type[Any] | None = None
    ) -> operation[P, R] | BoundOperation[P, R]:
        if store is None:
            return self
        return BoundOperation(self._fn, store.engine)  # type: ignore[attr-defined]
