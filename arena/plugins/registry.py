"""The registry: every player, judge, game, story source and CLI command the plugins provide.

Built once from a plugin manager (`Registry.from_plugin_manager`), then read-only.
`Registry.load()` discovers the installed plugins once per process: later calls return the
same registry while the allow-list and the installed entry points are unchanged (a plugin
installed or an allow-list set mid-process is seen at the next call); `Registry.forget()`
drops it explicitly. Each
hook implementation is called on its own, so a plugin that raises, returns the wrong type
or registers an invalid entry is recorded as a `PluginFailure` while the rest still load.

Name clashes: plugins are visited in load order (built-ins first, see
`arena.plugins.plugin_manager`); the first plugin to register a name keeps it and each later one
is reported as a conflict failure.
"""

from __future__ import annotations

import importlib.metadata as md
import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pluggy import PluginManager

from arena.errors import ArenaError, PluginError, UnknownNameError
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
from arena.protocols.player import Player
from arena.protocols.sampler import MetaSampler
from arena.protocols.story import StorySource
from arena.spec_params import SpecParams
from arena.specs import Spec, parse_spec

if TYPE_CHECKING:
    import typer

__all__ = ["PluginFailure", "PluginInfo", "Registry"]

FIX = "Install a plugin that provides it, or run `arena plugins` to see what is installed."
E = TypeVar(
    "E",
    PlayerEntry,
    JudgeEntry,
    GameEntry,
    StorySourceEntry,
    ExecutorEntry,
    SamplerEntry,
    FineTunerEntry,
)
T = TypeVar("T")


@dataclass(frozen=True)
class PluginInfo:
    """A loaded plugin, where it comes from and the names it registers."""

    name: str
    dist: str = ""
    version: str = ""
    players: tuple[str, ...] = ()
    judges: tuple[str, ...] = ()
    games: tuple[str, ...] = ()
    story_sources: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    executors: tuple[str, ...] = ()
    samplers: tuple[str, ...] = ()
    finetuners: tuple[str, ...] = ()


@dataclass
class _Provided:
    players: list[str] = field(default_factory=list)
    judges: list[str] = field(default_factory=list)
    games: list[str] = field(default_factory=list)
    story_sources: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    executors: list[str] = field(default_factory=list)
    samplers: list[str] = field(default_factory=list)
    finetuners: list[str] = field(default_factory=list)


class Registry:
    """Names to factories, as registered by the plugins of one plugin manager."""

    def __init__(self, pm: PluginManager) -> None:
        self.plugin_manager = pm
        self._players: dict[str, tuple[str, PlayerEntry]] = {}
        self._judges: dict[str, tuple[str, JudgeEntry]] = {}
        self._games: dict[str, tuple[str, GameEntry]] = {}
        self._sources: dict[str, tuple[str, StorySourceEntry]] = {}
        self._samplers: dict[str, tuple[str, SamplerEntry]] = {}
        self._finetuners: dict[str, tuple[str, FineTunerEntry]] = {}
        self._commands: dict[str, tuple[str, typer.Typer]] = {}
        self._executors: dict[str, tuple[str, ExecutorEntry]] = {}
        self._provided: dict[str, _Provided] = {}
        self._failures: list[PluginFailure] = []

    @classmethod
    def from_plugin_manager(cls, pm: PluginManager) -> Registry:
        """Call every plugin's registration hooks and index what they return."""
        reg = cls(pm)
        for name, plugin in pm.list_name_plugin():
            if plugin is not None:  # None marks a blocked plugin
                reg._provided[name] = _Provided()
        reg._collect("arena_players", "player", PlayerEntry, reg._players, "players")
        reg._collect("arena_judges", "judge", JudgeEntry, reg._judges, "judges")
        reg._collect("arena_games", "game", GameEntry, reg._games, "games")
        reg._collect(
            "arena_story_sources", "story source", StorySourceEntry, reg._sources, "story_sources"
        )
        reg._collect("arena_executors", "executor", ExecutorEntry, reg._executors, "executors")
        reg._collect("arena_samplers", "sampler", SamplerEntry, reg._samplers, "samplers")
        reg._collect(
            "arena_finetuners", "fine-tuner", FineTunerEntry, reg._finetuners, "finetuners"
        )
        reg._collect_commands()
        return reg

    @classmethod
    def load(cls, allow: Collection[str] | None = None) -> Registry:
        """The installed plugins (see `create_plugin_manager`), indexed: discovered once per
        process and allow-list, and again only when the installed entry points change."""
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

    def _collect(
        self,
        hook: str,
        kind: str,
        entry_type: type[E],
        table: dict[str, tuple[str, E]],
        attr: str,
    ) -> None:
        for plugin, entries in self._results(hook):
            for entry in entries:
                if not isinstance(entry, entry_type):
                    self._fail(
                        plugin,
                        f"{hook} returned a {type(entry).__name__}, expected {entry_type.__name__}",
                    )
                    continue
                try:
                    check_name(kind, entry.name)
                except PluginError as exc:
                    self._fail(plugin, str(exc))
                    continue
                params = getattr(entry, "params", None)
                if params is not None and not isinstance(params, SpecParams):
                    self._fail(
                        plugin,
                        f"{kind} '{entry.name}' declares its parameters as a "
                        f"{type(params).__name__}, expected arena.SpecParams; declare them "
                        "with SpecParams(params=(Param(...), ...)) (see plugins/README.md).",
                    )
                    continue
                if self._clash(kind, entry.name, plugin, table):
                    continue
                table[entry.name] = (plugin, entry)
                getattr(self._provided.setdefault(plugin, _Provided()), attr).append(entry.name)

    def _clash(
        self, kind: str, name: str, plugin: str, table: Mapping[str, tuple[str, Any]]
    ) -> bool:
        if name not in table:
            return False
        owner = table[name][0]
        self._fail(
            plugin,
            f"{kind} '{name}' is already provided by plugin '{owner}'; this one is ignored. "
            "Uninstall one of them or ask the author to rename it.",
        )
        return True

    def _collect_commands(self) -> None:
        import typer  # only when some plugin might add commands; typer is slow to import

        for plugin, apps in self._results("arena_cli_commands"):
            for app in apps:
                if not isinstance(app, typer.Typer):
                    self._fail(
                        plugin,
                        f"arena_cli_commands returned a {type(app).__name__}, expected typer.Typer",
                    )
                    continue
                for name in command_names(app):
                    if not self._clash("command", name, plugin, self._commands):
                        self._commands[name] = (plugin, app)
                        self._provided.setdefault(plugin, _Provided()).commands.append(name)

    # ------------------------------------------------------------------ listing

    def player_names(self) -> list[str]:
        return sorted(self._players)

    def judge_names(self) -> list[str]:
        return sorted(self._judges)

    def game_names(self) -> list[str]:
        return sorted(self._games)

    def story_source_names(self) -> list[str]:
        return sorted(self._sources)

    def sampler_names(self) -> list[str]:
        return sorted(self._samplers)

    def finetuner_names(self) -> list[str]:
        return sorted(self._finetuners)

    def command_names(self) -> list[str]:
        return sorted(self._commands)

    def executor_names(self) -> list[str]:
        return sorted(self._executors)

    def plugins(self) -> list[PluginInfo]:
        """Every registered plugin, in load order, with what it provides."""
        infos = []
        for name, got in self._provided.items():
            dist, version = self._origin(name)
            infos.append(
                PluginInfo(
                    name, dist, version, tuple(got.players), tuple(got.judges),
                    tuple(got.games), tuple(got.story_sources), tuple(got.commands),
                    tuple(got.executors),
                    tuple(got.samplers),
                    tuple(got.finetuners),
                )
            )
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
        """Whether player `name` comes from the arena's own built-in plugins (recognised
        by distribution and module, see `arena.plugins.plugin_manager`), not a third party."""
        plugin = _lookup(self._players, "player", name)[0]
        pm = self.plugin_manager
        origin = pm.origins.get(plugin) if isinstance(pm, ArenaPluginManager) else None
        return origin is not None and origin.builtin

    def player_plugin(self, name: str) -> tuple[str, str]:
        """The plugin that registered player `name` and its distribution."""
        plugin = _lookup(self._players, "player", name)[0]
        return plugin, self._origin(plugin)[0]

    def player_entry(self, name: str) -> PlayerEntry:
        return _lookup(self._players, "player", name)[1]

    def judge_entry(self, name: str) -> JudgeEntry:
        return _lookup(self._judges, "judge", name)[1]

    def story_source_entry(self, name: str) -> StorySourceEntry:
        return _lookup(self._sources, "story source", name)[1]

    def sampler_entry(self, name: str) -> SamplerEntry:
        return _lookup(self._samplers, "sampler", name)[1]

    def executor_entry(self, name: str) -> ExecutorEntry:
        return _lookup(self._executors, "executor", name)[1]

    def game(self, name: str) -> GameEntry:
        return _lookup(self._games, "game", name)[1]

    def cli_commands(self) -> list[typer.Typer]:
        """The plugins' typer apps, each once, in load order."""
        apps: list[typer.Typer] = []
        for _, app in self._commands.values():
            if all(app is not seen for seen in apps):
                apps.append(app)
        return apps

    def create_player(self, spec: str | Spec, ctx: PlayerContext | None = None) -> Player:
        """Build a player for one seat from its spec, e.g. ``random?words=5``."""
        parsed = _as_spec(spec)
        plugin, entry = _lookup(self._players, "player", parsed.name)
        _validate(entry.params, parsed, "player")
        context = ctx or PlayerContext()
        made = _build("player", plugin, parsed, lambda: entry.factory(parsed, context))
        if not isinstance(made, Player):
            raise _not_protocol("player", plugin, parsed, made, "Player")
        return made

    def check_spec(self, kind: str, spec: str | Spec) -> None:
        """Check a player or judge spec (`kind` "player" or "judge") without building it:
        its name is registered and its entry's `check` accepts its arg and parameters.
        Raises `UnknownNameError` or the entry's `ConfigError`."""
        parsed = _as_spec(spec)
        if kind == "player":
            plugin, player_entry = _lookup(self._players, kind, parsed.name)
            _validate(player_entry.params, parsed, kind)
            check = player_entry.check
        else:
            plugin, judge_entry = _lookup(self._judges, kind, parsed.name)
            _validate(judge_entry.params, parsed, kind)
            check = judge_entry.check
        if check is not None:
            _build(kind, plugin, parsed, lambda: check(parsed))

    def create_judge(self, spec: str | Spec) -> Judge:
        """Build a judge from its spec, e.g. ``ngram?order=3``."""
        parsed = _as_spec(spec)
        plugin, entry = _lookup(self._judges, "judge", parsed.name)
        _validate(entry.params, parsed, "judge")
        made = _build("judge", plugin, parsed, lambda: entry.factory(parsed))
        if not isinstance(made, Judge):
            raise _not_protocol("judge", plugin, parsed, made, "Judge")
        return made

    def create_story_source(self, spec: str | Spec, judge: Judge | None = None) -> StorySource:
        """Build a story source from its spec."""
        parsed = _as_spec(spec)
        plugin, entry = _lookup(self._sources, "story source", parsed.name)
        _validate(entry.params, parsed, "story source")
        made = _build("story source", plugin, parsed, lambda: entry.factory(parsed, judge))
        if not isinstance(made, StorySource):
            raise _not_protocol("story source", plugin, parsed, made, "StorySource")
        return made

    def create_sampler(self, spec: str | Spec) -> MetaSampler:
        """Build a meta-sampler from its spec, e.g. ``mutate?ops=length``."""
        parsed = _as_spec(spec)
        plugin, entry = _lookup(self._samplers, "sampler", parsed.name)
        _validate(entry.params, parsed, "sampler")
        made = _build("sampler", plugin, parsed, lambda: entry.factory(parsed))
        if not isinstance(made, MetaSampler):
            raise _not_protocol("sampler", plugin, parsed, made, "MetaSampler")
        return made


    def finetuner_entry(self, name: str) -> FineTunerEntry:
        return _lookup(self._finetuners, "fine-tuner", name)[1]

    def create_finetuner(self, spec: str | Spec) -> FineTuner:
        """Build a fine-tuning mechanism from its spec, e.g. ``reinforce?lr=1e-4&batch=4``."""
        parsed = _as_spec(spec)
        plugin, entry = _lookup(self._finetuners, "fine-tuner", parsed.name)
        _validate(entry.params, parsed, "fine-tuner")
        made = _build("fine-tuner", plugin, parsed, lambda: entry.factory(parsed))
        if not isinstance(made, FineTuner):
            raise _not_protocol("fine-tuner", plugin, parsed, made, "FineTuner")
        return made


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


def _as_spec(spec: str | Spec) -> Spec:
    return spec if isinstance(spec, Spec) else parse_spec(spec)


def _validate(params: SpecParams | None, spec: Spec, kind: str) -> None:
    """Check `spec` against its entry's declared parameters, if it declares them."""
    if params is not None:
        params.validate(spec, kind)


def _lookup(table: Mapping[str, tuple[str, E]], kind: str, name: str) -> tuple[str, E]:
    if name not in table:
        raise UnknownNameError(kind, name, table.keys(), fix=FIX)
    return table[name]


def _build(kind: str, plugin: str, spec: Spec, make: Callable[[], T]) -> T:
    """Run a factory; our own errors pass through, anything else names the plugin."""
    try:
        return make()
    except ArenaError:
        raise
    except Exception as exc:
        raise PluginError(
            f"Plugin '{plugin}' failed to create {kind} '{spec.raw}': "
            f"{type(exc).__name__}: {exc}. Check the spec's parameters or report it to the "
            "plugin's author."
        ) from exc


def _not_protocol(kind: str, plugin: str, spec: Spec, made: object, protocol: str) -> PluginError:
    return PluginError(
        f"Plugin '{plugin}' returned a {type(made).__name__} for {kind} '{spec.raw}', "
        f"which does not implement the {protocol} protocol."
    )


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
