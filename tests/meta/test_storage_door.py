"""One storage door: outside `arena/storage/`, code reaches the database through `Store`
(its methods, `Store.open`, `Store.open_read_only`) and never holds an engine.

Checked on the source (AST, nothing is imported): no `.engine` attribute, no SQLAlchemy or
SQLModel engine, connection or session API, and none of storage's engine-making functions.
What still needs one is listed in `ALLOWED` with the reason; an entry that is no longer
needed fails the test, so the list only shrinks.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCANNED = ("arena", "judges", "players", "tournaments", "dashboard", "plugins")
WINGS = ("judges", "players", "tournaments", "dashboard")  # arena/<wing> links to <wing>/

# (module, name) pairs whose import hands out an engine, a connection or a session; a
# name of None means the whole module.
ENGINE_APIS: set[tuple[str, str | None]] = {
    ("sqlalchemy.engine", None),
    ("sqlalchemy.orm", None),
    ("sqlalchemy.ext.asyncio", None),
    ("sqlalchemy.pool", None),
    *(("sqlalchemy", name) for name in ("Engine", "Connection", "create_engine", "engine_from_config")),
    *(("sqlmodel", name) for name in ("Session", "create_engine")),
    *(("arena.storage", name) for name in ("Database", "create_db_engine")),
    *(("arena.storage.engine", name) for name in ("Database", "create_db_engine", "write_engine")),
    ("arena.storage.read_only", "open_read_only"),
}

# path -> why it may still hold an engine (empty: none left)
ALLOWED: dict[str, str] = {}


def scanned_files() -> list[Path]:
    files = []
    for top in SCANNED:
        for path in sorted((REPO / top).rglob("*.py")):
            parts = path.relative_to(REPO).parts
            if parts[0] == "arena" and parts[1] in (*WINGS, "storage"):
                continue  # the wings are scanned at their real folders; storage is the door
            if "build" in parts:
                continue
            files.append(path)
    return files


def engine_uses(source: str) -> list[str]:
    """`line: what` for each `.engine` attribute and each engine-API import in `source`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "engine":
            found.append(f"{node.lineno}: .engine")
        elif isinstance(node, ast.Import):
            found += [
                f"{node.lineno}: import {alias.name}"
                for alias in node.names
                if (alias.name, None) in ENGINE_APIS
            ]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [
                f"{node.lineno}: from {node.module} import {alias.name}"
                for alias in node.names
                if (node.module, None) in ENGINE_APIS or (node.module, alias.name) in ENGINE_APIS
            ]
    return found


def test_no_engine_outside_storage() -> None:
    offenders = {}
    for path in scanned_files():
        where = str(path.relative_to(REPO))
        uses = engine_uses(path.read_text(encoding="utf-8"))
        if uses and where not in ALLOWED:
            offenders[where] = uses
    assert not offenders, (
        "only arena/storage holds engines; use Store's methods (arena.storage.operations) "
        f"or add the operation there: {offenders}"
    )


def test_every_allowed_module_still_needs_it() -> None:
    stale = [
        where for where in ALLOWED
        if not engine_uses((REPO / where).read_text(encoding="utf-8"))
    ]
    assert not stale, f"these no longer touch an engine; remove them from ALLOWED: {stale}"


def test_the_check_catches_each_kind_of_use() -> None:
    source = (
        "from sqlalchemy import Engine, select\n"
        "from sqlalchemy.orm import Session\n"
        "import sqlalchemy.engine\n"
        "from arena.storage.read_only import open_read_only\n"
        "from arena.storage.engine import APP_NAME\n"
        "from arena.tournaments.running.executors.engine import RunSummary\n"
        "def f(store):\n"
        "    return store.engine\n"
    )
    assert engine_uses(source) == [
        "1: from sqlalchemy import Engine",
        "2: from sqlalchemy.orm import Session",
        "3: import sqlalchemy.engine",
        "4: from arena.storage.read_only import open_read_only",
        "8: .engine",
    ]
