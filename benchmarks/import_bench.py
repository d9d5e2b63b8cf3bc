"""Storing an imported result file (issue 29 item 9): the bulk insert of `arena import`
against the row-by-row path it replaced, side by side on the same Xent benchmark result
files (one-seat results of 6 games x 20 players, 20 results per map).

- **before**: what `save_import` did until then, rebuilt here from the parts that remain
  (`find_or_insert` per map, a map's index counted over all maps seen so far, every match a
  `FinishedMatch` through the executor's `insert_matches`: one INSERT ... RETURNING per
  match on SQLite);
- **after**: `import_parsed` as `arena import` runs it (one statement per table).

Both parse the same file first (`parse_file`, timed on its own) and write a fresh SQLite
database; the stored matches and seats are compared after each pair of runs.

    python benchmarks/import_bench.py [--sizes 2000,20000,200000] [--before-max 20000]

`--before-max` skips the old path above that size (it took 136 s for 200 000 results on the
2-core CI machine). Prints a table and, last, `import_s_at_max=<seconds>` (parse + store of
the largest file, after).
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import tempfile
import time
from pathlib import Path

from arena.storage import Store
from arena.storage import tables as t
from arena.storage.imports import ImportBatch, match_key
from arena.storage.match_rows import insert_matches
from arena.storage.records import MATCH_DONE, FinishedMatch, SeatResult
from arena.storage.rows import find_or_insert
from arena.tournaments.services.exchange.importers import ParsedFile, import_parsed, parse_file

GAMES = ("Condense", "Contrast", "Alethiometer", "Two-Ways", "Synthesize", "Horizon")


def write_results(path: Path, n: int) -> None:
    rng = random.Random(n)
    results = [
        {"game_map": {"name": GAMES[i % 6], "map_seed": f"game{GAMES[i % 6]}_map{i // 120}"},
         "player": {"id": f"model-{(i // 6) % 20}", "name": "black"},
         "score": round(rng.uniform(-40, 40), 3)}
        for i in range(n)
    ]
    path.write_text(json.dumps({"expanded_config": {}, "results": results}), encoding="utf-8")


def store_before(store: Store, parsed: ParsedFile, tournament: str) -> None:
    """The row-by-row import (the tournament and run rows as `save_import` writes them)."""
    from sqlalchemy import insert

    from arena import __version__

    batch = ImportBatch(tournament, parsed.file, parsed.sha256, parsed.format,
                        parsed.outcome, parsed.point, parsed.matches, __version__)
    with store.engine.begin() as conn:
        now = t.utcnow()
        tid = conn.execute(insert(t.Tournament), {"name": tournament, "mode": "import",
                           "config_json": "{}", "created_at": now}).inserted_primary_key[0]
        run = conn.execute(insert(t.Run), {
            "tournament_id": tid, "status": "imported", "planned": 0, "pending": 0,
            "config_sha256": batch.sha256, "arena_version": "", "host": "", "pid": 0,
            "started_at": now, "finished_at": now}).inserted_primary_key[0]
        spec = f"import:{batch.format}"
        judge = find_or_insert(conn, t.JudgeRecord, {"spec": spec, "name": "external",
                               "model": "", "revision": "", "dtype": ""}, {"vocab_size": 0})
        people: dict[str, int] = {}
        games: dict[str, int] = {}
        maps: dict[tuple[str, str], tuple[int, int]] = {}
        out = []
        for m in batch.matches:
            for s in m.seats:
                if s.participant not in people:
                    people[s.participant] = find_or_insert(
                        conn, t.Participant, {"name": s.participant, "spec": spec,
                                              "plugin": "import", "plugin_version": ""},
                        {"model": "", "params_json": "{}"})
            if m.game not in games:
                games[m.game] = find_or_insert(
                    conn, t.Game, {"name": m.game, "version": "import", "dialect": "import",
                                   "code_sha256": ""}, {"filename": "", "source": ""})
            if (m.game, m.map_label) not in maps:
                index = sum(1 for game, _ in maps if game == m.game)
                map_id = find_or_insert(
                    conn, t.GameMap, {"game_id": games[m.game], "seed": 0,
                                      "story_source": "import:" + m.map_label},
                    {"stories_json": "{}", "created_at": now})
                maps[(m.game, m.map_label)] = (map_id, index)
            map_id, index = maps[(m.game, m.map_label)]
            out.append(FinishedMatch(
                key=match_key(tournament, batch.sha256, m.ident), tournament_id=int(tid),
                run_id=int(run), game_id=games[m.game], map_id=map_id, judge_id=judge,
                map_index=index, play_seed=0, mode=m.mode,
                main_role=m.seats[0].role if m.mode == "eval" else None, rounds=1,
                dialect="import", status=MATCH_DONE, error=None, started_at=now,
                finished_at=now,
                seats=tuple(SeatResult(role=s.role, participant_id=people[s.participant],
                                       main=True, best=s.score, forfeit=s.forfeit,
                                       round_scores=(s.score,)) for s in m.seats),
                events=()))
        insert_matches(conn, out)


def rows(db: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT x.map_index, x.mode, x.main_role, s.role, p.name, s.best, m.story_source "
            "FROM matches x JOIN seats s ON s.match_id = x.id JOIN participants p ON "
            "p.id = s.participant_id JOIN maps m ON m.id = x.map_id ORDER BY x.key"
        ).fetchall()


def timed_store(folder: Path, name: str, parsed: ParsedFile, before: bool) -> float:
    db = folder / f"{name}.db"
    store = Store.open(f"sqlite:///{db}", create=True)
    start = time.perf_counter()
    if before:
        store_before(store, parsed, "bench")
    else:
        import_parsed(store, parsed, "bench")
    seconds = time.perf_counter() - start
    store.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,20000,200000", help="results per file")
    parser.add_argument("--before-max", type=int, default=20_000,
                        help="largest file the row-by-row path stores")
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    print(f"{'results':>8} {'parse s':>8} {'before s':>9} {'after s':>8} {'speed-up':>9}")
    total = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for n in sizes:
            path = folder / f"r{n}.json"
            write_results(path, n)
            start = time.perf_counter()
            parsed = parse_file(path)
            parse_s = time.perf_counter() - start
            after = timed_store(folder, f"after{n}", parsed, before=False)
            if n <= args.before_max:
                before = timed_store(folder, f"before{n}", parsed, before=True)
                same = rows(folder / f"before{n}.db") == rows(folder / f"after{n}.db")
                assert same, f"the two paths stored different rows for {n} results"
                cells = f"{before:>9.2f} {after:>8.2f} {before / after:>8.1f}x"
            else:
                cells = f"{'-':>9} {after:>8.2f} {'-':>9}"
            print(f"{n:>8} {parse_s:>8.2f} {cells}")
            total = parse_s + after
    print(f"import_s_at_max={total:.2f}")


if __name__ == "__main__":
    main()
