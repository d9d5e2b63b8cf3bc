"""Every hook has a documented contract and is exercised by some test."""

from __future__ import annotations

import inspect
from pathlib import Path

from arena.plugins import hookspecs

TESTS = Path(__file__).resolve().parent.parent


def hook_specs() -> dict[str, object]:
    marker = f"{hookspecs.PROJECT_NAME}_spec"
    return {
        name: obj
        for name, obj in vars(hookspecs).items()
        if inspect.isfunction(obj) and hasattr(obj, marker)
    }


def test_the_nine_hooks_exist() -> None:
    assert set(hook_specs()) == {
        "arena_players", "arena_judges", "arena_games", "arena_story_sources",
        "arena_executors", "arena_samplers", "arena_finetuners", "arena_cli_commands",
        "arena_on_event",
    }


def test_every_hookspec_has_a_docstring() -> None:
    for name, func in hook_specs().items():
        doc = inspect.getdoc(func) or ""
        assert len(doc.split()) >= 10, f"{name} needs a docstring stating its contract"


def test_every_hookspec_is_exercised_by_a_test() -> None:
    me = Path(__file__).resolve()
    texts = [p.read_text(encoding="utf-8") for p in TESTS.rglob("*.py") if p.resolve() != me]
    for name in hook_specs():
        assert any(f"def {name}(" in text for text in texts), f"no test implements {name}"
