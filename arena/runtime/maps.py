"""Maps: a game plus the texts of its `story()` call sites, resolved once from a map seed.

Every entrant of a tournament plays the same map texts; they are stored with the map.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from arena.lang import ast
from arena.lang.evaluator import iter_calls, story_site
from arena.lang.limits import DEFAULT_STORY_TOKENS
from arena.protocols.judge import GenerateRequest, Judge
from arena.protocols.story import StoryRequest, StorySource
from arena.runtime.seeds import derive_seed

__all__ = ["DEFAULT_STORY_TOKENS", "GameMap", "JudgeStorySource", "resolve_map", "story_requests"]


@dataclass(frozen=True)
class GameMap:
    """A map seed and the resolved text of every story() call site ("line:col" -> text)."""

    seed: int
    stories: Mapping[str, str] = field(default_factory=dict)


def story_requests(program: ast.Program, map_seed: int) -> list[StoryRequest]:
    """One request per story() call site, in program order, seeded by map seed and site."""
    requests: list[StoryRequest] = []
    for instruction in program.instructions:
        for call in iter_calls(instruction.call):
            if call.func != "story":
                continue
            length: int | None = None
            instruction_text: str | None = None
            if call.args:
                first = call.args[0]
                if isinstance(first, ast.Int):
                    length = first.value
                elif isinstance(first, ast.Str):
                    instruction_text = first.value
            site = story_site(call)
            requests.append(
                StoryRequest(
                    site=site,
                    length=length,
                    instruction=instruction_text,
                    seed=derive_seed("story", map_seed, site),
                )
            )
    return requests


async def resolve_map(program: ast.Program, map_seed: int, source: StorySource) -> GameMap:
    """Resolve every story() site of the program for one map seed."""
    requests = story_requests(program, map_seed)
    texts = await source.stories(requests) if requests else []
    return GameMap(seed=map_seed, stories={r.site: t for r, t in zip(requests, texts, strict=True)})


class JudgeStorySource:
    """Map texts sampled from the judge model, seeded per call site."""

    def __init__(self, judge: Judge, default_tokens: int = DEFAULT_STORY_TOKENS) -> None:
        self._judge = judge
        self._default_tokens = default_tokens

    @property
    def name(self) -> str:
        return f"judge:{self._judge.info.name}"

    async def stories(self, requests: Sequence[StoryRequest]) -> list[str]:
        generate = [
            GenerateRequest(
                prompt=r.instruction or "",
                max_tokens=r.length or self._default_tokens,
                seed=r.seed,
            )
            for r in requests
        ]
        texts = await self._judge.generate(generate)
        return [t.strip() for t in texts]
