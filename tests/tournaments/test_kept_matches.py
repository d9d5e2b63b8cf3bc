"""Rating inputs read incrementally (`arena.tournaments.records.kept_matches`): what an
adaptive run reads before each round and its stopping rules read before each verdict. A
real tournament is played into a SQLite file, then played further; the kept reader must
give exactly the records a fresh read gives, having read only the matches stored since."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from typer.testing import CliRunner

from arena.cli import build_app
from arena.storage import Store, StoredMatch, sqlite_url
from arena.tournaments.records.kept_matches import KeptMatches
from arena.tournaments.records.rating_store import load_inputs
from tests.tournaments.arena_fixtures import THREE_ENTRANTS

APP = build_app()


class CountingSource:
    """A real store, seen through the methods KeptMatches calls, that remembers which match
    ids each read of done matches asked for (None: all of them)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.asked: list[Sequence[int] | None] = []
        self.where = store.where
        self.tournament_names = store.tournament_names
        self.done_match_ids = store.done_match_ids
        self.import_sources = store.import_sources
        self.tournament_config = store.tournament_config

    def stored_matches(self, tournament: str, *, status: str | None = None,
                       limit: int | None = None, ids: Sequence[int] | None = None,
                       ) -> list[StoredMatch]:
        if status == "done":
            self.asked.append(None if ids is None else list(ids))
        return self.store.stored_matches(tournament, status=status, limit=limit, ids=ids)


def play(tmp_path: Path, db: str, maps: int) -> None:
    (tmp_path / "t.toml").write_text(THREE_ENTRANTS.format(maps=maps, rules=""), encoding="utf-8")
    ran = CliRunner().invoke(APP, ["run", str(tmp_path / "t.toml"), "--db", db, "--no-progress"])
    assert ran.exit_code == 0, ran.output


def test_kept_reads_give_the_fresh_records_and_read_only_what_is_new(tmp_path: Path) -> None:
    db = sqlite_url(tmp_path / "a.db")
    play(tmp_path, db, maps=2)
    store = Store.open(db)
    source = CountingSource(store)
    kept = KeptMatches(source)
    try:
        first = load_inputs(kept, ["small"], kept.records).records
        assert first == load_inputs(store, ["small"]).records and len(first) == 12
        assert source.asked == [None]  # everything is new: one read of the tournament
        play(tmp_path, db, maps=3)  # the same plans and 6 more matches, stored after
        second = load_inputs(kept, ["small"], kept.records).records
        fresh = load_inputs(store, ["small"]).records
        assert second == fresh and len(second) == 18
        assert second[:12] == first  # the kept records, in storage order
        assert all(a is b for a, b in zip(second, first, strict=False))  # made once, reused
        new = sorted(m.id for m in store.stored_matches("small", status="done"))[12:]
        assert source.asked[1:] == [new]  # then only the six stored since
        assert load_inputs(kept, ["small"], kept.records).records == fresh
        assert source.asked[2:] == []  # nothing new: no read of matches at all
    finally:
        store.close()
