"""Which format a file given to `arena import` is in: the one place that knows every format.

A format comes from ``--format``, else from the file's extension (.csv, .jsonl), else, for a
JSON document, from its content: each entry of `JSON_FORMATS` recognises one kind of document
(first match wins). To add a format, add its name to `ImportFormat` (and to the copy in
`arena.tournaments.cli.imports`) and, if it is JSON, a recogniser to `JSON_FORMATS`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Literal, get_args

from arena.errors import ConfigError
from arena.file_input import FileInputError, loads_json
from arena.tournaments.services.exchange.xent_config import is_xent_config
from arena.tournaments.services.exchange.xent_results import is_xent_results

__all__ = ["FORMATS", "JSON_FORMATS", "ImportFormat", "detect_format"]

ImportFormat = Literal["gamebench", "csv", "jsonl", "xent-results", "xent-config"]
# Formats of match results (a xent-config is written as a tournament file by
# `arena import-benchmark`: xent_config.py).
FORMATS: tuple[ImportFormat, ...] = tuple(f for f in get_args(ImportFormat) if f != "xent-config")
BY_SUFFIX = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


def _is_gamebench(obj: object) -> bool:
    return isinstance(obj, list) and bool(obj) and all(
        isinstance(m, Mapping) and "game" in m for m in obj[:10]
    )


JSON_FORMATS: tuple[tuple[str, Callable[[object], bool]], ...] = (
    ("xent-results", is_xent_results),  # the reference's BenchmarkResult
    ("xent-config", is_xent_config),  # the reference's benchmark configuration
    ("gamebench", _is_gamebench),  # GameBench's matches.json
)
_CONTENT_HINT = (
    "a Xent benchmark result (an object with 'results'), a Xent benchmark config (with "
    "'config_type') or GameBench matches (an array of objects with 'game')"
)


def detect_format(path: Path, text: str) -> tuple[str, object]:
    """The format of `path` (whose text is `text`) from its extension or JSON content, with
    the parsed JSON (None when the extension told, so a large file is parsed once);
    ConfigError with one sentence when neither tells."""
    found = BY_SUFFIX.get(path.suffix.lower())
    if found is not None:
        return found, None
    try:
        obj = loads_json(text)
    except FileInputError as error:
        raise ConfigError(
            f"Cannot read '{path.name}': its JSON {error}. Fix the file, or pass --format "
            f"with one of: {', '.join(FORMATS)}."
        ) from None
    except json.JSONDecodeError as error:
        raise ConfigError(
            f"Cannot tell the format of '{path.name}': it is neither .csv nor .jsonl, and not "
            f"JSON ({error.msg} at line {error.lineno}). Pass --format with one of: "
            f"{', '.join(FORMATS)}."
        ) from None
    for name, recognises in JSON_FORMATS:
        if recognises(obj):
            return name, obj
    raise ConfigError(
        f"Cannot tell the format of '{path.name}': its JSON is not {_CONTENT_HINT}. "
        f"Pass --format with one of: {', '.join(FORMATS)}."
    )
