"""Every package the code imports is declared, so that a plain install runs.

The imports of the installed first-party packages are read from their source (AST, nothing
is executed) and mapped to distributions with `importlib.metadata.packages_distributions()`:

* an import at module level (outside functions and ``if TYPE_CHECKING:``) runs whenever the
  module is imported, so it must be a base dependency; a package that is itself optional
  (`dashboard`, behind `arena dashboard`) may also use its own extra;
* an import inside a function, under TYPE_CHECKING or guarded by ``except ImportError`` is
  optional: it must be declared by the base dependencies or by some extra.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata as md
import importlib.util
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]
DISTRIBUTION = "xent-arena"
# The one import root and its wings (arena/<wing> links to the top-level <wing>/ folder).
FIRST_PARTY = ("arena", "arena.judges", "arena.players", "arena.tournaments", "arena.dashboard")
# A first-party package that is only imported through a command needing its extra.
PACKAGE_EXTRAS = {"arena.dashboard": "dashboard"}
# A folder of the base package imported only by such a package: the dashboard's read model
# (storage's declared queries, returning pandas frames) is imported by the dashboard alone.
FOLDER_EXTRAS = {"arena/storage/read_model/": "dashboard"}


def extra_of(package: str, file: str) -> str:
    """The extra a module-level import of `file` (in first-party `package`) may use."""
    for folder, extra in FOLDER_EXTRAS.items():
        if file.startswith(folder):
            return extra
    return PACKAGE_EXTRAS.get(package, "")


@dataclass(frozen=True)
class Import:
    module: str  # top-level name, e.g. "transformers"
    file: str
    line: int
    module_level: bool


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _guards_import_error(node: ast.Try) -> bool:
    names = []
    for handler in node.handlers:
        kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        names += [k.id for k in kinds if isinstance(k, ast.Name)]
    return bool({"ImportError", "ModuleNotFoundError"} & set(names))


def imports_of(tree: ast.Module, file: str) -> Iterator[Import]:
    """Absolute imports in `tree`, each marked module-level or optional."""

    def visit(node: ast.AST, module_level: bool) -> Iterator[Import]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(alias.name.split(".")[0], file, node.lineno, module_level)
            return
        if isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                yield Import(node.module.split(".")[0], file, node.lineno, module_level)
            return
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            module_level = False
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                yield from visit(child, False)
            for child in node.orelse:
                yield from visit(child, module_level)
            return
        if isinstance(node, ast.Try) and _guards_import_error(node):
            for child in node.body:
                yield from visit(child, False)
            for part in (node.handlers, node.orelse, node.finalbody):
                for child in part:
                    yield from visit(child, module_level)
            return
        for child in ast.iter_child_nodes(node):
            yield from visit(child, module_level)

    yield from visit(tree, True)


def installed_package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations, f"{package} is not installed"
    return Path(next(iter(spec.submodule_search_locations)))


def first_party_imports() -> list[tuple[str, Import]]:
    found = []
    for package in FIRST_PARTY:
        root = installed_package_dir(package)
        for path in sorted(root.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            where = f"{package}/{path.relative_to(root)}"
            found += [(package, imp) for imp in imports_of(tree, where)]
    return found


def declared() -> tuple[set[str], dict[str, set[str]]]:
    """(base dependencies, {extra: its dependencies}) from pyproject.toml, as canonical
    distribution names; an extra naming the project's own extras (all = [...]) is expanded.
    The source, not an installed copy's metadata: that is what a fresh install gets."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == DISTRIBUTION
    base = {canonicalize_name(Requirement(r).name) for r in project["dependencies"]}
    raw: dict[str, list[str]] = project.get("optional-dependencies", {})

    def expand(extra: str, seen: frozenset[str] = frozenset()) -> set[str]:
        names: set[str] = set()
        for text in raw[extra]:
            requirement = Requirement(text)
            if canonicalize_name(requirement.name) == DISTRIBUTION:
                for inner in requirement.extras - seen:
                    names |= expand(inner, seen | {extra})
            else:
                names.add(canonicalize_name(requirement.name))
        return names

    return base, {extra: expand(extra) for extra in raw}


@functools.cache
def _distributions() -> dict[str, list[str]]:
    return md.packages_distributions()


def distributions_of(module: str) -> set[str]:
    return {canonicalize_name(d) for d in _distributions().get(module, [])}


def problems(imports: list[tuple[str, Import]]) -> list[str]:
    base, extras = declared()
    every_extra = set().union(*extras.values())
    found = []
    for package, imp in imports:
        if imp.module in sys.stdlib_module_names or imp.module == "arena":
            continue
        dists = distributions_of(imp.module)
        if not dists:
            found.append(f"{imp.file}:{imp.line}: '{imp.module}' belongs to no installed package")
            continue
        allowed = base | extras.get(extra_of(package, imp.file), set())
        if not imp.module_level:
            allowed = base | every_extra
        if not dists & allowed:
            need = "a base dependency" if imp.module_level else "a dependency or in an extra"
            found.append(
                f"{imp.file}:{imp.line}: '{imp.module}' (from {', '.join(sorted(dists))}) "
                f"must be {need} in pyproject.toml"
            )
    return found


def test_every_imported_package_is_declared() -> None:
    imports = first_party_imports()
    assert len({imp.file for _, imp in imports}) > 50  # the scan saw the code base
    assert problems(imports) == []


def test_the_judge_stack_is_in_the_base_dependencies() -> None:
    base, extras = declared()
    assert {"torch", "transformers", "tokenizers", "safetensors", "typer"} <= base
    assert "click" not in base | set().union(*extras.values())  # typer vendors it


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import yaml\n", ["'yaml' (from pyyaml) must be a base dependency"]),
        ("from pytest import fixture\n", ["'pytest' (from pytest) must be a base dependency"]),
        ("def f():\n    import pytest\n", []),  # optional: pytest is in the dev extra
        ("def f():\n    import yaml\n", ["'yaml' (from pyyaml) must be a dependency or in an extra"]),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pytest\n", []),
        ("try:\n    import pytest\nexcept ImportError:\n    pytest = None\n", []),
        ("import os, json\nfrom arena import errors\n", []),
        ("import no_such_module_anywhere\n", ["'no_such_module_anywhere' belongs to no"]),
    ],
)
def test_an_undeclared_import_is_caught(source: str, expected: list[str]) -> None:
    if "yaml" in source and not distributions_of("yaml"):
        pytest.fail("this check needs PyYAML installed (a dependency of the dev tools)")
    found = problems([("arena", imp) for imp in imports_of(ast.parse(source), "arena/x.py")])
    assert len(found) == len(expected)
    for message, part in zip(found, expected, strict=True):
        assert part in message, message


def test_the_dashboard_may_use_its_own_extra_at_module_level() -> None:
    found = problems([("arena.dashboard", imp) for imp in imports_of(ast.parse("import streamlit\n"), "d.py")])
    assert found == []
    found = problems([("arena", imp) for imp in imports_of(ast.parse("import streamlit\n"), "a.py")])
    assert found and "must be a base dependency" in found[0]


def test_the_read_model_may_use_the_dashboard_extra_but_not_the_rest_of_storage() -> None:
    pandas = imports_of(ast.parse("import pandas\n"), "arena/storage/read_model/x.py")
    assert problems([("arena", imp) for imp in pandas]) == []
    elsewhere = imports_of(ast.parse("import pandas\n"), "arena/storage/x.py")
    found = problems([("arena", imp) for imp in elsewhere])
    assert found and "must be a base dependency" in found[0]
