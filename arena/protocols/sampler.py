"""The meta-sampler protocol (Λ in the paper's Algorithm 1) and what a sampler proposes.

A sampler is registered through the `arena_samplers` hook (`arena.plugins.hookspecs`) and built
from a spec (`mutate`, `mutate?ops=length,reward&depth=2`, or the model-driven
`llm:<model>?repairs=3`). Given a parent game it yields candidate games as source text with
their lineage; the filter pipeline (`arena.gamespace.sampling.pipeline`) decides which are kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

# A proposal whose extra holds this key is one the sampler gave up on (the reason): it is
# recorded, dropped at a "sampler" verdict, and its text is never checked or played. Here,
# not in the pipeline, so that a sampler plugin need not import the checks (SciPy).
GAVE_UP = "gave_up"

@dataclass(frozen=True)
class ParentGame:
    """The game a sampler starts from: its name, version, file name and text."""

    name: str
    version: str
    filename: str
    source: str


@dataclass(frozen=True)
class Proposal:
    """One candidate game: its full text (lineage header included) and how it was made.

    Attributes:
        name: a game name for the candidate, unique within one run.
        source: XGL text that the static checker accepted when the sampler made it (for a
            candidate the sampler gave up on, `extra["gave_up"]`, its last text: never kept).
        filename: the file name to write it under (keeps the parent's dialect suffix).
        parent: the parent game's name.
        sampler: the sampler spec that made it.
        seed: the run seed; with `index` it reproduces the candidate.
        index: the candidate's position in the run.
        operator: what the sampler did, e.g. "reward+length" (sampler-specific).
        rejected: attempts the checker refused before this one.
        extra: sampler-specific evidence (e.g. an llm's prompt and cost), JSON-ready.
    """

    name: str
    source: str
    filename: str
    parent: str
    sampler: str
    seed: int
    index: int
    operator: str
    rejected: int = 0
    extra: dict[str, object] = field(default_factory=dict)


@runtime_checkable
class MetaSampler(Protocol):
    """Proposes games related to a parent game, reproducibly from a seed."""

    def propose(self, parent: ParentGame, count: int, seed: int) -> Iterator[Proposal]:
        """Up to `count` proposals; fewer when the sampler runs out of valid ones."""
        ...
