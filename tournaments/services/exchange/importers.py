"""`arena import`: external match results (GameBench, CSV, JSON Lines) into the database.

Readers turn a file into validated :class:`~arena.storage.imports.ImportedMatch` rows, each
with the line it came from; every bad row is collected, and if there is any the whole file
is refused (:class:`ImportFileError` lists each bad line with its text) before anything is
written. :func:`import_file` then stores the file in one transaction, keyed by its sha256,
so importing the same file again changes nothing.

CSV and JSON Lines share one *wide* format, one match per row (see README, "Importing
external results"): ``game``, then per seat X in a, b, c, ... ``participant_X``, ``score_X``
and optionally ``role_X``; optional ``map`` and ``match_id``. A score is a number or
``forfeit``. A row with one seat is an eval-mode result (compared with other rows of the
same game, map and role); a row with two or more seats is a head-to-head match.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena import __version__
from arena.errors import ConfigError, did_you_mean
from arena.file_input import FileInputError, loads_json, read_regular_file
from arena.specs import NAME_RE
from arena.storage import Store
from arena.storage.imports import (
    ImportBatch,
    ImportedMatch,
    ImportedSeat,
    ImportResult,
)
from arena.tournaments.ratings.outcomes import HIGHER_WINS, OUTCOMES, WIN_SHARE
from arena.tournaments.services.exchange.formats import FORMATS, ImportFormat, detect_format
from arena.tournaments.services.exchange.names import MAX_LABEL_CHARS, name_problem
from arena.tournaments.services.exchange.xent_results import read_xent_results

__all__ = ["FORMATS", "ImportFormat", "import_file", "import_parsed", "parse_file"]

FORFEIT = "forfeit"
SEAT_COLUMN = re.compile(r"(participant|score|role)_([a-z])")
OTHER_COLUMNS = ("game", "map", "match_id")
GAMEBENCH_ROLES = ("first", "second")  # JSON key order; GameBench does not say who moved first
MAX_TEXT = 160
MAX_FILE_BYTES = 512 * 2**20  # 200 000 Xent benchmark results take 30 MiB


@dataclass(frozen=True)
class Problem:
    line: int
    message: str
    text: str


class ImportFileError(ConfigError):
    """A file with malformed rows; nothing of it was imported."""

    def __init__(self, path: str, problems: Sequence[Problem]) -> None:
        self.path, self.problems = path, tuple(problems)
        n = len(self.problems)
        lines = [
            f"{path}: {n} malformed row{'s' if n != 1 else ''}; nothing was imported. "
            "Fix them and run the command again (the format is in README.md, "
            "'Importing external results')."
        ]
        for p in self.problems:
            shown = p.text if len(p.text) <= MAX_TEXT else p.text[: MAX_TEXT - 3] + "..."
            lines.append(f"  line {p.line}: {p.message}")
            if shown:
                lines.append(f"      {shown}")
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class ParsedFile:
    """A validated file: what `import_file` stores."""

    file: str
    sha256: str
    format: str
    outcome: str
    point: str
    matches: tuple[ImportedMatch, ...]


# ----------------------------------------------------------------------------- wide rows


def _score(value: object, column: str) -> tuple[float | None, bool]:
    """(score, forfeit) from a cell; ValueError with the problem."""
    if isinstance(value, str):
        text = value.strip()
        if text.lower() == FORFEIT:
            return None, True
        try:
            number = float(text)
        except ValueError:
            raise ValueError(
                f"{column} '{value}' is not a number; write a score like 1.25, or '{FORFEIT}'"
            ) from None
    elif isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    else:
        raise ValueError(f"{column} is {value!r}; write a number, or '{FORFEIT}'")
    if not math.isfinite(number):
        raise ValueError(f"{column} is {value!r}; scores must be finite numbers")
    return number, False


def _text(value: object, column: str) -> str:
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"{column} is {value!r}; write a string")
    return str(value).strip()


def _seat_letters(columns: Sequence[str]) -> list[str]:
    return sorted({m.group(2) for c in columns if (m := SEAT_COLUMN.fullmatch(c))})


def check_columns(columns: Sequence[str]) -> list[str]:
    """Problems with a header (or a JSON object's keys): unknown or unpaired columns."""
    problems = []
    letters = _seat_letters(columns)
    valid = [*OTHER_COLUMNS, *(f"{k}_{x}" for x in letters or "ab" for k in ("participant",
                                                                           "score", "role"))]
    for c in columns:
        if c not in OTHER_COLUMNS and not SEAT_COLUMN.fullmatch(c):
            problems.append(f"unknown column '{c}'.{did_you_mean(c, valid)}")
    if "game" not in columns:
        problems.append("no 'game' column")
    for x in letters:
        for kind in ("participant", "score"):
            if f"{kind}_{x}" not in columns:
                problems.append(f"seat {x} has no '{kind}_{x}' column")
    if not letters:
        problems.append("no seat columns: add participant_a, score_a (and _b, _c, ...)")
    return problems


def wide_row(values: Mapping[str, object], outcome: str) -> tuple[ImportedMatch, str | None]:
    """One match from a row's cells, and its `match_id` (None when not given); ValueError
    with every problem of the row, joined by '; '."""
    problems: list[str] = []
    game = ""
    try:
        game = _text(values.get("game"), "game")
    except ValueError as error:
        problems.append(str(error))
    if not game and not problems:
        problems.append("game is empty")
    seats: list[ImportedSeat] = []
    for x in _seat_letters(list(values)):
        try:
            who = _text(values.get(f"participant_{x}"), f"participant_{x}")
            raw = values.get(f"score_{x}")
            role = _text(values.get(f"role_{x}"), f"role_{x}") or x
        except ValueError as error:
            problems.append(str(error))
            continue
        blank = raw is None or (isinstance(raw, str) and not raw.strip())
        if not who and blank:
            continue  # seat not used in this row
        if not who:
            problems.append(f"participant_{x} is empty but score_{x} is {raw!r}")
            continue
        if blank:
            problems.append(f"score_{x} of '{who}' is empty; write a number, or '{FORFEIT}'")
            continue
        try:
            score, forfeit = _score(raw, f"score_{x}")
        except ValueError as error:
            problems.append(str(error))
            continue
        if outcome == WIN_SHARE and score is not None and score < 0:
            problems.append(f"score_{x} is {score}; win shares must be >= 0")
        for value, what in ((who, f"participant_{x}"), (role, f"role_{x}")):
            if (problem := name_problem(value, what)) is not None:
                problems.append(problem)
        seats.append(ImportedSeat(role, who, score, forfeit))
    if not seats and not problems:
        problems.append("no seat: fill participant_a and score_a")
    names = [s.participant for s in seats]
    roles = [s.role for s in seats]
    if len(set(names)) != len(names):
        problems.append(f"a participant fills two seats: {names}")
    if len(set(roles)) != len(roles):
        problems.append(f"a role is used twice: {roles}")
    if outcome == WIN_SHARE and len(seats) == 1:
        problems.append("win shares need at least two seats (participant_b, score_b)")
    if game and (problem := name_problem(game, "game")) is not None:
        problems.append(problem)
    try:
        map_label = _text(values.get("map"), "map")
        match_id = _text(values.get("match_id"), "match_id") or None
    except ValueError as error:
        problems.append(str(error))
        map_label, match_id = "", None
    if map_label and (problem := name_problem(map_label, "map", MAX_LABEL_CHARS)):
        problems.append(problem)
    if match_id is not None and len(match_id) > MAX_LABEL_CHARS:
        problems.append(f"match_id is {len(match_id):,} characters long; at most "
                        f"{MAX_LABEL_CHARS}")
    if problems:
        raise ValueError("; ".join(problems))
    mode = "eval" if len(seats) == 1 else "head_to_head"
    return ImportedMatch("", game, map_label, mode, tuple(seats)), match_id


def _identified(
    rows: Sequence[tuple[int, str, ImportedMatch, str | None]], problems: list[Problem]
) -> list[ImportedMatch]:
    """Give each row its ident (match id or line) and report repeated match ids."""
    seen: dict[str, int] = {}
    out = []
    for line, text, match, match_id in rows:
        if match_id is not None:
            if match_id in seen:
                problems.append(
                    Problem(line, f"match_id '{match_id}' already used on line {seen[match_id]}",
                            text)
                )
                continue
            seen[match_id] = line
        ident = f"id:{match_id}" if match_id is not None else f"line:{line:08d}"
        out.append(ImportedMatch(ident, match.game, match.map_label, match.mode, match.seats))
    return out


def read_csv(text: str, outcome: str) -> tuple[list[ImportedMatch], list[Problem]]:
    """Rows of a CSV file with a header (line 1)."""
    raw_lines = text.split("\n")
    reader = csv.reader(io.StringIO(text))
    problems: list[Problem] = []
    header = next(reader, None)
    if header is None:
        return [], [Problem(1, "the file is empty; it needs a header line", "")]
    columns = [c.strip() for c in header]
    bad = check_columns(columns)
    if len(set(columns)) != len(columns):
        bad.append(f"a column name repeats: {columns}")
    if bad:
        return [], [Problem(1, "; ".join(bad), raw_lines[0])]
    rows: list[tuple[int, str, ImportedMatch, str | None]] = []
    last = reader.line_num
    try:
        for cells in reader:
            start, last = last + 1, reader.line_num
            source = "\n".join(raw_lines[start - 1 : last]).rstrip("\r")
            if not any(c.strip() for c in cells):
                continue
            if len(cells) != len(columns):
                problems.append(
                    Problem(start, f"{len(cells)} fields, the header has {len(columns)}", source)
                )
                continue
            try:
                match, match_id = wide_row(dict(zip(columns, cells, strict=True)), outcome)
            except ValueError as error:
                problems.append(Problem(start, str(error), source))
                continue
            rows.append((start, source, match, match_id))
    except csv.Error as error:
        problems.append(Problem(reader.line_num, f"CSV syntax: {error}", ""))
    return _identified(rows, problems), problems


def read_jsonl(text: str, outcome: str) -> tuple[list[ImportedMatch], list[Problem]]:
    """One JSON object per line, with the CSV columns as keys; blank lines are skipped."""
    problems: list[Problem] = []
    rows: list[tuple[int, str, ImportedMatch, str | None]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        source = line.rstrip("\r")
        if not source.strip():
            continue
        try:
            obj = loads_json(source)
        except json.JSONDecodeError as error:
            problems.append(Problem(number, f"not valid JSON ({error.msg})", source))
            continue
        except FileInputError as error:
            problems.append(Problem(number, f"the line {error}", source))
            continue
        if not isinstance(obj, dict):
            problems.append(Problem(number, "expected a JSON object {...}", source))
            continue
        bad = check_columns(list(obj))
        if bad:
            problems.append(Problem(number, "; ".join(bad), source))
            continue
        try:
            match, match_id = wide_row(obj, outcome)
        except ValueError as error:
            problems.append(Problem(number, str(error), source))
            continue
        rows.append((number, source, match, match_id))
    if not rows and not problems:
        problems.append(Problem(1, "the file has no rows", ""))
    return _identified(rows, problems), problems


# ----------------------------------------------------------------------------- GameBench


def _json_array_items(text: str) -> Iterator[tuple[int, str, Any]]:
    """(line, source text, value) of each element of a top-level JSON array; ValueError
    when the text is not one."""
    decoder = json.JSONDecoder()
    ws = re.compile(r"[\s,]*")
    pos = ws.match(text, 0).end()  # type: ignore[union-attr]
    if not text.startswith("[", pos):
        raise ValueError("expected a JSON array of matches [{...}, ...]")
    pos += 1
    while True:
        pos = ws.match(text, pos).end()  # type: ignore[union-attr]
        if text.startswith("]", pos):
            return
        value, end = decoder.raw_decode(text, pos)
        yield text.count("\n", 0, pos) + 1, text[pos:end], value
        pos = end


def gamebench_row(obj: object) -> ImportedMatch:
    """One GameBench match ``{"game": g, agent_1: s_1, agent_2: s_2}``; ValueError."""
    if not isinstance(obj, dict):
        raise ValueError("expected an object {\"game\": ..., agent: score, agent: score}")
    game = obj.get("game")
    agents = [k for k in obj if k != "game"]
    if not isinstance(game, str) or not game.strip():
        raise ValueError("needs a 'game' string")
    if len(agents) != 2:
        raise ValueError(f"needs exactly two agent keys besides 'game', found {agents}")
    scores = [obj[a] for a in agents]
    if not all(isinstance(s, int | float) and not isinstance(s, bool) for s in scores):
        raise ValueError(f"scores {scores} must be numbers")
    s1, s2 = float(scores[0]), float(scores[1])
    if not (0.0 <= s1 <= 1.0 and 0.0 <= s2 <= 1.0 and math.isclose(s1 + s2, 1.0, abs_tol=1e-9)):
        raise ValueError(f"scores {s1} and {s2} must lie in [0, 1] and sum to 1")
    names = [(game.strip(), "game")] + [(a.strip(), f"agent {i + 1}") for i, a in enumerate(agents)]
    found = [p for value, what in names if (p := name_problem(value, what)) is not None]
    if found:
        raise ValueError("; ".join(found))
    seats = tuple(
        ImportedSeat(role, agent.strip(), score)
        for role, agent, score in zip(GAMEBENCH_ROLES, agents, (s1, s2), strict=True)
    )
    return ImportedMatch("", game.strip(), "", "head_to_head", seats)


def read_gamebench(text: str) -> tuple[list[ImportedMatch], list[Problem]]:
    """GameBench's ``matches.json`` (a JSON array; scores are win shares summing to 1)."""
    problems: list[Problem] = []
    out: list[ImportedMatch] = []
    try:
        for index, (line, source, obj) in enumerate(_json_array_items(text)):
            try:
                m = gamebench_row(obj)
            except ValueError as error:
                problems.append(Problem(line, f"match #{index}: {error}", source))
                continue
            out.append(ImportedMatch(f"#{index:08d}", m.game, m.map_label, m.mode, m.seats))
    except json.JSONDecodeError as error:
        problems.append(Problem(error.lineno, f"not valid JSON ({error.msg})", ""))
    except RecursionError:
        problems.append(Problem(1, "a match nests arrays or objects too deeply to be read", ""))
    except ValueError as error:
        problems.append(Problem(1, str(error), text.split("\n", 1)[0]))
    if not out and not problems:
        problems.append(Problem(1, "the array has no matches", ""))
    return out, problems


# ----------------------------------------------------------------------------- files


def parse_file(path: str | Path, fmt: str | None = None, outcome: str | None = None) -> ParsedFile:
    """Read and validate a whole file; ImportFileError lists every malformed row. Without
    `fmt` the format comes from the extension or the JSON content (`formats.detect_format`)."""
    where = Path(path)
    if fmt == "xent-config":
        raise _config_file(where)
    if fmt is not None and fmt not in FORMATS:
        raise ConfigError(f"Unknown import format '{fmt}'.{did_you_mean(fmt, FORMATS)}")
    if outcome is not None and outcome not in OUTCOMES:
        raise ConfigError(f"Unknown outcome rule '{outcome}'.{did_you_mean(outcome, OUTCOMES)}")
    try:
        data = read_regular_file(where, MAX_FILE_BYTES)
    except FileInputError as error:
        raise ConfigError(
            f"Cannot import '{where}': it {error}. Pass a results file ({', '.join(FORMATS)})."
        ) from None
    except OSError as error:
        raise ConfigError(f"Cannot read '{where}': {error.strerror}. Check the path.") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"'{where}' is not UTF-8 text (byte {error.start}). Save it as UTF-8 and retry."
        ) from None
    parsed: object = None
    if fmt is None:
        fmt, parsed = detect_format(where, text)
    if fmt == "xent-config":
        raise _config_file(where)
    if fmt not in FORMATS:  # recognised, but not a file of match results
        raise ConfigError(
            f"'{where.name}' is a {fmt} file, not match results; `arena import` cannot store "
            f"it as matches. Valid result formats: {', '.join(FORMATS)}."
        )
    fixed = {"gamebench": WIN_SHARE, "xent-results": HIGHER_WINS}.get(fmt)
    if fixed is not None and outcome not in (None, fixed):
        what = "GameBench scores are win shares" if fmt == "gamebench" else (
            "Xent benchmark scores are higher-is-better bits"
        )
        raise ConfigError(
            f"{what}; --outcome {outcome} does not apply to them. Leave --outcome out."
        )
    if fmt == "gamebench":
        rule, point = WIN_SHARE, "bootstrap_mean"  # GameBench's published convention
        matches, problems = read_gamebench(text)
    elif fmt == "xent-results":
        rule, point, problems = HIGHER_WINS, "mle", []
        obj = parsed if parsed is not None else _json(text, where)
        matches = read_xent_results(obj, where.name)
    else:
        rule, point = outcome or HIGHER_WINS, "mle"
        reader = read_csv if fmt == "csv" else read_jsonl
        matches, problems = reader(text, rule)
    if problems:
        raise ImportFileError(str(where), sorted(problems, key=lambda p: p.line))
    digest = hashlib.sha256(data).hexdigest()
    return ParsedFile(where.name, digest, fmt, rule, point, tuple(matches))


def _config_file(where: Path) -> ConfigError:
    return ConfigError(
        f"'{where.name}' is a Xent benchmark config, not match results: `arena import` "
        "stores results. Write the config as a tournament with: arena import-benchmark "
        f"{where} --out FOLDER"
    )


def _json(text: str, where: Path) -> object:
    try:
        return loads_json(text)
    except json.JSONDecodeError as error:
        raise ConfigError(
            f"'{where.name}' is not valid JSON ({error.msg} at line {error.lineno}); a Xent "
            "benchmark result is one JSON object. Fix the file and retry."
        ) from None
    except FileInputError as error:
        raise ConfigError(
            f"'{where.name}' {error}; a Xent benchmark result is one JSON object of results. "
            "Fix the file and retry."
        ) from None


def import_parsed(store: Store, parsed: ParsedFile, tournament: str) -> ImportResult:
    """Store a validated file as (part of) tournament `tournament`, unless it is there."""
    if not NAME_RE.fullmatch(tournament):
        raise ConfigError(
            f"Tournament name '{tournament}' may only use letters, digits, '_', '.', '-'."
        )
    batch = ImportBatch(
        tournament, parsed.file, parsed.sha256, parsed.format, parsed.outcome, parsed.point,
        parsed.matches, __version__,
    )
    result = store.save_import(batch)
    if not result.created and result.source.outcome != parsed.outcome:
        raise ConfigError(
            f"'{parsed.file}' is already in tournament '{tournament}' with outcome rule "
            f"'{result.source.outcome}', not '{parsed.outcome}'. Import it into another "
            "tournament to read its scores the other way."
        )
    return result


def import_file(
    store: Store,
    path: str | Path,
    tournament: str,
    fmt: str | None = None,
    outcome: str | None = None,
) -> ImportResult:
    """Validate `path` and store it as (part of) tournament `tournament`."""
    return import_parsed(store, parse_file(path, fmt, outcome), tournament)
