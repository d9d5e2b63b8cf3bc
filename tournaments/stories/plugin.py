"""The built-in story sources, registered through `arena.tournaments.plugin`."""

from __future__ import annotations

from arena.plugin_types import StorySourceEntry
from arena.spec_params import SpecParams
from arena.tournaments.stories.xent_maps import NAME, make_source


def story_source_entries() -> list[StorySourceEntry]:
    return [
        StorySourceEntry(
            NAME,
            make_source,
            "The fixed maps of a published Xent benchmark (written by `arena import`).",
            SpecParams(
                arg="the maps.json file `arena import --format xent-config` wrote",
                arg_required=True,
            ),
        ),
    ]
