"""One board (issue 30, item 3): the dashboard's live board is `arena ratings`, number for
number, for every kind of tournament: eval with an NPC and a base participant, head-to-head,
GameBench's released matches imported as win shares, two versions of one game, forfeits,
and both normalisations (catch-up, narms). The Leaderboard page, rating the stored matches
itself (no snapshot), shows the same numbers."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from arena.dashboard.data import match_records
from arena.dashboard.live_board import live_board
from arena.storage import MATCH_DONE, Store, sqlite_url
from arena.storage.read_model import Filters, ReadModel
from arena.tournaments.cli.ratings import app as ratings_app
from arena.tournaments.records.from_store import records_from_store
from arena.tournaments.services.exchange.importers import import_file
from arena.tournaments.services.run_config import run_file
from tests.dashboard.conftest import OpenApp, no_exception
from tests.dashboard.test_live import copy_db
from tests.tournaments import arena_fixtures as fx
from tests.tournaments.gamebench_reference import DATA, needs_data

EVAL = """
name = "kinds-eval"
judge = "ngram"
npc = "npc"
base = "alpha"
normalisation = "catch-up"
maps = 3
rounds = 2
seed = 21

[[participants]]
name = "npc"
player = "sleepy?words=2"
npc_only = true

[[participants]]
name = "alpha"
player = "sleepy?words=3"

[[participants]]
name = "beta"
player = "random?words=4"

[[participants]]
name = "crasher"
player = "scripted:<raise>"

[[games]]
game = "condense.xgl"

[[games]]
game = "duel.xgl"
rounds = 1
"""

HEAD_TO_HEAD = """
name = "kinds-h2h"
mode = "head_to_head"
judge = "ngram"
base = "a"
normalisation = { method = "narms", theta = 0.5, m = 2 }
maps = 3
seed = 22

[[participants]]
name = "a"
player = "random?words=2"

[[participants]]
name = "b"
player = "sleepy?words=4"

[[participants]]
name = "c"
player = "scripted:<raise>"

[[games]]
game = "zerosum.xgl"
"""

# Played twice: with condense at version 1, then at version 2 (same name, same maps).
VERSIONS = """
name = "kinds-versions"
judge = "ngram"
npc = "npc"
maps = 3
seed = 23

[[participants]]
name = "npc"
player = "sleepy?words=2"
npc_only = true

[[participants]]
name = "alpha"
player = "sleepy?words=3"

[[participants]]
name = "beta"
player = "random?words=5"

[[games]]
game = "condense.xgl"
"""
CONDENSE_V2 = ("# version: 2\nassign(s=story(20))\nelicit(black, t, 4)\n"
               "reward(black, xed(s | t))\n")
KINDS = ("kinds-eval", "kinds-h2h", "kinds-gb", "kinds-versions")


@pytest.fixture(scope="module")
def kinds_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("kinds")
    url = sqlite_url(folder / "kinds.db")
    registry = fx.registry()
    for body in (EVAL, HEAD_TO_HEAD, VERSIONS):
        path = fx.tournament_file(folder, body)
        asyncio.run(run_file(path, db=url, registry=registry))
    (folder / "condense.xgl").write_text(CONDENSE_V2, encoding="utf-8")
    asyncio.run(run_file(fx.tournament_file(folder, VERSIONS, games=[]), db=url,
                         registry=registry))
    store = Store.open(url)
    try:
        if DATA.exists():
            import_file(store, DATA, "kinds-gb", "gamebench")
    finally:
        store.close()
    with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
        conn.execute("DELETE FROM rating_snapshots")  # the page rates the matches itself
    return url


def cli_board(url: str, tournament: str) -> pd.DataFrame:
    result = CliRunner().invoke(ratings_app, ["ratings", "-t", tournament, "--db", url,
                                              "--json"])
    assert result.exit_code == 0, result.output
    return pd.DataFrame(json.loads(result.output)).set_index("participant")


def test_the_fixture_has_every_kind(kinds_db: str) -> None:
    store = Store.open(kinds_db)
    try:
        versions = {m.game_version for m in store.stored_matches("kinds-versions")}
        forfeits = [s for name in ("kinds-eval", "kinds-h2h")
                    for m in store.stored_matches(name, status=MATCH_DONE)
                    for s in m.seats if s.forfeit]
        sources = store.import_sources("kinds-gb")
        configs = [store.tournament_config(n) or {} for n in ("kinds-eval", "kinds-h2h")]
    finally:
        store.close()
    assert versions == {"1", "2"} and forfeits
    assert [s.outcome for s in sources] == ["win-share"] and DATA.exists()
    assert [c.get("base") for c in configs] == ["alpha", "a"]
    assert [c["normalisation"]["method"] for c in configs] == ["catch-up", "narms"]


@needs_data
@pytest.mark.parametrize("tournament", KINDS)
def test_the_live_board_is_arena_ratings_number_for_number(kinds_db: str,
                                                           tournament: str) -> None:
    cli = cli_board(kinds_db, tournament)
    reader = ReadModel.open(kinds_db)
    try:
        first = live_board(reader, tournament).set_index("participant")
        again = live_board(reader, tournament).set_index("participant")  # from kept records
    finally:
        reader.close()
    for live in (first, again):
        assert list(live.index) == list(cli.index)  # the same order: ranks agree
        columns = ["rating", "ci_low", "ci_high", "rank_low", "rank_high", "n_comparisons",
                   "provisional"]
        pd.testing.assert_frame_equal(live[columns], cli[columns], check_exact=True,
                                      check_dtype=False)


@needs_data
@pytest.mark.parametrize("tournament", KINDS)
def test_the_leaderboard_page_shows_arena_ratings(open_app: OpenApp, kinds_db: str,
                                                  tmp_path: Path, tournament: str) -> None:
    url = copy_db(kinds_db, tmp_path)
    at = open_app("views/leaderboard.py", {"tournament": tournament}, url=url)
    no_exception(at)
    shown = at.dataframe[0].value.set_index("participant")
    cli = cli_board(url, tournament)
    assert list(shown.index) == list(cli.index)
    for column in ("rating", "ci_low", "ci_high", "rank_low", "rank_high", "n_comparisons"):
        assert list(shown[column]) == list(cli[column]), column
    assert any("1000 bootstrap resamples" in c.value for c in at.caption)


def test_the_dashboard_s_records_are_arena_ratings_records(kinds_db: str) -> None:
    """The rows the read model gives the pages that refit a selection become the very
    records `arena ratings` rates (ids, game versions, forfeits, NPC seats)."""
    reader = ReadModel.open(kinds_db)
    store = Store.open(kinds_db)
    try:
        for tournament in ("kinds-eval", "kinds-h2h", "kinds-versions"):
            ours = match_records(reader.scored_seats(Filters(tournament)))
            theirs = records_from_store(store.stored_matches(tournament, status=MATCH_DONE))
            assert ours == theirs, tournament
    finally:
        store.close()
        reader.close()
