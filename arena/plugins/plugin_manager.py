"""Plugin discovery: one pluggy `PluginManager`, built on demand, never at import time.

Discovery loads the entry points of group ``xent_arena`` one at a time. A plugin that fails
to import or to register is recorded as a `PluginFailure` and skipped; the others load.

Built-ins are the project's own plugin modules, listed once in `BUILTINS` (name -> module) and
registered by import, so they load in a checkout that was never installed too; the
``xent-arena`` distribution also declares them as entry points (the same names and modules,
checked by a test), which discovery recognises by distribution and module, never by the name
alone (any third party may choose a ``builtin_*`` name), and does not load a second time.

Order: the built-in plugins load first, then the others sorted by entry-point name, so
the registry's "first plugin keeps a clashing name" rule always favours the built-ins.

Allow-list: the environment variable ``XENT_ARENA_PLUGINS`` (or the ``allow`` argument,
which takes precedence) is a comma-separated list of entry-point names. When it is unset or
empty every plugin loads. When it is set, only the listed third-party plugins load; the
built-ins always load unless the list contains ``-builtin``. Listed names that are not
installed are reported as failures.
"""

from __future__ import annotations

import importlib
import importlib.metadata as md
import logging
import os
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from types import MappingProxyType
from typing import Any

from pluggy import PluginManager

from arena.events import Event
from arena.plugins import hookspecs

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "xent_arena"
ALLOW_ENV = "XENT_ARENA_PLUGINS"
NO_BUILTINS = "-builtin"
BUILTIN_PREFIX = "builtin_"
DIST_NAME = "xent-arena"
BUILTINS: Mapping[str, str] = MappingProxyType({
    "builtin_players": "arena.players.plugin",
    "builtin_judges": "arena.judges.plugin",
    "builtin_games": "arena.games.plugin",
    "builtin_samplers": "arena.gamespace.sampling.plugin",
    "builtin_finetuners": "arena.players.finetune.plugin",
    "builtin_tournaments": "arena.tournaments.plugin",
    "builtin_executors": "arena.tournaments.running.executors.plugin",
})
"""The built-in plugins, name -> module, registered by import; pyproject.toml declares the
same as entry points of group ``xent_arena``."""


@dataclass(frozen=True)
class PluginFailure:
    """A plugin (or one thing it registered) that could not be used, and why."""

    name: str
    dist: str
    version: str
    error: str


@dataclass(frozen=True)
class LoadedPlugin:
    """Where a registered plugin came from."""

    name: str
    dist: str
    version: str
    value: str  # the entry point's "module:attr" text, or "" for in-process plugins
    builtin: bool = False  # one of the arena's own plugins (see the module doc)


class ArenaPluginManager(PluginManager):
    """A pluggy manager that also remembers each plugin's origin and the load failures."""

    def __init__(self) -> None:
        super().__init__(hookspecs.PROJECT_NAME)
        self.add_hookspecs(hookspecs)
        self.origins: dict[str, LoadedPlugin] = {}
        self.load_failures: list[PluginFailure] = []
        self.skipped: list[str] = []  # entry points left out by the allow-list
        self.event_errors: Counter[str] = Counter()

    def register_plugin(
        self, plugin: object, name: str, *, dist: str = "", version: str = "", value: str = "",
        builtin: bool = False,
    ) -> bool:
        """Register `plugin`, recording a failure instead of raising. True on success."""
        try:
            self.register(plugin, name=name)
        except Exception as exc:  # pluggy raises ValueError / PluginValidationError
            self.load_failures.append(PluginFailure(name, dist, version, _describe(exc)))
            log.warning("plugin %r (%s) failed to register: %s", name, dist, exc)
            return False
        self.origins[name] = LoadedPlugin(name, dist, version, value, builtin)
        return True


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def create_plugin_manager(
    *,
    load_entrypoints: bool = True,
    allow: Collection[str] | None = None,
    include_builtins: bool | None = None,
) -> ArenaPluginManager:
    """Build a plugin manager with the arena's hookspecs and the installed plugins.

    Args:
        load_entrypoints: load plugins from entry points; False gives a bare manager to
            which callers (tests) `register` their own plugins.
        allow: entry-point names to load (see the module doc); None reads
            ``XENT_ARENA_PLUGINS``.
        include_builtins: register the built-in plugins by import (`BUILTINS`); defaults to
            `load_entrypoints`. Without it, installed built-in entry points load as entry
            points.
    """
    pm = ArenaPluginManager()
    if include_builtins is None:
        include_builtins = load_entrypoints
    if not load_entrypoints and not include_builtins:
        return pm
    allowed = _allowed(allow)
    seen: set[str] = set()
    if include_builtins:
        seen.update(BUILTINS)
        for name, module in BUILTINS.items():
            if not _is_allowed(name, True, allowed):
                pm.skipped.append(name)
                continue
            _load_one(pm, name, module, partial(importlib.import_module, module),
                      DIST_NAME, _own_version(), builtin=True)
    installed = md.entry_points(group=ENTRY_POINT_GROUP) if load_entrypoints else ()
    for ep in sorted(installed, key=_load_order):
        if include_builtins and _dist_of(ep)[0] == DIST_NAME and ep.name.startswith(
            BUILTIN_PREFIX
        ):
            continue  # registered by import above (a stale install's module path too)
        builtin = is_builtin(ep)
        seen.add(ep.name)
        if not _is_allowed(ep.name, builtin, allowed):
            pm.skipped.append(ep.name)
            continue
        dist, version = _dist_of(ep)
        _load_one(pm, ep.name, ep.value, ep.load, dist, version, builtin=builtin)
    for name in sorted((allowed or set()) - seen - {NO_BUILTINS}):
        pm.load_failures.append(
            PluginFailure(name, "", "", f"listed in {ALLOW_ENV} but no such plugin is installed")
        )
    return pm


def _allowed(allow: Collection[str] | None) -> set[str] | None:
    if allow is None:
        allow = os.environ.get(ALLOW_ENV, "").split(",")
    names = {name.strip() for name in allow if name.strip()}
    return names or None


def _is_allowed(name: str, builtin: bool, allowed: set[str] | None) -> bool:
    if allowed is None:
        return True
    if builtin:
        return NO_BUILTINS not in allowed
    return name in allowed


def _load_order(ep: md.EntryPoint) -> tuple[bool, str, str]:
    return (not is_builtin(ep), ep.name, ep.value)


def is_builtin(ep: md.EntryPoint) -> bool:
    """Whether `ep` is one of the arena's own plugins: declared by the xent-arena
    distribution under a `BUILTINS` name, pointing at that built-in's module. A third
    party's ``builtin_*`` entry point is not."""
    return BUILTINS.get(ep.name) == ep.value and _dist_of(ep)[0] == DIST_NAME


def _dist_of(ep: md.EntryPoint) -> tuple[str, str]:
    dist = getattr(ep, "dist", None)
    if dist is None:  # an entry point made in-process, not read from a distribution
        return "", ""
    return str(dist.metadata["Name"]), str(dist.version)


def _own_version() -> str:
    from arena import __version__  # the package's façade: imported once arena.plugins is

    return __version__


def _load_one(
    pm: ArenaPluginManager, name: str, value: str, load: Callable[[], object], dist: str,
    version: str, *, builtin: bool,
) -> None:
    """Import one plugin with `load` and register it as `name`, recording a failure
    instead of raising."""
    try:
        plugin = load()
    except BaseException as exc:  # a plugin's import may raise anything, even SystemExit
        if isinstance(exc, KeyboardInterrupt):
            raise
        pm.load_failures.append(PluginFailure(name, dist, version, _describe(exc)))
        log.warning("plugin %r (%s) failed to import: %s", name, dist, exc, exc_info=True)
        return
    if pm.is_registered(plugin):
        other = pm.get_name(plugin)
        if other != name:  # the same module under another name is a real conflict
            pm.load_failures.append(
                PluginFailure(name, dist, version, f"same object as plugin {other!r}; skipped")
            )
        # Two distributions declaring one entry point for one module (an installed copy
        # and its checkout, say) are one plugin, registered once.
        return
    pm.register_plugin(plugin, name, dist=dist, version=version, value=value, builtin=builtin)


def iter_hook_results(
    pm: PluginManager, hook_name: str, **kwargs: Any
) -> Iterator[tuple[str, Any, Exception | None]]:
    """Call each implementation of `hook_name` on its own, first-registered first.

    Yields ``(plugin_name, result, error)``; an implementation that raises yields its
    exception as `error` instead of stopping the others. Hook wrappers are skipped.
    """
    caller = getattr(pm.hook, hook_name, None)  # absent on a manager without our hookspecs
    for impl in caller.get_hookimpls() if caller is not None else ():
        if impl.hookwrapper or impl.wrapper:
            continue
        try:
            result = impl.function(*(kwargs[arg] for arg in impl.argnames))
        except Exception as exc:
            yield impl.plugin_name, None, exc
        else:
            yield impl.plugin_name, result, None


def has_event_listeners(pm: PluginManager) -> bool:
    """Whether some plugin implements `arena_on_event` (matches skip dispatch otherwise)."""
    caller = getattr(pm.hook, "arena_on_event", None)
    return caller is not None and bool(caller.get_hookimpls())


def dispatch_event(pm: PluginManager, event: Event, match_id: str) -> int:
    """Pass `event` to every `arena_on_event` implementation; return how many failed.

    A failing implementation is logged (with traceback the first time for each plugin)
    and never affects the others or the match.
    """
    failed = 0
    counts = pm.event_errors if isinstance(pm, ArenaPluginManager) else None
    for name, _, error in iter_hook_results(pm, "arena_on_event", event=event, match_id=match_id):
        if error is None:
            continue
        failed += 1
        first = counts is None or counts[name] == 0
        if counts is not None:
            counts[name] += 1
        log.warning(
            "plugin %r failed in arena_on_event (%s, match %s): %s",
            name, getattr(event, "type", "?"), match_id, _describe(error),
            exc_info=error if first else None,
        )
    return failed
