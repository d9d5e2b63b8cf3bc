"""The `corpus` story source, bounded whatever the spec or the file (issue 29, items 6 and 7),
built from the reproductions: `max_tokens` and `tries` had no maximum and bypassed the map's
token limit (a run hung with SIGTERM ignored); `corpus:/dev/zero` read until MemoryError; a
FIFO hung; a lone surrogate in an entry voided every match on its map."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.plugins.registry import Registry
from arena.protocols.judge import GenerateRequest, JudgeInfo, ScoreRequest, TokenScores
from arena.protocols.story import StoryRequest
from arena.tournaments.planning.stories.corpus import CorpusStorySource, Lengths, load_corpus

REPO = Path(__file__).resolve().parents[2]


class EagerJudge:
    """Tokenizes without ever yielding to the event loop (as a judge on the loop's thread
    may): words with their leading space; counts its calls."""

    def __init__(self) -> None:
        self.tokenized = 0
        self.generated: list[int] = []

    @property
    def info(self) -> JudgeInfo:
        return JudgeInfo(name="eager", model="eager")

    async def tokenize(self, texts: Sequence[str]) -> list[list[str]]:
        self.tokenized += 1
        return [[w if i == 0 else " " + w for i, w in enumerate(t.split(" "))] for t in texts]

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        self.generated += [r.max_tokens for r in requests]
        return ["judge story"] * len(requests)

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        raise NotImplementedError

    async def aclose(self) -> None:
        return None


def corpus(tmp_path: Path, rows: Sequence[object], name: str = "c.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("max_tokens=1000000000", "'max_tokens'"),
        ("tries=1000000000", "'tries'"),
        ("min_tokens=1000000000", "'min_tokens'"),
    ],
)
def test_every_count_has_a_maximum(tmp_path: Path, query: str, says: str) -> None:
    path = corpus(tmp_path, [{"text": "a b c"}])
    with pytest.raises(ConfigError, match=says) as caught:
        Registry.load().create_story_source(f"corpus:{path}?{query}", EagerJudge())  # type: ignore[arg-type]
    assert "must be <=" in str(caught.value)


def test_stories_without_a_length_stay_within_the_maps_budget(tmp_path: Path) -> None:
    """Twenty story() calls without a length at max_tokens=4000 would ask 80 000 tokens of
    one map (the game's check counted 60 each): refused, and the judge writes nothing."""
    judge = EagerJudge()
    source = CorpusStorySource(
        load_corpus(corpus(tmp_path, [{"text": "a b"}])), judge, Lengths(max_tokens=4000)
    )
    requests = [StoryRequest(f"{i}:1", None, None, i) for i in range(20)]
    with pytest.raises(ConfigError, match="over the 4,000 a map may take"):
        asyncio.run(source.stories(requests))
    assert judge.generated == [] and judge.tokenized == 0


def test_a_stop_request_lands_while_entries_are_tried(tmp_path: Path) -> None:
    """No entry fits (min_tokens above every entry): the source tries `tries` entries. A
    cancel (what SIGTERM does to the run) must stop it at once, not after every try."""
    judge = EagerJudge()
    source = CorpusStorySource(
        load_corpus(corpus(tmp_path, [{"text": "a b"}])), judge,
        Lengths(min_tokens=50, max_tokens=60, tries=1000),
    )

    async def stopped() -> None:
        task = asyncio.create_task(source.stories([StoryRequest("1:1", None, None, 7)]))
        await asyncio.sleep(0)  # the task starts
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(stopped())
    assert judge.tokenized < 10 and judge.generated == []


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_only_a_regular_corpus_file_is_read(tmp_path: Path, kind: str) -> None:
    """In a child process with a deadline: before, a FIFO blocked forever and /dev/zero
    read until memory ran out."""
    path = tmp_path / "c.jsonl"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path = Path("/dev/zero")
    else:
        path.mkdir()
    code = (
        "import sys, resource\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))\n"
        "from pathlib import Path\n"
        "from arena.errors import ConfigError\n"
        "from arena.tournaments.planning.stories.corpus import load_corpus\n"
        "try:\n    load_corpus(Path(sys.argv[1]))\n"
        "except ConfigError as error:\n    print(error)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60,
        env=env,
    )
    assert "not a regular file" in done.stdout, (done.stdout, done.stderr[-500:])


def test_a_lone_surrogate_becomes_a_replacement_character(tmp_path: Path) -> None:
    """The corpus line holds the JSON escape \\ud800: the story drawn must still be storable
    (before, storing its match failed with UnicodeEncodeError)."""
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "lone \\ud800 surrogate here"}\n', encoding="utf-8")
    source = CorpusStorySource(load_corpus(path), EagerJudge(), Lengths(max_tokens=10))
    [story] = asyncio.run(source.stories([StoryRequest("1:1", None, None, 1)]))
    assert story == "lone \ufffd surrogate here"
    story.encode("utf-8")  # what the database does with it
