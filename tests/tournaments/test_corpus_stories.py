"""The `corpus` story source: stories cut by judge tokens from local JSON Lines, Parquet and
community-archive files, as the Xent benchmark's length-constrained sampler cuts them
(seeded per request; the judge writes a story no entry fits)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.plugins.registry import Registry
from arena.protocols.judge import GenerateRequest, JudgeInfo, ScoreRequest, TokenScores
from arena.protocols.story import StoryRequest
from arena.specs import parse_spec
from arena.tournaments.planning.stories.corpus import CorpusStorySource, load_corpus


class WordJudge:
    """Tokens are words with their leading space; generate writes 'judge story'."""

    def __init__(self) -> None:
        self.generated = 0

    @property
    def info(self) -> JudgeInfo:
        return JudgeInfo(name="words", model="words")

    async def tokenize(self, texts: Sequence[str], dialect: str = "xgl") -> list[list[str]]:
        out = []
        for text in texts:
            words = text.split(" ")
            out.append([words[0]] + [" " + w for w in words[1:]] if text else [])
        return out

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        self.generated += len(requests)
        return ["judge story"] * len(requests)

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        raise NotImplementedError

    async def aclose(self) -> None:
        return None


def write_jsonl(path: Path, rows: Sequence[Mapping[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def requests(n: int, length: int | None = None) -> list[StoryRequest]:
    return [StoryRequest(site="1:9", length=length, instruction=None, seed=s) for s in range(n)]


def source(path: Path, judge: object, query: str = "") -> CorpusStorySource:
    registry = Registry.load()
    made = registry.create_story_source(f"corpus:{path}{query}", judge)  # type: ignore[arg-type]
    assert isinstance(made, CorpusStorySource)
    return made


def stories(made: CorpusStorySource, reqs: list[StoryRequest]) -> list[str]:
    return asyncio.run(made.stories(reqs))


ROWS = [
    {"text": "one two three four five six seven eight", "format": "story"},
    {"text": "alpha beta gamma", "format": "blog"},
    {"text": "red green blue yellow", "format": "story"},
]


def test_jsonl_stories_are_prefixes_of_entries_cut_at_the_requested_tokens(tmp_path: Path) -> None:
    made = source(write_jsonl(tmp_path / "c.jsonl", ROWS), WordJudge())
    texts = stories(made, requests(20, length=3))
    corpus = [r["text"] for r in ROWS]
    for text in texts:
        assert any(str(c).startswith(text) for c in corpus)
        assert len(text.split(" ")) == 3  # the longest prefix within 3 tokens
    assert len(set(texts)) == 3  # every entry fits 3 tokens and is drawn
    assert stories(made, requests(20, length=3)) == texts  # the same seeds, the same texts


def test_min_tokens_skips_short_entries_and_formats_filter(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "c.jsonl", ROWS)
    made = source(path, WordJudge(), "?min_tokens=5&max_tokens=6")
    assert set(stories(made, requests(15))) == {"one two three four five six"}
    made = source(path, WordJudge(), "?formats=blog")
    assert set(stories(made, requests(5))) == {"alpha beta gamma"}


def test_randomized_lengths_stay_in_range(tmp_path: Path) -> None:
    made = source(write_jsonl(tmp_path / "c.jsonl", ROWS[:1]), WordJudge(),
                  "?randomize=1&min_tokens=2")
    lengths = {len(t.split(" ")) for t in stories(made, requests(40, length=7))}
    assert lengths <= set(range(2, 8)) and len(lengths) > 2


def test_omni_math_keeps_the_problem_whole(tmp_path: Path) -> None:
    rows = [{"problem": "What is two plus two", "solution": "It is four because", "answer": "4"}]
    made = source(write_jsonl(tmp_path / "m.jsonl", rows), WordJudge(), "?kind=omni-math")
    # words are tokens here: "two\nIt" is one
    assert stories(made, requests(1, length=6)) == ["What is two plus two\nIt is"]
    # a request shorter than the problem falls back to the judge
    judge = WordJudge()
    made = source(tmp_path / "m.jsonl", judge, "?kind=omni-math&tries=3")
    assert stories(made, requests(1, length=2)) == ["judge story"] and judge.generated == 1


def test_community_archive_json_and_parquet(tmp_path: Path) -> None:
    archive = {"tweets": [{"tweet": {"full_text": "just setting up my corpus", "id": "1"}}]}
    (tmp_path / "a.json").write_text(json.dumps(archive), encoding="utf-8")
    made = source(tmp_path / "a.json", WordJudge(), "?kind=tweets")
    assert stories(made, requests(1, length=3)) == ["just setting up"]
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    pq.write_table(pa.Table.from_pylist(ROWS), tmp_path / "c.parquet")
    made = source(tmp_path / "c.parquet", WordJudge(), "?formats=blog")
    assert stories(made, requests(2)) == ["alpha beta gamma"] * 2


def test_the_bundled_judge_cuts_real_token_prefixes(tmp_path: Path) -> None:
    text = "The lighthouse keeper counted the ships, and every ship counted him back."
    registry = Registry.load()
    judge = registry.create_judge("bundled")
    try:
        made = source(write_jsonl(tmp_path / "c.jsonl", [{"text": text}]), judge)
        got = stories(made, requests(1, length=5))[0]
        tokens = asyncio.run(judge.tokenize([text]))[0]
        assert got == "".join(tokens[:5]) and text.startswith(got) and got != text
    finally:
        asyncio.run(judge.aclose())


def test_bad_corpora_are_one_sentence(tmp_path: Path) -> None:
    (tmp_path / "bad.jsonl").write_text('{"text": "a"}\nnot json\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"Line 2 of the corpus 'bad\.jsonl' is not JSON"):
        load_corpus(tmp_path / "bad.jsonl")
    write_jsonl(tmp_path / "empty.jsonl", [{"body": "x"}])
    with pytest.raises(ConfigError, match="no usable text rows"):
        load_corpus(tmp_path / "empty.jsonl")
    with pytest.raises(ConfigError, match="Cannot read the corpus"):
        load_corpus(tmp_path / "missing.jsonl")
    with pytest.raises(ConfigError, match="kind"):
        Registry.load().create_story_source(
            parse_spec(f"corpus:{tmp_path / 'empty.jsonl'}?kind=poems"), None
        )
