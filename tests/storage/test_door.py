"""The one storage door: `Store` and `ReadModel` methods are storage functions bound to the
store's own engine, called directly or in a worker thread, on a real SQLite database."""

from __future__ import annotations

import asyncio
import inspect
import threading
from pathlib import Path

import pytest

from arena.errors import StorageError
from arena.storage import Store, schedules, sqlite_url
from arena.storage.door import BoundOperation, operation
from arena.storage.operations import StoreOperations
from arena.storage.read_model import ReadModel


def operations(owner: type) -> dict[str, operation]:  # type: ignore[type-arg]
    return {
        name: value for name, value in vars(owner).items() if isinstance(value, operation)
    }


@pytest.mark.parametrize("owner", [StoreOperations, ReadModel])
def test_every_operation_is_a_storage_function_taking_the_engine_first(owner: type) -> None:
    found = operations(owner)
    assert len(found) > 20
    for name, op in found.items():
        fn = op._fn
        assert fn.__module__.startswith("arena.storage."), name
        first = next(iter(inspect.signature(fn).parameters.values()))
        assert first.name == "engine" and first.annotation in ("Engine", "Engine | None"), name
        assert op.__doc__ == fn.__doc__  # help(Store.x) shows the function's docstring


def test_a_method_is_the_function_with_the_stores_engine(tmp_path: Path) -> None:
    store = Store.open(sqlite_url(tmp_path / "a.db"))
    try:
        assert isinstance(Store.schedules, operation)  # on the class: the declaration
        bound = store.schedules
        assert isinstance(bound, BoundOperation) and "schedules.schedules" in repr(bound)
        store.save_schedule("nightly", "0 3 * * *", "t.toml", {"seeds": "fresh"})
        via_store = store.schedules()
        assert [s.name for s in via_store] == ["nightly"]
        assert via_store == schedules.schedules(store.engine)
        assert store.delete_schedule("nightly") is True
        assert store.schedules() == []
    finally:
        store.close()


async def test_in_thread_runs_the_call_off_the_event_loop(tmp_path: Path) -> None:
    store = Store.open(sqlite_url(tmp_path / "a.db"))
    loop_thread = threading.get_ident()
    seen: list[int] = []
    original = schedules.save_schedule

    def spy(engine, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(threading.get_ident())
        return original(engine, *args, **kwargs)

    try:
        await BoundOperation(spy, store.engine).in_thread("a", "", "t.toml", interval_s=60.0)
        ids = await asyncio.gather(*(store.acquire_lease.in_thread("a", f"o{i}", 30.0)
                                     for i in range(4)))
        assert seen and seen[0] != loop_thread
        assert sorted(ids) == [False, False, False, True]  # one lease holder, as sync calls
        (record,) = await store.schedules.in_thread()
        assert record.interval_s == 60.0 and record.lease_owner is not None
    finally:
        store.close()


def test_the_url_opens_the_same_database_elsewhere(tmp_path: Path) -> None:
    store = Store.open(sqlite_url(tmp_path / "a.db"))
    try:
        store.save_schedule("x", "@daily", "t.toml")
        other = Store.open(store.url)
        try:
            assert [s.name for s in other.schedules()] == ["x"]
            assert other.describe() == store.describe() == str(tmp_path / "a.db")
        finally:
            other.close()
    finally:
        store.close()


def test_the_read_model_reads_a_database_it_cannot_change(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    Store.open(sqlite_url(path)).close()
    reader = ReadModel.open(sqlite_url(path))
    try:
        assert reader.state("the file").ok
        assert reader.tournaments().empty and reader.watermark() == (0, 0, 0, 0)
        assert reader.where().endswith("a.db?mode=ro&uri=true")
    finally:
        reader.close()
    with pytest.raises(StorageError, match="No arena database at"):
        ReadModel.open(sqlite_url(tmp_path / "missing.db"))
    with pytest.raises(StorageError, match="No arena database at"):
        Store.open_read_only(sqlite_url(tmp_path / "missing.db"))
