"""`arena export`: a tournament's matches, seats and ratings as CSV, JSON or Parquet files.

Three tables, one file each in the output folder (``matches.csv``, ``seats.csv``,
``ratings.csv``, or ``.json`` / ``.parquet``):

* matches: one row per stored match (any status): its short key ``match`` (as ``arena
  matches`` and the dashboard show it), its full plan key ``match_key``, and everything
  that traces a number to it (game and version, map, play seed, judge and revision,
  dialect, run) and, for imported matches, the source file and its sha256;
* seats: one row per seat: role, participant, main seat or NPC, best score, forfeit and the
  round scores (a JSON list in CSV, a list in JSON and Parquet);
* ratings: the leaderboard rows of ``arena ratings`` plus the scale and point estimate.

JSON files are arrays of objects, one per line. Parquet needs pyarrow (the
``xent-arena[parquet]`` extra), imported only when asked for.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, get_args

from arena.errors import ConfigError, MissingExtraError, did_you_mean
from arena.storage import Store
from arena.storage.match_keys import short_key
from arena.tournaments.ratings.service import (
    DEFAULT_OPTIONS,
    RatingOptions,
    compute_ratings,
    resolved_point,
)
from arena.tournaments.records.from_store import check_tournaments
from arena.tournaments.records.rating_store import load_inputs

ExportFormat = Literal["csv", "json", "parquet"]
FORMATS: tuple[ExportFormat, ...] = get_args(ExportFormat)
# `match` is the short key `arena matches` and the dashboard show (arena.storage.match_keys);
# `match_key` the full plan key it starts.
MATCH_COLUMNS = (
    "tournament", "match", "match_key", "game", "game_version", "code_sha256", "dialect",
    "map_id", "map_index", "map_seed", "map_label", "play_seed", "mode", "main_role", "rounds",
    "status", "error", "event_count", "judge_model", "judge_revision", "judge_dtype", "run_id",
    "finished_at", "source_file", "source_sha256",
)
SEAT_COLUMNS = (
    "tournament", "match", "match_key", "game", "role", "participant", "spec", "main", "best",
    "forfeit", "round_scores",
)
RATING_COLUMNS = (
    "participant", "rating", "ci_low", "ci_high", "rank_low", "rank_high", "n_comparisons",
    "provisional", "scale", "point",
)
Rows = list[dict[str, Any]]


def export_tables(
    store: Store, tournaments: Sequence[str], options: RatingOptions = DEFAULT_OPTIONS
) -> dict[str, Rows]:
    """The three tables (``matches``, ``seats``, ``ratings``) as lists of row dicts."""
    names = check_tournaments(store, tournaments)
    matches: Rows = []
    seats: Rows = []
    for name in names:
        found = store.stored_matches(name)
        sources = {s.run_id: s for s in store.import_sources(name)}
        labels = store.map_labels([m.map_id for m in found]) if sources else {}
        for m in found:
            source = sources.get(m.run_id)
            matches.append(
                {
                    "tournament": name, "match": short_key(m.key), "match_key": m.key,
                    "game": m.game,
                    "game_version": m.game_version, "code_sha256": m.code_sha256,
                    "dialect": m.dialect, "map_id": m.map_id, "map_index": m.map_index,
                    "map_seed": m.map_seed, "map_label": labels.get(m.map_id, ""),
                    "play_seed": m.play_seed, "mode": m.mode, "main_role": m.main_role,
                    "rounds": m.rounds, "status": m.status, "error": m.error,
                    "event_count": m.event_count, "judge_model": m.judge_model,
                    "judge_revision": m.judge_revision, "judge_dtype": m.judge_dtype,
                    "run_id": m.run_id, "finished_at": m.finished_at.isoformat(),
                    "source_file": source.file if source else "",
                    "source_sha256": source.sha256 if source else "",
                }
            )
            seats += [
                {
                    "tournament": name, "match": short_key(m.key), "match_key": m.key,
                    "game": m.game, "role": s.role,
                    "participant": s.participant, "spec": s.spec, "main": s.main,
                    "best": s.best, "forfeit": s.forfeit, "round_scores": list(s.round_scores),
                }
                for s in m.seats
            ]
    inputs = load_inputs(store, names)
    point = resolved_point(inputs, options)
    ratings = [
        {**row, "scale": options.scale, "point": point}
        for row in compute_ratings(inputs, options).as_dicts()
    ]
    return {"matches": matches, "seats": seats, "ratings": ratings}


COLUMNS: Mapping[str, Sequence[str]] = {
    "matches": MATCH_COLUMNS,
    "seats": SEAT_COLUMNS,
    "ratings": RATING_COLUMNS,
}


def _csv_cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, list):
        return json.dumps(value)
    return value


def write_csv(path: Path, columns: Sequence[str], rows: Rows) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_csv_cell(row[c]) for c in columns])


def write_json(path: Path, columns: Sequence[str], rows: Rows) -> None:
    lines = [json.dumps({c: row[c] for c in columns}) for row in rows]
    body = "[\n" + ",\n".join(lines) + "\n]\n" if lines else "[]\n"
    path.write_text(body, encoding="utf-8")


def require_pyarrow() -> None:
    """ConfigError naming the extra when pyarrow is not installed."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise MissingExtraError(
            "Parquet export", "pyarrow", "pip install 'xent-arena[parquet]'.",
            also="Or use --format csv or --format json.",
        ) from None


def write_parquet(path: Path, columns: Sequence[str], rows: Rows) -> None:
    require_pyarrow()
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pydict({c: [row[c] for row in rows] for c in columns})
    pq.write_table(table, path)


WRITERS = {"csv": write_csv, "json": write_json, "parquet": write_parquet}


def output_folder(out: str | Path) -> Path:
    """The folder `out`, created if missing; `ConfigError` when it cannot be one (an
    existing file, a parent that is a file, no permission), before any work is done."""
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise ConfigError(
            f"--out '{folder}' is an existing file, but export writes a folder of matches, "
            f"seats and ratings files. Pass a folder, e.g. --out {folder.with_suffix('')}-export."
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(
            f"Cannot create the export folder '{folder}': {error.strerror}. Pass a folder "
            "you can write to with --out."
        ) from None
    return folder


def write_tables(tables: Mapping[str, Rows], out: str | Path, fmt: str) -> list[Path]:
    """Write each table to ``OUT/<table>.<fmt>``; returns the paths written."""
    if fmt not in FORMATS:
        raise ConfigError(f"Unknown export format '{fmt}'.{did_you_mean(fmt, FORMATS)}")
    folder = output_folder(out)
    written = []
    for name, rows in tables.items():
        path = folder / f"{name}.{fmt}"
        WRITERS[fmt](path, COLUMNS[name], rows)
        written.append(path)
    return written


def export(
    store: Store,
    tournaments: Sequence[str],
    out: str | Path,
    fmt: str = "csv",
    options: RatingOptions = DEFAULT_OPTIONS,
) -> list[Path]:
    """Export the tournaments' matches, seats and ratings into folder `out`."""
    if fmt not in FORMATS:  # before any work
        raise ConfigError(f"Unknown export format '{fmt}'.{did_you_mean(fmt, FORMATS)}")
    if fmt == "parquet":
        require_pyarrow()
    output_folder(out)
    return write_tables(export_tables(store, tournaments, options), out, fmt)
