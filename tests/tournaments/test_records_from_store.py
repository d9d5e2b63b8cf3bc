"""Stored matches as rating records: eval (main character vs NPCs), head-to-head, imported."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from arena.errors import UnknownNameError
from arena.plugins.registry import Registry
from arena.storage import MATCH_ERROR, Store, sqlite_url
from arena.storage.queries import stored_matches
from arena.tournaments.records.from_store import load_records, records_from_store
from arena.tournaments.services.exchange.importers import import_file
from arena.tournaments.services.run_config import run_file
from tests.tournaments import arena_fixtures as fx

HEAD_TO_HEAD = """
name = "h2h"
mode = "head_to_head"
judge = "ngram"
maps = 1
seed = 3
[[participants]]
name = "a"
player = "random?words=2"
[[participants]]
name = "b"
player = "scripted:the cat sat"
[[games]]
game = "zerosum.xgl"
"""


@pytest.fixture(scope="module")
def registry() -> Registry:
    return fx.registry()


async def test_eval_records_have_one_rated_main_seat_and_npc_seats(tmp_path: Path, registry: Registry) -> None:
    db = sqlite_url(tmp_path / "a.db")
    await run_file(fx.tournament_file(tmp_path, fx.SMALL), db=db, registry=registry)
    store = Store.open(db)
    try:
        stored = stored_matches(store.engine, "small")
        records = load_records(store, ["small"])
    finally:
        store.close()
    assert len(records) == len(stored) == 12
    by_key = {m.key: m for m in stored}
    for rec in records:
        match = by_key[rec.match_id]
        assert rec.mode == "eval" and rec.game == match.game and rec.rounds == match.rounds
        assert rec.main.participant in ("alpha", "beta") and rec.main.role == match.main_role
        assert [s.participant for s in rec.seats if s.npc] == ["npc"] * (len(rec.seats) - 1)
        main = next(s for s in match.seats if s.main)
        assert rec.main.score == main.best and rec.main.round_scores == main.round_scores
        assert rec.map_id == str(match.map_id) and rec.order == float(match.id)
    # maps are shared: alpha's and beta's matches on one (game, role, map) are comparable
    keys = {rec.comparability_key() for rec in records}
    assert len(keys) == 6  # condense: 1 role x 2 maps, duel: 2 roles x 2 maps


async def test_head_to_head_records_rate_every_seat(tmp_path: Path, registry: Registry) -> None:
    db = sqlite_url(tmp_path / "h.db")
    await run_file(fx.tournament_file(tmp_path, HEAD_TO_HEAD), db=db, registry=registry)
    store = Store.open(db)
    try:
        records = load_records(store, ["h2h"])
    finally:
        store.close()
    assert len(records) == 2
    for rec in records:
        assert rec.mode == "head_to_head"
        assert sorted(s.participant for s in rec.players) == ["a", "b"]
        assert not any(s.npc for s in rec.seats)


def test_error_matches_are_left_out_and_missing_scores_are_forfeits(tmp_path: Path) -> None:
    store = Store.open(sqlite_url(tmp_path / "i.db"))
    try:
        csv = "game,participant_a,score_a,participant_b,score_b\nduel,x,1.5,y,forfeit\nsolo,x,2,,\n"
        path = tmp_path / "r.csv"
        path.write_text(csv)
        import_file(store, path, "ext")
        stored = stored_matches(store.engine, "ext")
    finally:
        store.close()
    duel, solo = records_from_store(stored)
    assert duel.mode == "head_to_head" and [s.npc for s in duel.seats] == [False, False]
    assert [(s.participant, s.score, s.forfeit) for s in duel.seats] == [("x", 1.5, False), ("y", None, True)]
    assert solo.mode == "eval" and solo.main.participant == "x" and solo.main.score == 2.0
    failed = dataclasses.replace(stored[0], status=MATCH_ERROR)
    assert [r.match_id for r in records_from_store([failed, stored[1]])] == [stored[1].key]


def test_unknown_tournaments_are_named_with_the_known_ones(tmp_path: Path) -> None:
    store = Store.open(sqlite_url(tmp_path / "e.db"))
    try:
        store.ensure_tournament("small", "eval", "{}")
        with pytest.raises(UnknownNameError, match="Did you mean 'small'"):
            load_records(store, ["smal"])
        assert load_records(store, ["small", "small"]) == []
    finally:
        store.close()
