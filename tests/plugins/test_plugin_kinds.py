"""A plugin kind is one declaration plus its hookspec (issue 23): a toy kind declared in this
test is indexed, listed, built, checked and reported by the generic registry and `arena
plugins`, through a real pluggy plugin, with no registry code written for it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import pytest

from arena.cli.commands.plugins import report
from arena.errors import ConfigError, PluginError, UnknownNameError
from arena.plugins.hookspecs import hookimpl, hookspec
from arena.plugins.kinds import KINDS, PLAYERS, PluginKind
from arena.plugins.plugin_manager import ArenaPluginManager, create_plugin_manager
from arena.plugins.registry import Registry
from arena.spec_params import Param, SpecParams
from arena.specs import Spec


@runtime_checkable
class Toy(Protocol):
    def squeak(self) -> str: ...


@dataclass(frozen=True)
class ToyEntry:
    name: str
    factory: Callable[[Spec, int], object]
    description: str = ""
    params: SpecParams | None = None
    check: Callable[[Spec], object] | None = None


# The whole declaration of the new kind.
TOYS: PluginKind[ToyEntry, Toy] = PluginKind("toys", "arena_toys", ToyEntry, "toy", Toy)


class ToySpecs:
    """The kind's hookspec."""

    @hookspec
    def arena_toys(self) -> list[ToyEntry]:  # type: ignore[empty-body]
        """Return the toys this plugin provides."""


class Duck:
    def __init__(self, spec: Spec, times: int) -> None:
        self.text = "quack" * spec.int_param("volume", 1) * times

    def squeak(self) -> str:
        return self.text


def refuse_gold(spec: Spec) -> None:
    if spec.arg == "gold":
        raise ConfigError(f"Toy '{spec.raw}' cannot be gold; write duck:rubber.")


DUCK = ToyEntry(
    "duck", Duck, "a rubber duck",
    SpecParams(arg="what it is made of", params=(Param("volume", "int", 1, "how loud", 1),)),
    check=refuse_gold,
)


class ToyBox:
    @hookimpl
    def arena_toys(self) -> list[object]:
        return [DUCK, ToyEntry("brick", lambda spec, times: object()), "not an entry"]


class SecondBox:
    @hookimpl
    def arena_toys(self) -> list[ToyEntry]:
        return [ToyEntry("duck", Duck), ToyEntry("kite", Duck)]


@pytest.fixture
def pm() -> ArenaPluginManager:
    manager = create_plugin_manager(load_entrypoints=False)
    manager.add_hookspecs(ToySpecs)
    assert manager.register_plugin(ToyBox(), "toybox", dist="toy-dist", version="1.0")
    assert manager.register_plugin(SecondBox(), "second")
    return manager


def test_a_declared_kind_is_indexed_built_and_checked(pm: ArenaPluginManager) -> None:
    registry = Registry.from_plugin_manager(pm, (*KINDS, TOYS))
    assert registry.names(TOYS) == ["brick", "duck", "kite"]
    assert registry.entry(TOYS, "duck") is DUCK
    assert registry.plugin_of(TOYS, "kite") == "second"
    duck = registry.create(TOYS, "duck:rubber?volume=2", 3)
    assert isinstance(duck, Duck) and duck.squeak() == "quack" * 6
    registry.check(TOYS, "duck:rubber")
    with pytest.raises(ConfigError, match="cannot be gold"):
        registry.check(TOYS, "duck:gold")
    with pytest.raises(ConfigError, match="volume"):  # the declared parameters
        registry.create(TOYS, "duck?volume=loud", 1)
    with pytest.raises(PluginError, match="does not implement the Toy protocol"):
        registry.create(TOYS, "brick", 1)
    with pytest.raises(UnknownNameError) as unknown:
        registry.create(TOYS, "swan", 1)
    assert "toy" in str(unknown.value) and "duck" in str(unknown.value)


def test_a_declared_kind_reports_failures_clashes_and_provides(pm: ArenaPluginManager) -> None:
    registry = Registry.from_plugin_manager(pm, (*KINDS, TOYS))
    errors = [(f.name, f.error) for f in registry.failures()]
    assert ("toybox", "arena_toys returned a str, expected ToyEntry") in errors
    assert any(
        name == "second" and "toy 'duck' is already provided by plugin 'toybox'" in error
        for name, error in errors
    )
    infos = {info.name: info for info in registry.plugins()}
    assert infos["toybox"].provides["toys"] == ("duck", "brick")
    assert infos["second"].provides["toys"] == ("kite",)
    document = report(registry)  # `arena plugins --json` lists the new kind unasked
    toybox = next(p for p in document["plugins"] if p["name"] == "toybox")
    assert toybox["toys"] == ["duck", "brick"] and toybox["dist"] == "toy-dist"
    assert "volume" in document["specs"]["toys"]["duck"]


def test_a_registry_without_the_kind_says_so(pm: ArenaPluginManager) -> None:
    registry = Registry.from_plugin_manager(pm)
    assert "toys" not in registry.plugins()[0].provides
    with pytest.raises(PluginError, match="does not index toys"):
        registry.names(TOYS)
    assert registry.names(PLAYERS) == []


def test_every_registration_hook_is_a_declared_kind_and_back() -> None:
    """Each kind names a hookspec, and each hookspec that returns entries has a kind (only
    the event observer is not one), so a new hook cannot be forgotten by the registry."""
    from arena.plugins import hookspecs

    specs = {name for name in dir(hookspecs) if name.startswith("arena_")}
    assert {kind.hook for kind in KINDS} == specs - {"arena_on_event"}
    assert len({kind.key for kind in KINDS}) == len(KINDS)
    assert len({kind.noun for kind in KINDS}) == len(KINDS)
