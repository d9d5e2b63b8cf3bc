"""The registry: what the plugins provide, one table per plugin kind (`arena.plugins.kinds`:
players, judges, games, story sources, executors, samplers, fine-tuners, CLI commands).

Built once from a plugin manager (`Registry.from_plugin_manager`), then read-only, and passed
down: the `arena` command builds one per process and hands it to its commands
(`arena.cli.context`); library code takes it as a parameter. `Registry.load()` is the entry
point for a program that has none: it discovers the installed plugins once per process and
returns the same registry while the allow-list and the installed entry points are unchanged
(a plugin installed or an allow-list set mid-process is seen at the next call);
`Registry.forget()` drops it. Each hook implementation is called on its own, so a plugin
that raises, returns the wrong type or registers an invalid entry is recorded as a
`PluginFailure` while the rest still load.

Name clashes: plugins are visited in load order (built-ins first, see
`arena.plugins.plugin_manager`); the first plugin to register a name keeps it and each later
one is reported as a conflict failure.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib.metadata as md
import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pluggy import PluginManager

from arena.errors import ArenaError, PluginError, UnknownNameError
from arena.plugins.kinds import (
    COMMANDS,
    EXECUTORS,
    FINETUNERS,
    GAMES,
    JUDGES,
    KINDS,
    PLAYERS,
    SAMPLERS,
    STORY_SOURCES,
    PluginKind,
    command_names,
)
from arena.plugins.plugin_manager import (
    ALLOW_ENV,
    ENTRY_POINT_GROUP,
    ArenaPluginManager,
    PluginFailure,
    create_plugin_manager,
    iter_hook_results,
)
from arena.plugins.plugin_types import (
    ExecutorEntry,
    FineTunerEntry,
    GameEntry,
    JudgeEntry,
    PlayerContext,
    PlayerEntry,
    SamplerEntry,
    StorySourceEntry,
    check_name,
)
from arena.protocols.finetune import FineTuner
from arena.protocols.judge import Judge
from arena.protocols.people import PeopleDesk
from arena.protocols.player import Player
from arena.protocols.sampler import MetaSampler
from arena.protocols.story import StorySource
from arena.spec_params import SpecParams
from arena.specs import Spec, parse_spec

if TYPE_CHECKING:
    import typer

__all__ = ["PluginFailure", "PluginInfo", "Registry", "command_names"]

FIX = "Install a plugin that provides it, or run `arena plugins` to see what is installed."
E = TypeVar("E")
P = TypeVar("P")
T = TypeVar("T")


@dataclass(frozen=True)
class PluginInfo:
    """A loaded plugin, where it comes from and the names it registers (`provides`: kind
    key -> names, every kind of the registry present)."""

    name: str
    dist: str = ""
    version: str = ""
    provides: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The `arena plugins --json` form: name, dist, version and one list per kind."""
        return {
            "name": self.name, "dist": self.dist, "version": self.version,
            **{key: list(names) for key, names in self.provides.items()},
        }


class Registry:
    """Names to entries, one table per plugin kind (`arena.plugins.kinds`), as registered by
    the plugins of one plugin manager.

    The generic methods (`names`, `entry`, `create`, `check`, ...) take the kind; the
    per-kind ones (`create_player`, `judge_names`, ...) are one-line names over them, kept
    because the conformance kit (`arena.testing`) and most callers read better with them.
    A new kind needs none of them."""

    def __init__(self, pm: PluginManager, kinds: Sequence[PluginKind[Any, Any]] = KINDS) -> None:
        self.plugin_manager = pm
        self.kinds = tuple(kinds)
        self._tables: dict[str, dict[str, tuple[str, Any]]] = {k.key: {} for k in self.kinds}
        self._provided: dict[str, dict[str, list[str]]] = {}  # plugin -> kind key -> names
        self._failures: list[PluginFailure] = []
        self._desk: PeopleDesk | None = None

    @classmethod
    def from_plugin_manager(
        cls, pm: PluginManager, kinds: Sequence[PluginKind[Any, Any]] = KINDS
    ) -> Registry:
        """Call every plugin's hook of each kind and index what they return."""
        reg = cls(pm, kinds)
        for name, plugin in pm.list_name_plugin():
            if plugin is not None:  # None marks a blocked plugin
                reg._provided[name] = {}
        for kind in reg.kinds:
            reg._collect(kind)
        return reg

    @classmethod
    def load(cls, allow: Collection[str] | None = None) -> Registry:
        """The installed plugins (see `create_plugin_manager`), indexed: discovered once per
        process and allow-list, and again only when the installed entry points change.

        The entry point for library code that was handed no registry; the `arena` command
        builds one at start and passes it down (`arena.cli.context`)."""
        key = _discovery_key(allow)
        found = _LOADED.get(key)
        if found is None:
            found = cls.from_plugin_manager(create_plugin_manager(allow=allow))
            _LOADED.clear()  # keep one: an older discovery is never asked for again
            _LOADED[key] = found
        return found

    @staticmethod
    def forget() -> None:
        """Drop the process's discovered registry: the next `load` discovers again."""
        _LOADED.clear()

    def with_desk(self, desk: PeopleDesk) -> Registry:
        """This registry (the same tables) lending `desk` to every player it builds
        (`PlayerContext.desk`): how the play server hands its desk to the people's seats
        of the runs it starts, through the ordinary run path."""
        lent = copy.copy(self)
        lent._desk = desk
        return lent

    @property
    def desk(self) -> PeopleDesk | None:
        """The desk this registry lends to the players it builds (None: none)."""
        return self._desk

    # ------------------------------------------------------------------ building

    def _origin(self, plugin: str) -> tuple[str, str]:
        pm = self.plugin_manager
        if isinstance(pm, ArenaPluginManager) and plugin in pm.origins:
            origin = pm.origins[plugin]
            return origin.dist, origin.version
        return "", ""

    def _fail(self, plugin: str, error: str) -> None:
        dist, version = self._origin(plugin)
        self._failures.append(PluginFailure(plugin, dist, version, error))

    def _results(self, hook: str) -> list[tuple[str, list[Any]]]:
        """Each plugin's hook result as a list; failures recorded and skipped."""
        out: list[tuple[str, list[Any]]] = []
        for plugin, result, error in iter_hook_results(self.plugin_manager, hook):
            if error is not None:
                self._fail(plugin, f"{hook} raised {type(error).__name__}: {error}")
            elif result is None:
                continue
            elif not isinstance(result, list | tuple):
                self._fail(plugin, f"{hook} returned {type(result).__name__}, expected a list")
            else:
                out.append((plugin, list(result)))
        return out

    def _collect(self, kind: PluginKind[Any, Any]) -> None:
        table = self._tables[kind.key]
        entry_class = None
        for plugin, entries in self._results(kind.hook):
            entry_class = entry_class or kind.entry_class()
            for entry in entries:
                if not isinstance(entry, entry_class):
                    expected = (
                        kind.entry_type.replace(":", ".")
                        if isinstance(kind.entry_type, str) else entry_class.__name__
                    )
                    self._fail(
                        plugin,
                        f"{kind.hook} returned a {type(entry).__name__}, expected {expected}",
                    )
                    continue
                if not self._valid(kind, plugin, entry):
                    continue
                for name in kind.names(entry):
                    if self._clash(kind, name, plugin, table):
                        continue
                    table[name] = (plugin, entry)
                    self._provided.setdefault(plugin, {}).setdefault(kind.key, []).append(name)

    def _valid(self, kind: PluginKind[Any, Any], plugin: str, entry: object) -> bool:
        """Whether the entry's names are valid and its declared parameters a `SpecParams`;
        the reason recorded as a failure otherwise."""
        try:
            for name in kind.names(entry):
                check_name(kind.noun, name)
        except PluginError as exc:
            self._fail(plugin, str(exc))
            return False
        params = getattr(entry, "params", None)
        if params is not None and not isinstance(params, SpecParams):
            self._fail(
                plugin,
                f"{kind.noun} '{getattr(entry, 'name', '?')}' declares its parameters as a "
                f"{type(params).__name__}, expected arena.SpecParams; declare them "
                "with SpecParams(params=(Param(...), ...)) (see plugins/README.md).",
            )
            return False
        return True

    def _clash(
        self, kind: PluginKind[Any, Any], name: str, plugin: str,
        table: Mapping[str, tuple[str, Any]],
    ) -> bool:
        if name not in table:
            return False
        owner = table[name][0]
        self._fail(
            plugin,
            f"{kind.noun} '{name}' is already provided by plugin '{owner}'; this one is "
            "ignored. Uninstall one of them or ask the author to rename it.",
        )
        return True

    # ------------------------------------------------------------------ any kind

    def _table(self, kind: PluginKind[E, Any]) -> Mapping[str, tuple[str, E]]:
        try:
            return self._tables[kind.key]
        except KeyError:
            raise PluginError(
                f"This registry does not index {kind.plural} (its kinds: "
                f"{', '.join(k.key for k in self.kinds)}); build it with that kind."
            ) from None

    def _lookup(self, kind: PluginKind[E, Any], name: str) -> tuple[str, E]:
        table = self._table(kind)
        if name not in table:
            raise UnknownNameError(kind.noun, name, table.keys(), fix=FIX)
        return table[name]

    def names(self, kind: PluginKind[Any, Any]) -> list[str]:
        """The registered names of `kind`, sorted."""
        return sorted(self._table(kind))

    def entry(self, kind: PluginKind[E, Any], name: str) -> E:
        """The entry registered as `name`; `UnknownNameError` listing the others if none."""
        return self._lookup(kind, name)[1]

    def entries(self, kind: PluginKind[E, Any]) -> list[E]:
        """Each entry of `kind` once, in load order (an entry may hold several names)."""
        found: list[E] = []
        for _, entry in self._table(kind).values():
            if all(entry is not seen for seen in found):
                found.append(entry)
        return found

    def plugin_of(self, kind: PluginKind[Any, Any], name: str) -> str:
        """The plugin that registered `name`."""
        return self._lookup(kind, name)[0]

    def is_builtin(self, kind: PluginKind[Any, Any], name: str) -> bool:
        """Whether `name` comes from the arena's own built-in plugins (recognised by
        distribution and module, see `arena.plugins.plugin_manager`), not a third party."""
        plugin = self.plugin_of(kind, name)
        pm = self.plugin_manager
        origin = pm.origins.get(plugin) if isinstance(pm, ArenaPluginManager) else None
        return origin is not None and origin.builtin

    def check(self, kind: PluginKind[Any, Any], spec: str | Spec) -> None:
        """Check a spec without building anything: its name is registered, it fits the
        entry's declared parameters and the entry's `check` (if any) accepts it.
        Raises `UnknownNameError` or the entry's `ConfigError`."""
        plugin, entry, parsed = self._resolve(kind, spec)
        check = getattr(entry, "check", None)
        if check is not None:
            _build(kind, plugin, parsed.raw, lambda: check(parsed))

    def create(self, kind: PluginKind[Any, P], spec: str | Spec, *args: object) -> P:
        """Build one thing of `kind`: its entry's factory called with the parsed spec (for a
        "spec" kind) and `args`; the product is checked against the kind's protocol."""
        plugin, entry, parsed = self._resolve(kind, spec)
        factory = entry.factory
        if kind.spec_rule == "spec":
            made = _build(kind, plugin, parsed.raw, lambda: factory(parsed, *args))
        else:
            made = _build(kind, plugin, parsed.raw, lambda: factory(*args))
        if kind.protocol is not None and not isinstance(made, kind.protocol):
            raise PluginError(
                f"Plugin '{plugin}' returned a {type(made).__name__} for {kind.noun} "
                f"'{parsed.raw}', which does not implement the {kind.protocol.__name__} protocol."
            )
        return cast(P, made)

    def _resolve(self, kind: PluginKind[Any, Any], spec: str | Spec) -> tuple[str, Any, Spec]:
        """(plugin, entry, spec) for a user's text, read by the kind's spec rule and
        validated against the entry's declared parameters."""
        if isinstance(spec, Spec):
            parsed = spec
        elif kind.spec_rule == "spec":
            parsed = parse_spec(spec)
        else:
            parsed = Spec(spec, raw=spec)
        plugin, entry = self._lookup(kind, parsed.name)
        params = getattr(entry, "params", None)
        if params is not None:
            params.validate(parsed, kind.noun)
        return plugin, entry, parsed

    # ------------------------------------------------------------------ listing

    def player_names(self) -> list[str]:
        return self.names(PLAYERS)

    def judge_names(self) -> list[str]:
        return self.names(JUDGES)

    def game_names(self) -> list[str]:
        return self.names(GAMES)

    def story_source_names(self) -> list[str]:
        return self.names(STORY_SOURCES)

    def sampler_names(self) -> list[str]:
        return self.names(SAMPLERS)

    def finetuner_names(self) -> list[str]:
        return self.names(FINETUNERS)

    def command_names(self) -> list[str]:
        return self.names(COMMANDS)

    def executor_names(self) -> list[str]:
        return self.names(EXECUTORS)

    def plugins(self) -> list[PluginInfo]:
        """Every registered plugin, in load order, with what it provides."""
        infos = []
        for name, got in self._provided.items():
            dist, version = self._origin(name)
            provides = {kind.key: tuple(got.get(kind.key, ())) for kind in self.kinds}
            infos.append(PluginInfo(name, dist, version, provides))
        return infos

    def failures(self) -> list[PluginFailure]:
        """Plugins that failed to load, and entries that failed to register."""
        pm = self.plugin_manager
        loading = pm.load_failures if isinstance(pm, ArenaPluginManager) else []
        return [*loading, *self._failures]

    def skipped(self) -> list[str]:
        """Entry points left out by the allow-list."""
        pm = self.plugin_manager
        return list(pm.skipped) if isinstance(pm, ArenaPluginManager) else []

    # ------------------------------------------------------------------ lookups

    def player_is_builtin(self, name: str) -> bool:
        return self.is_builtin(PLAYERS, name)

    def player_plugin(self, name: str) -> tuple[str, str]:
        """The plugin that registered player `name` and its distribution."""
        plugin = self.plugin_of(PLAYERS, name)
        return plugin, self._origin(plugin)[0]

    def player_entry(self, name: str) -> PlayerEntry:
        return self.entry(PLAYERS, name)

    def judge_entry(self, name: str) -> JudgeEntry:
        return self.entry(JUDGES, name)

    def story_source_entry(self, name: str) -> StorySourceEntry:
        return self.entry(STORY_SOURCES, name)

    def sampler_entry(self, name: str) -> SamplerEntry:
        return self.entry(SAMPLERS, name)

    def finetuner_entry(self, name: str) -> FineTunerEntry:
        return self.entry(FINETUNERS, name)

    def executor_entry(self, name: str) -> ExecutorEntry:
        return self.entry(EXECUTORS, name)

    def game(self, name: str) -> GameEntry:
        return self.entry(GAMES, name)

    def cli_commands(self) -> list[typer.Typer]:
        """The plugins' typer apps, each once, in load order."""
        return self.entries(COMMANDS)

    def check_spec(self, kind: str, spec: str | Spec) -> None:
        """`check` for the kind whose noun is `kind` ("player", "judge", ...)."""
        self.check(self._kind_named(kind), spec)

    def _kind_named(self, noun: str) -> PluginKind[Any, Any]:
        for kind in self.kinds:
            if kind.noun == noun:
                return kind
        raise UnknownNameError("plugin kind", noun, [k.noun for k in self.kinds])

    def create_player(self, spec: str | Spec, ctx: PlayerContext | None = None) -> Player:
        """Build a player for one seat from its spec, e.g. ``random?words=5``; a context
        without a desk gets this registry's (`with_desk`)."""
        ctx = ctx or PlayerContext()
        if ctx.desk is None and self._desk is not None:
            ctx = dataclasses.replace(ctx, desk=self._desk)
        return self.create(PLAYERS, spec, ctx)

    def create_judge(self, spec: str | Spec) -> Judge:
        """Build a judge from its spec, e.g. ``ngram?order=3``."""
        return self.create(JUDGES, spec)

    def create_story_source(self, spec: str | Spec, judge: Judge | None = None) -> StorySource:
        """Build a story source from its spec."""
        return self.create(STORY_SOURCES, spec, judge)

    def create_sampler(self, spec: str | Spec) -> MetaSampler:
        """Build a meta-sampler from its spec, e.g. ``mutate?ops=length``."""
        return self.create(SAMPLERS, spec)

    def create_finetuner(self, spec: str | Spec) -> FineTuner:
        """Build a fine-tuning mechanism from its spec, e.g. ``reinforce?lr=1e-4&batch=4``;
        it builds the players of a game's other roles with this registry."""
        return self.create(FINETUNERS, spec, self)


def _build(kind: PluginKind[Any, Any], plugin: str, raw: str, make: Callable[[], T]) -> T:
    """Run a factory; our own errors pass through, anything else names the plugin."""
    try:
        return make()
    except ArenaError:
        raise
    except Exception as exc:
        raise PluginError(
            f"Plugin '{plugin}' failed to create {kind.noun} '{raw}': "
            f"{type(exc).__name__}: {exc}. Check the spec's parameters or report it to the "
            "plugin's author."
        ) from exc


_DiscoveryKey = tuple[tuple[str, ...] | None, tuple[tuple[str, str], ...]]
_LOADED: dict[_DiscoveryKey, Registry] = {}


def _discovery_key(allow: Collection[str] | None) -> _DiscoveryKey:
    """What a discovery depends on: the allow-list (the argument, else the environment) and
    the installed entry points (a cheap read of the distributions' metadata)."""
    listed = os.environ.get(ALLOW_ENV) if allow is None else None
    allowed = tuple(sorted(allow)) if allow is not None else (
        None if listed is None else (listed,)
    )
    points = md.entry_points(group=ENTRY_POINT_GROUP)
    return allowed, tuple(sorted((ep.name, ep.value) for ep in points))
