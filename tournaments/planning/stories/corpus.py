"""The `corpus` story source: map texts cut from a local corpus, the Xent benchmark's way.

The reference benchmark draws its stories from corpora (community-archive tweets,
Cosmopedia, Omni-Math) with a length-constrained sampler: pick an entry, tokenize it with
the judge, keep a prefix of between `min_tokens` (and the entry's own minimum: an Omni-Math
problem is kept whole) and the requested length; skip entries too short. Here the pick is
seeded by each story request (the same seed gives the same text in any process), and when
`tries` entries in a row do not fit, the text is sampled from the judge instead.

Spec: ``corpus:PATH?kind=text&field=text&formats=a,b&min_tokens=0&max_tokens=N&randomize=0``.
PATH is a JSON Lines file, a Parquet file (pip install 'xent-arena[parquet]') or, for
tweets, a community-archive JSON export (``{"tweets": [{"tweet": {"full_text": ...}}]}``);
in a tournament file a relative PATH is read from the file's folder.

Bounded, whatever the corpus or spec (docs/threats.md, "Story corpora"): only a regular file
of at most `MAX_CORPUS_BYTES` is read (never a FIFO or a device); every count has a maximum;
the story() calls of one map get at most what the game's check admitted (a story() without
a length counts `max_tokens` here); reading and cutting stop at once on SIGTERM. A lone
surrogate in an entry (which no database stores) becomes U+FFFD.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ConfigError, MissingExtraError
from arena.file_input import FileInputError, loads_json, open_regular_file, read_regular_file
from arena.interrupts import raise_if_cancelled
from arena.lang.limits import DEFAULT_LIMITS
from arena.protocols.judge import Judge
from arena.protocols.story import StoryRequest
from arena.runtime.maps import DEFAULT_STORY_TOKENS, JudgeStorySource
from arena.spec_params import Param, SpecParams
from arena.specs import Spec

__all__ = ["KINDS", "PARAMS", "CorpusEntry", "CorpusStorySource", "make_corpus_source"]

NAME = "corpus"
DEFAULT_TRIES = 64
MAX_TRIES = 1_000
# The longest story a corpus cuts, and what the story() calls of one map may take together
# at most (above what the game's check admitted): the default limits of a game.
MAX_STORY_TOKENS = DEFAULT_LIMITS.max_story_tokens
MAX_MAP_TOKENS = DEFAULT_LIMITS.max_map_story_tokens
MAX_CORPUS_BYTES = 512 * 2**20  # on disk; a Parquet file's columns also when unpacked
_CHECK_EVERY = 10_000  # rows between checks for a stop request while reading
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """`text` with each lone surrogate (an invalid \\ud800 escape in JSON) as U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


@dataclass(frozen=True)
class CorpusEntry:
    """One text of the corpus and the part of it any story must keep whole (characters)."""

    text: str
    keep_chars: int = 0


Row = Mapping[str, Any]


def _tweet(row: Row, field: str) -> CorpusEntry | None:
    inner = row.get("tweet") if isinstance(row.get("tweet"), Mapping) else row
    text = inner.get("full_text") if isinstance(inner, Mapping) else None
    return CorpusEntry(clean_text(text)) if isinstance(text, str) else None


def _plain(row: Row, field: str) -> CorpusEntry | None:
    text = row.get(field)
    return CorpusEntry(clean_text(text)) if isinstance(text, str) else None


def _omni_math(row: Row, field: str) -> CorpusEntry | None:
    parts = [row.get(k) for k in ("problem", "solution", "answer")]
    if not all(isinstance(p, str) for p in parts):
        return None
    problem, solution, answer = (clean_text(str(p)) for p in parts)
    return CorpusEntry(f"{problem}\n{solution}\n{answer}", keep_chars=len(problem))


# kind -> how a row becomes an entry (None: the row is skipped)
KINDS: dict[str, Callable[[Row, str], CorpusEntry | None]] = {
    "text": _plain,  # any corpus: the `field` column
    "tweets": _tweet,  # community archive: tweet.full_text
    "cosmopedia": _plain,  # Cosmopedia: text (filter with formats=)
    "omni-math": _omni_math,  # Omni-MATH: problem, solution, answer; the problem kept whole
}

PARAMS = SpecParams(
    arg="the corpus file: .jsonl, .parquet, or a community-archive .json",
    arg_required=True,
    params=(
        Param("kind", "str", "text", "how rows become texts", choices=tuple(KINDS)),
        Param("field", "str", "text", "the column holding the text (kind=text)"),
        Param("formats", "str", help="comma-separated values of a 'format' column to keep"),
        Param("min_tokens", "int", 0, "shortest story in judge tokens", minimum=0,
              maximum=MAX_STORY_TOKENS),
        Param("max_tokens", "int", DEFAULT_STORY_TOKENS, "longest story when story() names "
              "no length", minimum=1, maximum=MAX_STORY_TOKENS),
        Param("randomize", "bool", False, "a random length in range (else the longest)"),
        Param("tries", "int", DEFAULT_TRIES, "entries tried before the judge writes the "
              "story", minimum=1, maximum=MAX_TRIES),
    ),
    arg_is_path=True,
)


def _parquet_rows(path: Path, columns: Sequence[str]) -> Iterable[Row]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise MissingExtraError(
            f"Reading the Parquet corpus '{path.name}'", "pyarrow",
            "pip install 'xent-arena[parquet]'", "Or convert the corpus to JSON Lines.",
        ) from None
    fd, _ = open_regular_file(path, MAX_CORPUS_BYTES)
    with open(fd, "rb") as handle:
        file = pq.ParquetFile(handle)
        names = set(file.schema_arrow.names)
        wanted = [c for c in columns if c in names]
        meta = file.metadata
        unpacked = sum(
            meta.row_group(g).column(c).total_uncompressed_size
            for g in range(meta.num_row_groups) for c in range(meta.num_columns)
            if meta.row_group(g).column(c).path_in_schema.split(".")[0] in wanted
        )
        if unpacked > MAX_CORPUS_BYTES:
            raise FileInputError(
                f"unpacks to {unpacked:,} bytes, over the limit of {MAX_CORPUS_BYTES:,} bytes"
            )
        yield from file.read(columns=wanted).to_pylist()


def _rows(path: Path, columns: Sequence[str]) -> Iterable[Row]:
    """The rows of a corpus file; only `columns` of a Parquet file are read."""
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        yield from _parquet_rows(path, columns)
        return
    text = read_regular_file(path, MAX_CORPUS_BYTES).decode("utf-8")
    if suffix == ".json":
        data = loads_json(text)
        yield from (data.get("tweets", []) if isinstance(data, Mapping) else data)
        return
    for number, line in enumerate(text.splitlines(), 1):
        if number % _CHECK_EVERY == 0:
            raise_if_cancelled()
        if line.strip():
            try:
                yield loads_json(line)
            except (json.JSONDecodeError, FileInputError) as error:
                why = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
                raise ConfigError(
                    f"Line {number} of the corpus '{path.name}' is not JSON ({why}). "
                    "A .jsonl corpus holds one JSON object per line."
                ) from None


def load_corpus(
    path: Path, kind: str = "text", field: str = "text", formats: Sequence[str] = ()
) -> list[CorpusEntry]:
    """The usable entries of a corpus file; ConfigError when it has none or is unreadable."""
    if kind not in KINDS:
        raise ConfigError(f"Unknown corpus kind '{kind}'. Valid kinds: {', '.join(KINDS)}.")
    columns = {"text": [field], "tweets": ["tweet", "full_text"], "cosmopedia": [field],
               "omni-math": ["problem", "solution", "answer"]}[kind] + ["format"]
    try:
        rows = list(_rows(path, columns))
    except FileInputError as error:
        raise ConfigError(
            f"Cannot read the corpus '{path}': it {error}. Give a corpus file (JSON Lines, "
            "Parquet or a community-archive JSON export) in corpus:PATH."
        ) from None
    except OSError as error:
        raise ConfigError(
            f"Cannot read the corpus '{path}' ({error.strerror}). Check the path in "
            "corpus:PATH."
        ) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(
            f"The corpus '{path.name}' cannot be read as {path.suffix or 'JSON Lines'} "
            f"({error}). Use JSON Lines, Parquet or a community-archive JSON export."
        ) from None
    entries = [
        made for row in rows
        if isinstance(row, Mapping) and (not formats or row.get("format") in formats)
        and (made := KINDS[kind](row, field)) is not None and made.text
    ]
    if not entries:
        raise ConfigError(
            f"The corpus '{path.name}' has no usable {kind} rows ({len(rows)} rows read"
            f"{', formats ' + ','.join(formats) if formats else ''}). Check kind= and field=."
        )
    return entries


@dataclass(frozen=True)
class Lengths:
    min_tokens: int = 0
    max_tokens: int = DEFAULT_STORY_TOKENS
    randomize: bool = False
    tries: int = DEFAULT_TRIES


class CorpusStorySource:
    """Stories cut from corpus entries by judge tokens; the judge writes the ones no entry
    fits (see the module docstring)."""

    def __init__(
        self, entries: Sequence[CorpusEntry], judge: Judge | None, lengths: Lengths,
        label: str = NAME,
    ) -> None:
        self._entries = entries
        self._judge = judge
        self._lengths = lengths
        self._label = label

    @property
    def name(self) -> str:
        return self._label

    async def stories(self, requests: Sequence[StoryRequest]) -> list[str]:
        if self._judge is None:
            raise ConfigError(
                "The corpus story source cuts stories by judge tokens and needs the "
                "tournament's judge; use it as stories = \"corpus:...\" in a tournament."
            )
        self._check_budget(requests)
        return [clean_text(await self._one(r, self._judge)) for r in requests]

    def _check_budget(self, requests: Sequence[StoryRequest]) -> None:
        """The map's story() calls may take what the game's check admitted for them (a
        call without a length counted DEFAULT_STORY_TOKENS there), or MAX_MAP_TOKENS."""
        asked = sum(r.length or self._lengths.max_tokens for r in requests)
        admitted = sum(r.length or DEFAULT_STORY_TOKENS for r in requests)
        if asked > max(admitted, MAX_MAP_TOKENS):
            raise ConfigError(
                f"The corpus story source '{self._label}' would cut {asked:,} tokens for one "
                f"map ({sum(r.length is None for r in requests)} story() calls without a "
                f"length at max_tokens={self._lengths.max_tokens}), over the "
                f"{max(admitted, MAX_MAP_TOKENS):,} a map may take. Lower max_tokens."
            )

    async def _one(self, request: StoryRequest, judge: Judge) -> str:
        rng = random.Random(request.seed)
        most = request.length or self._lengths.max_tokens
        for _ in range(self._lengths.tries):
            await asyncio.sleep(0)  # a stop request lands here, whatever the judge does
            pick = rng.choice(self._entries)
            texts = [pick.text, pick.text[: pick.keep_chars]] if pick.keep_chars else [pick.text]
            tokens = await judge.tokenize(texts)
            pieces = tokens[0]
            lower = max(self._lengths.min_tokens, len(tokens[1]) if pick.keep_chars else 0)
            upper = min(most, len(pieces))
            if upper < lower or upper == 0:
                continue
            length = rng.randint(lower, upper) if self._lengths.randomize else upper
            return "".join(pieces[:length])
        fallback = JudgeStorySource(judge, default_tokens=self._lengths.max_tokens)
        return (await fallback.stories([request]))[0]


def make_corpus_source(spec: Spec, judge: Judge | None) -> CorpusStorySource:
    """`corpus:PATH?...` (see the module docstring)."""
    formats = tuple(f for f in (spec.params.get("formats") or "").split(",") if f)
    kind = spec.params.get("kind") or "text"
    entries = load_corpus(Path(spec.arg), kind, spec.params.get("field") or "text", formats)
    lengths = Lengths(
        min_tokens=spec.int_param("min_tokens", 0, minimum=0, maximum=MAX_STORY_TOKENS),
        max_tokens=spec.int_param(
            "max_tokens", DEFAULT_STORY_TOKENS, minimum=1, maximum=MAX_STORY_TOKENS),
        randomize=spec.bool_param("randomize", False),
        tries=spec.int_param("tries", DEFAULT_TRIES, minimum=1, maximum=MAX_TRIES),
    )
    return CorpusStorySource(entries, judge, lengths, label=spec.raw)
