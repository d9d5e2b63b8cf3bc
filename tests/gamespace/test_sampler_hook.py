"""Meta-samplers are a plugin hook: the built-in `mutate` comes through the `builtin_samplers`
entry point like any plugin's, and a third-party sampler registers the same way."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.errors import PluginError, UnknownNameError
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_manager import create_plugin_manager
from arena.plugins.plugin_types import SamplerEntry
from arena.plugins.registry import Registry
from arena.protocols.sampler import MetaSampler, ParentGame, Proposal
from arena.specs import Spec


class EchoSampler:
    """Proposes the parent itself (a third party's trivial sampler)."""

    def propose(self, parent: ParentGame, count: int, seed: int) -> Iterator[Proposal]:
        for index in range(count):
            yield Proposal(
                f"{parent.name}-echo-{index}", parent.source, parent.filename, parent.name,
                "echo", seed, index, "copy",
            )


class ThirdParty:
    @hookimpl
    def arena_samplers(self) -> list[SamplerEntry]:
        return [
            SamplerEntry("echo", lambda spec: EchoSampler(), "copies"),
            SamplerEntry("broken", lambda spec: object(), "not a sampler"),
        ]


def test_builtin_mutate_is_registered_through_its_entry_point() -> None:
    registry = Registry.load()
    assert "mutate" in registry.sampler_names()
    owner = next(p for p in registry.plugins() if "mutate" in p.provides["samplers"])
    assert owner.name == "builtin_samplers" and owner.dist == "xent-arena"
    assert isinstance(registry.create_sampler("mutate?ops=length"), MetaSampler)


def test_a_third_party_sampler_registers_beside_the_builtin() -> None:
    pm = create_plugin_manager()
    pm.register_plugin(ThirdParty(), "third_party")
    registry = Registry.from_plugin_manager(pm)
    assert {"mutate", "echo", "broken"} <= set(registry.sampler_names())
    sampler = registry.create_sampler(Spec("echo"))
    parent = ParentGame("g", "1", "g.xgl", "elicit(t, 3)\nreward(xent(t))\n")
    assert [p.name for p in sampler.propose(parent, 2, 0)] == ["g-echo-0", "g-echo-1"]
    with pytest.raises(PluginError, match="does not implement the MetaSampler protocol"):
        registry.create_sampler("broken")
    with pytest.raises(UnknownNameError):
        registry.create_sampler("mutat")
