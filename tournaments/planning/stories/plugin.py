"""The built-in story sources, registered through `arena.tournaments.plugin`."""

from __future__ import annotations

from arena.plugins.plugin_types import StorySourceEntry
from arena.spec_params import SpecParams
from arena.tournaments.planning.stories.corpus import PARAMS as CORPUS_PARAMS
from arena.tournaments.planning.stories.corpus import make_corpus_source
from arena.tournaments.planning.stories.xent_maps import NAME, make_source


def story_source_entries() -> list[StorySourceEntry]:
    return [
        StorySourceEntry(
            "corpus",
            make_corpus_source,
            "Stories cut from a local corpus (JSON Lines, Parquet, community-archive JSON) "
            "by judge tokens, the Xent benchmark's way; the judge writes those none fits.",
            CORPUS_PARAMS,
        ),
        StorySourceEntry(
            NAME,
            make_source,
            "The fixed maps of a published Xent benchmark (written by `arena import-benchmark`).",
            SpecParams(
                arg="the maps.json file `arena import-benchmark` wrote",
                arg_required=True,
                arg_is_path=True,
            ),
        ),
    ]
