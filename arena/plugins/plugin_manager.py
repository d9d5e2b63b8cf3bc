"""Plugin discovery: one pluggy `PluginManager`, built on demand, never at import time.

Discovery loads the entry points of group ``xent_arena`` one at a time. A plugin that fails
to import or to register is recorded as a `PluginFailure` and skipped; the others load.

Built-ins are the entry points the ``xent-arena`` distribution itself declares (named
``builtin_*``, each pointing at one of the project's own modules): recognised by their
distribution and module, never by the name alone, which any third party may choose.

Order: the built-in plugins load first, then the others sorted by entry-point name, so
the registry's "first plugin keeps a clashing name" rule always favours the built-ins.

Running from a checkout (the ``xent-arena`` distribution not installed): the built-in entry
points are read from the checkout's ``pyproject.toml`` and loaded the same way. Entry-point
names that the installed distributions already declare are never loaded twice.

Allow-list: the environment variable ``XENT_ARENA_PLUGINS`` (or the ``allow`` argument,
which takes precedence) is a comma-separated list of entry-point names. When it is unset or
empty every plugin loads. When it is set, only the listed third-party plugins load; the
built-ins always load unless the list contains ``-builtin``. Listed names that are not
installed are reported as failures.
"""

from __future__ import annotations

import importlib.metadata as md
import logging
import os
import tomllib
from collections import Counter
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
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
        include_builtins: load the built-in plugins from the checkout when the
            distribution is not installed; defaults to `load_entrypoints`.
    """
    pm = ArenaPluginManager()
    if include_builtins is None:
        include_builtins = load_entrypoints
    if not load_entrypoints and not include_builtins:
        return pm
    allowed = _allowed(allow)
    installed = list(md.entry_points(group=ENTRY_POINT_GROUP)) if load_entrypoints else []
    if include_builtins:
        # By name and module: a third party's entry point named like a built-in must not
        # hide the built-in read from the checkout.
        taken = {(ep.name, ep.value) for ep in installed}
        installed += [ep for ep in _checkout_entry_points() if (ep.name, ep.value) not in taken]
    seen: set[str] = set()
    builtins = _builtin_values()
    for ep in sorted(installed, key=lambda ep: _load_order(ep, builtins)):
        seen.add(ep.name)
        builtin = is_builtin(ep, builtins)
        if not _is_allowed(ep.name, builtin, allowed):
            pm.skipped.append(ep.name)
            continue
        _load_one(pm, ep, builtin)
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


def _load_order(ep: md.EntryPoint, builtins: Collection[str]) -> tuple[bool, str, str]:
    return (not is_builtin(ep, builtins), ep.name, ep.value)


def _builtin_values() -> frozenset[str]:
    """The `module[:attr]` of each built-in entry point, as the project declares them (the
    checkout's pyproject.toml, else the installed distribution's metadata)."""
    project = _checkout_pyproject()
    if project is not None:
        declared = project.get("entry-points", {}).get(ENTRY_POINT_GROUP, {})
        return frozenset(str(v) for n, v in declared.items() if n.startswith(BUILTIN_PREFIX))
    try:
        eps = md.distribution(DIST_NAME).entry_points
    except md.PackageNotFoundError:
        return frozenset()
    return frozenset(
        ep.value for ep in eps
        if ep.group == ENTRY_POINT_GROUP and ep.name.startswith(BUILTIN_PREFIX)
    )


def is_builtin(ep: md.EntryPoint, builtins: Collection[str]) -> bool:
    """Whether `ep` is one of the arena's own plugins: declared by the xent-arena
    distribution (or read from its checkout) and pointing at a module the project
    declares as built-in. A third party's ``builtin_*`` entry point is not."""
    return (
        ep.name.startswith(BUILTIN_PREFIX)
        and ep.value in builtins
        and _dist_of(ep)[0] == DIST_NAME
    )


def _dist_of(ep: md.EntryPoint) -> tuple[str, str]:
    dist = getattr(ep, "dist", None)
    if dist is None:  # a built-in read from the checkout's pyproject.toml
        return DIST_NAME, _checkout_version()
    return str(dist.metadata["Name"]), str(dist.version)


def _load_one(pm: ArenaPluginManager, ep: md.EntryPoint, builtin: bool) -> None:
    dist, version = _dist_of(ep)
    try:
        plugin = ep.load()
    except BaseException as exc:  # a plugin's import may raise anything, even SystemExit
        if isinstance(exc, KeyboardInterrupt):
            raise
        pm.load_failures.append(PluginFailure(ep.name, dist, version, _describe(exc)))
        log.warning("plugin %r (%s) failed to import: %s", ep.name, dist, exc, exc_info=True)
        return
    if pm.is_registered(plugin):
        other = pm.get_name(plugin)
        if other != ep.name:  # the same module under another name is a real conflict
            pm.load_failures.append(
                PluginFailure(ep.name, dist, version, f"same object as plugin {other!r}; skipped")
            )
        # Two distributions declaring one entry point for one module (an installed copy
        # and its checkout, say) are one plugin, registered once.
        return
    pm.register_plugin(
        plugin, ep.name, dist=dist, version=version, value=ep.value, builtin=builtin
    )


def _checkout_pyproject() -> dict[str, Any] | None:
    path = Path(hookspecs.__file__).resolve().parent.parent / "pyproject.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    project = data.get("project", {})
    return project if project.get("name") == DIST_NAME else None


def _checkout_version() -> str:
    project = _checkout_pyproject()
    return str(project.get("version", "")) if project else ""


def _checkout_entry_points() -> list[md.EntryPoint]:
    """The built-in entry points declared by the checkout's pyproject.toml, if any."""
    project = _checkout_pyproject()
    if project is None:
        return []
    declared = project.get("entry-points", {}).get(ENTRY_POINT_GROUP, {})
    return [
        md.EntryPoint(name=name, value=str(value), group=ENTRY_POINT_GROUP)
        for name, value in declared.items()
        if name.startswith(BUILTIN_PREFIX)
    ]


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
