"""The hooks a plugin may implement (pluggy project name ``xent_arena``).

A plugin is a module (or an object) exposed under the entry-point group ``xent_arena``::

    # pyproject.toml of the plugin
    [project.entry-points.xent_arena]
    my_players = "my_package.arena_plugin"

    # my_package/arena_plugin.py
    from arena.plugins.hookspecs import hookimpl
    from arena.plugins.plugin_types import PlayerEntry
    from arena.spec_params import SpecParams

    @hookimpl
    def arena_players() -> list[PlayerEntry]:
        return [PlayerEntry("mybot", make_mybot, "My bot", SpecParams(arg="a colour"))]

Every hook is called once per plugin; a plugin that raises inside a hook is reported by
`arena plugins` and skipped, and the other plugins still load. Hook wrappers are not used
by the arena (each implementation is called on its own, see `arena.plugins.plugin_manager`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pluggy import HookimplMarker, HookspecMarker

if TYPE_CHECKING:
    import typer

    from arena.events import Event
    from arena.plugins.plugin_types import (
        ExecutorEntry,
        FineTunerEntry,
        GameEntry,
        JudgeEntry,
        PlayerEntry,
        SamplerEntry,
        StorySourceEntry,
    )

PROJECT_NAME = "xent_arena"

hookspec = HookspecMarker(PROJECT_NAME)
hookimpl = HookimplMarker(PROJECT_NAME)
"""Decorate a plugin's hook implementations with this marker."""


@hookspec
def arena_players() -> list[PlayerEntry]:  # type: ignore[empty-body]
    """Return the player kinds this plugin provides.

    Each `PlayerEntry.factory(spec, ctx)` is called once per seat per match and returns a
    fresh object satisfying `arena.protocols.player.Player`. It must raise
    `arena.errors.ConfigError` for a bad spec (unknown parameter, bad arg), never return
    None. Names are unique across plugins: on a clash the first-loaded plugin keeps it.
    """


@hookspec
def arena_judges() -> list[JudgeEntry]:  # type: ignore[empty-body]
    """Return the judge kinds this plugin provides.

    `JudgeEntry.factory(spec)` returns an object satisfying
    `arena.protocols.judge.Judge`. It should be cheap: load weights lazily on first
    use, import heavy libraries (torch) inside the factory, not at module import.
    """


@hookspec
def arena_games() -> list[GameEntry]:  # type: ignore[empty-body]
    """Return the games this plugin ships, as source text with metadata.

    Use `GameEntry.from_source(text, filename)` to read the `# version:` and
    `# measures:` header. Games are parsed and checked when used, not when listed.
    """


@hookspec
def arena_story_sources() -> list[StorySourceEntry]:  # type: ignore[empty-body]
    """Return the story sources (producers of map texts) this plugin provides.

    `StorySourceEntry.factory(spec, judge)` returns an object satisfying
    `arena.protocols.story.StorySource`; `judge` is the tournament's judge or None.
    The source must be a pure function of each request's seed.
    """


@hookspec
def arena_executors() -> list[ExecutorEntry]:  # type: ignore[empty-body]
    """Return the executors (engines that play a tournament's matches) this plugin provides.

    A tournament picks one by name (`executor = "ray"` in its file, `arena run --executor`);
    the built-in `local` and `ray` executors register through this hook too.
    """


@hookspec
def arena_samplers() -> list[SamplerEntry]:  # type: ignore[empty-body]
    """Return the meta-samplers (the paper's Λ) this plugin provides.

    `SamplerEntry.factory(spec)` returns an object satisfying
    `arena.protocols.sampler.MetaSampler`: given a parent game, a count and a seed it
    proposes candidate games (XGL text with a lineage header), reproducibly. Proposals
    are filtered by `arena games generate`; a sampler should still only propose text that
    the static checker accepts, or mark a candidate it gave up on (to have it recorded) with
    `extra["gave_up"] = reason` (`arena.gamespace.sampling.pipeline.GAVE_UP`). The blocking
    `propose` runs in a worker thread; `SamplerEntry.params` declares the spec.
    """


@hookspec
def arena_finetuners() -> list[FineTunerEntry]:  # type: ignore[empty-body]
    """Return the fine-tuning mechanisms (the paper's F, Def. 35 and 37) this plugin provides.

    `FineTunerEntry.factory(spec, registry)` returns an object satisfying
    `arena.protocols.finetune.FineTuner`: given a player spec, a game's text, a judge, a
    token budget and a seed it tunes the player on the game and returns the tuned player's
    spec (`registry` builds the players of the game's other roles).
    The built-in `reinforce` (REINFORCE with a baseline) registers through this hook too.
    Import heavy libraries (torch) inside the factory or the tuning, not at module import.
    """


@hookspec
def arena_cli_commands() -> list[typer.Typer]:  # type: ignore[empty-body]
    """Return typer apps whose commands are added to the `arena` command line.

    A named app (`typer.Typer(name="mytool")`) becomes the group `arena mytool ...`; an
    unnamed app's commands are added at the top level. Names already taken are skipped
    and reported.
    """


@hookspec
def arena_on_event(event: Event, match_id: str) -> None:
    """Receive every runtime event of every match, in order, as it happens.

    Called on the runtime's event loop: return quickly and never block (hand slow work to
    a thread or queue). The event is frozen; the implementation cannot change the match.
    Exceptions are caught, logged and otherwise ignored: they never break a match. Events
    carry what the match transcript holds, so an observer must not feed them back to a
    player (information sets, XGL.md section 4).
    """
