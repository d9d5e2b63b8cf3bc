"""The plugin kinds: each thing a plugin may register, described once.

A `PluginKind` names its hook, the entry type the hook returns, the protocol its factory's
product must satisfy, the noun messages use and the rule for reading a user's text. The
registry (`arena.plugins.registry`) keeps one table per kind and has no code of its own for
any kind, so adding a kind is one declaration here (appended to `KINDS`) plus its hookspec
in `arena.plugins.hookspecs`; the registry, `arena plugins` and its `--json` follow.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, cast

from arena.plugins import plugin_types as entries
from arena.protocols.finetune import FineTuner
from arena.protocols.judge import Judge
from arena.protocols.player import Player
from arena.protocols.sampler import MetaSampler
from arena.protocols.story import StorySource

if TYPE_CHECKING:
    import typer

E = TypeVar("E")  # the entry type a kind's hook returns
P = TypeVar("P")  # what an entry's factory builds (object where nothing is checked)

SpecRule = Literal["spec", "name"]
"""How a user names one: "spec" is ``name[:arg][?key=value&...]`` (`arena.specs`), checked
against the entry's declared `params` and passed to its factory; "name" is the bare name."""


def entry_name(entry: Any) -> list[str]:
    """The names an ordinary entry registers: its `name`."""
    return [entry.name]


def command_names(app: typer.Typer, *, mounted: bool = True) -> list[str]:
    """The top-level names a typer app adds when mounted: its group name if it has one,
    else its commands' and groups' names. `mounted=False` lists the latter always (for the
    host app)."""
    if mounted and app.info.name:
        return [str(app.info.name)]
    names = []
    for cmd in app.registered_commands:
        if cmd.name:
            names.append(cmd.name)
        elif cmd.callback is not None:
            names.append(cmd.callback.__name__.replace("_", "-"))
    for group in app.registered_groups:
        if group.name:
            names.append(str(group.name))
        elif group.typer_instance is not None:  # an app mounted without a name: its own
            names += command_names(group.typer_instance)
    return names


@dataclass(frozen=True)
class PluginKind(Generic[E, P]):
    """One kind of plugin entry.

    Attributes:
        key: its field in `PluginInfo.provides` and `arena plugins --json` ("story_sources").
        hook: the hook that returns its entries ("arena_story_sources").
        entry_type: the entry class, or "module:attr" for one imported when first needed
            (typer is slow to import).
        noun: what messages call one ("story source"); the plural is the noun + "s".
        protocol: the runtime-checkable protocol its factory's product must satisfy; None
            when the kind builds nothing the arena can check (games, executors, commands).
        spec_rule: how a user's text names one (see `SpecRule`).
        names: the names one entry registers (a typer app registers its commands').
    """

    key: str
    hook: str
    entry_type: type[E] | str
    noun: str
    protocol: type | None = None
    spec_rule: SpecRule = "spec"
    names: Callable[[E], Sequence[str]] = entry_name

    @property
    def plural(self) -> str:
        return f"{self.noun}s"

    def entry_class(self) -> type[E]:
        """The entry class (imported now when it was given as "module:attr")."""
        if not isinstance(self.entry_type, str):
            return self.entry_type
        module, _, attr = self.entry_type.partition(":")
        return cast("type[E]", getattr(importlib.import_module(module), attr))


PLAYERS: PluginKind[entries.PlayerEntry, Player] = PluginKind(
    "players", "arena_players", entries.PlayerEntry, "player", Player
)
JUDGES: PluginKind[entries.JudgeEntry, Judge] = PluginKind(
    "judges", "arena_judges", entries.JudgeEntry, "judge", Judge
)
GAMES: PluginKind[entries.GameEntry, object] = PluginKind(
    "games", "arena_games", entries.GameEntry, "game", spec_rule="name"
)
STORY_SOURCES: PluginKind[entries.StorySourceEntry, StorySource] = PluginKind(
    "story_sources", "arena_story_sources", entries.StorySourceEntry, "story source", StorySource
)
EXECUTORS: PluginKind[entries.ExecutorEntry, object] = PluginKind(
    "executors", "arena_executors", entries.ExecutorEntry, "executor", spec_rule="name"
)
SAMPLERS: PluginKind[entries.SamplerEntry, MetaSampler] = PluginKind(
    "samplers", "arena_samplers", entries.SamplerEntry, "sampler", MetaSampler
)
FINETUNERS: PluginKind[entries.FineTunerEntry, FineTuner] = PluginKind(
    "finetuners", "arena_finetuners", entries.FineTunerEntry, "fine-tuner", FineTuner
)
COMMANDS: PluginKind[typer.Typer, object] = PluginKind(
    "commands", "arena_cli_commands", "typer:Typer", "command", spec_rule="name",
    names=command_names,
)

KINDS: tuple[PluginKind[Any, Any], ...] = (
    PLAYERS, JUDGES, GAMES, STORY_SOURCES, EXECUTORS, SAMPLERS, FINETUNERS, COMMANDS
)
"""Every kind the arena indexes, in the order `arena plugins` lists them."""
