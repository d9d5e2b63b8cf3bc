"""A tournament's seed key (XGL.md section 8): secret, kept in the database, the same for
every run, distinct per tournament; schema v5 gives existing tournaments one without
changing their plans, so stored matches stay valid and a resume plays only what is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from arena.plugins.registry import Registry
from arena.storage import CURRENT_VERSION, Store, create_db_engine, sqlite_url
from arena.storage.migrations import schema_version
from arena.storage.queries import match_events, stored_matches
from arena.tournaments.services.run_config import run_file
from tests.tournaments import arena_fixtures as fx

ONE_GAME = fx.SMALL.split("[[games]]")[0] + '[[games]]\ngame = "condense.xgl"\n'


@pytest.fixture(scope="module")
def registry() -> Registry:
    return fx.registry()


def beta_moves(db: str, tournament: str) -> dict[tuple[int, int], list[str]]:
    """The random entrant's moves per (map, round), from the stored events."""
    store = Store.open(db)
    try:
        moves: dict[tuple[int, int], list[str]] = {}
        for m in stored_matches(store.engine, tournament):
            if [s.participant for s in m.seats if s.main] != ["beta"]:
                continue
            for event in match_events(store.engine, m.key):
                if event.type == "elicit_response":
                    moves.setdefault((m.map_index, event.round), []).append(event.values["t"])
        return moves
    finally:
        store.close()


def key_of(db: str, tournament: str) -> bytes:
    store = Store.open(db)
    try:
        with store.engine.connect() as conn:
            ident = conn.execute(
                text("SELECT id FROM tournaments WHERE name = :n"), {"n": tournament}
            ).scalar_one()
        return store.tournament_seed_key(int(ident))
    finally:
        store.close()


async def test_the_key_is_secret_per_tournament_and_replays_its_matches(tmp_path: Path, registry: Registry) -> None:
    path = fx.tournament_file(tmp_path, ONE_GAME)
    other = tmp_path / "other.toml"
    other.write_text(ONE_GAME.replace('name = "small"', 'name = "other"'), encoding="utf-8")
    db = sqlite_url(tmp_path / "a.db")
    await run_file(path, db=db, registry=registry)
    await run_file(other, db=db, registry=registry)
    key = key_of(db, "small")
    assert len(key) == 32 and key != key_of(db, "other")
    first = beta_moves(db, "small")
    assert first and first != beta_moves(db, "other")  # same seed and maps, other key
    # Forget the matches: the stored key replays them move for move.
    engine = create_db_engine(db)
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM matches"))
    engine.dispose()
    await run_file(path, db=db, registry=registry)
    assert key_of(db, "small") == key and beta_moves(db, "small") == first


async def test_upgrading_from_v4_keys_existing_tournaments_and_keeps_their_matches(tmp_path: Path, registry: Registry) -> None:
    path = fx.tournament_file(tmp_path, ONE_GAME)
    db = sqlite_url(tmp_path / "old.db")
    summary = await run_file(path, db=db, registry=registry)
    store = Store.open(db)
    keys_before = sorted(m.key for m in stored_matches(store.engine, "small"))
    store.close()
    engine = create_db_engine(db)  # back to a version 4 database: no key column
    with engine.begin() as conn:
        conn.execute(text("ALTER TABLE tournaments DROP COLUMN seed_key"))
        conn.execute(text("UPDATE schema_version SET version = 4"))
    engine.dispose()

    store = Store.open(db)
    with store.engine.connect() as conn:
        assert schema_version(conn) == CURRENT_VERSION >= 5
        stored_key = conn.execute(text("SELECT seed_key FROM tournaments")).scalar_one()
    assert len(bytes.fromhex(stored_key)) == 32
    assert sorted(m.key for m in stored_matches(store.engine, "small")) == keys_before
    store.close()
    again = await run_file(path, db=db, registry=registry)
    assert (again.already_done, again.pending) == (summary.planned, 0)  # resume: nothing to redo


async def test_the_public_tournament_seed_does_not_regenerate_the_maps(tmp_path: Path, registry: Registry) -> None:
    """Map seeds follow from the tournament seed, which a published tournament file shows;
    the map texts are sampled under the tournament's secret key, so that seed and the story
    source alone do not regenerate a hidden story, while the key does."""
    from arena.match_setup import load_game_ref
    from arena.runtime.maps import JudgeStorySource, resolve_map
    from arena.runtime.seeds import story_seed

    path = fx.tournament_file(tmp_path, ONE_GAME)
    db = sqlite_url(tmp_path / "a.db")
    await run_file(path, db=db, registry=registry)
    key = key_of(db, "small")
    engine = create_db_engine(db)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT seed, stories_json FROM maps")).all()
    engine.dispose()
    assert len(rows) == 2  # maps = 2, one game
    program = load_game_ref(str(tmp_path / "condense.xgl"), registry).program
    source = JudgeStorySource(registry.create_judge("ngram"))
    for seed, stories_json in rows:
        stored = json.loads(stories_json)
        assert (await resolve_map(program, int(seed), source)).stories != stored
        assert (await resolve_map(program, story_seed(key, int(seed)), source)).stories == stored
