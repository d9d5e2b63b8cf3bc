"""Project-wide rules: the import graph of DESIGN.md, and no code execution of game text."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("arena", "judges", "players", "tournaments", "dashboard")
ALLOWED = {
    "arena": set(),
    "judges": {"arena"},
    "players": {"arena"},
    "tournaments": {"arena"},
    "dashboard": {"arena", "tournaments"},
}


# The wings kept as top-level folders and installed under the one import root `arena`
# (arena/<wing> links to <wing>/): `arena.judges.pool` is in the judges wing.
WINGS = ("judges", "players", "tournaments", "dashboard")


def python_files(package: str) -> list[Path]:
    """The package's own files (for `arena`, without the linked wings)."""
    return sorted(
        path
        for path in (REPO / package).rglob("*.py")
        if package != "arena" or path.relative_to(REPO / "arena").parts[0] not in WINGS
    )


def wing_of(module: str) -> str:
    """`arena.judges.pool` -> "judges"; `arena.lang.parser` -> "arena"; `numpy` -> "numpy"."""
    parts = module.split(".")
    if parts[0] == "arena" and len(parts) > 1 and parts[1] in WINGS:
        return parts[1]
    return parts[0]


def absolute_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def imported_packages(path: Path) -> set[str]:
    return {wing_of(name) for name in absolute_imports(path)} & set(PACKAGES)


@pytest.mark.parametrize("package", [*PACKAGES, "tests", "benchmarks", "plugins"])
def test_one_import_root(package: str) -> None:
    """The wings are imported as `arena.<wing>`; their folder names are not import roots."""
    offenders = [
        f"{path.relative_to(REPO)} imports {name}"
        for path in sorted((REPO / package).rglob("*.py"))
        if "build" not in path.relative_to(REPO).parts
        for name in sorted(absolute_imports(path))
        if name.split(".")[0] in WINGS
    ]
    assert not offenders, f"import the wings through `arena`: {offenders}"


@pytest.mark.parametrize("package", PACKAGES)
def test_import_rule(package: str) -> None:
    violations = {
        str(path.relative_to(REPO)): sorted(imported_packages(path) - ALLOWED[package] - {package})
        for path in python_files(package)
    }
    violations = {k: v for k, v in violations.items() if v}
    assert not violations, f"{package} may import only {sorted(ALLOWED[package])}: {violations}"


CODE_EXECUTION = re.compile(r"(?<![\w.])(eval|exec|compile)\s*\(|literal_eval|__import__\s*\(")


@pytest.mark.parametrize("package", PACKAGES)
def test_no_eval_exec_or_compile(package: str) -> None:
    offenders = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in python_files(package)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if CODE_EXECUTION.search(line) and not line.lstrip().startswith("#")
    ]
    assert not offenders, "game text must never reach Python's evaluator:\n" + "\n".join(offenders)


def test_the_grep_would_catch_an_eval() -> None:
    assert CODE_EXECUTION.search("value = eval(text)")
    assert CODE_EXECUTION.search("exec (code)")
    assert CODE_EXECUTION.search("compile(source, 'f', 'exec')")
    assert not CODE_EXECUTION.search("re.compile(pattern)")  # regex compilation is fine


# --- layering inside arena/ -----------------------------------------------------------------

SQL_LIBRARIES = {"sqlalchemy", "sqlmodel", "sqlite3", "psycopg", "psycopg2"}
# (importer package, imported package): a lower layer never imports a higher one.
FORBIDDEN_INSIDE_ARENA = [
    ("arena.protocols", "arena.lang"),
    ("arena.protocols", "arena.runtime"),
    ("arena.lang", "arena.runtime"),
    ("arena.lang", "arena.analysis"),
    ("arena.runtime", "arena.analysis"),
    ("arena.analysis", "arena.commands"),
    ("arena.runtime", "arena.commands"),
    ("arena.lang", "arena.commands"),
]


def imported_modules(path: Path) -> set[str]:
    """Every module named by an absolute import in `path` (also inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def module_of(path: Path) -> str:
    return ".".join(path.relative_to(REPO).with_suffix("").parts)


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


@pytest.mark.parametrize(("low", "high"), FORBIDDEN_INSIDE_ARENA)
def test_layers_inside_arena(low: str, high: str) -> None:
    offenders = [
        f"{module_of(path)} imports {name}"
        for path in python_files("arena")
        if within(module_of(path), low)
        for name in sorted(imported_modules(path))
        if within(name, high)
    ]
    assert not offenders, f"{low} must not import {high}: {offenders}"


def test_only_storage_touches_sql_inside_arena() -> None:
    offenders = [
        f"{module_of(path)} imports {name}"
        for path in python_files("arena")
        if not within(module_of(path), "arena.storage")
        for name in sorted(imported_modules(path))
        if name.split(".")[0] in SQL_LIBRARIES
    ]
    assert not offenders, f"only arena.storage may use SQL libraries: {offenders}"


def test_the_example_plugins_import_only_the_facade() -> None:
    """A plugin needs `arena` (the façade) and nothing deeper; its own modules are its own."""
    plugins = sorted((REPO / "plugins").glob("*/*/*.py")) + sorted(
        (REPO / "plugins").glob("*/tests/*.py")
    )
    assert plugins, "the example plugins are missing"
    offenders = [
        f"{path.relative_to(REPO)} imports {name}"
        for path in plugins
        for name in sorted(imported_modules(path))
        if (within(name, "arena") and name not in ("arena", "arena.testing"))
        or name.split(".")[0] in {"judges", "players", "tournaments", "dashboard"}
    ]
    assert not offenders, f"plugins may import only `arena` and `arena.testing`: {offenders}"


def test_the_layer_check_would_catch_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from arena.runtime.match import play_match\n", encoding="utf-8")
    assert "arena.runtime.match" in imported_modules(bad)
    assert within("arena.runtime.match", "arena.runtime")
    assert not within("arena.runtimes", "arena.runtime")
