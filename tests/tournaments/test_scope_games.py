"""`games = "scope:NAME"`: a tournament over the games of a grown scope, read from the
tournament's database (n-gram judge, random players); an unknown scope is one sentence
listing the known ones (exit 2); a scope game's text is checked like any game file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlmodel import col

from arena.cli import main
from arena.plugins.registry import Registry
from arena.storage import MATCH_DONE, Store, sqlite_url
from arena.storage import scopes as store
from arena.storage.queries import stored_matches
from arena.storage.tables import ScopeGame
from arena.tournaments.planning.config_errors import TournamentConfigError
from arena.tournaments.services.run_config import run_file

ROOT = Path(__file__).resolve().parents[2]
BODY = """
name = "scoped"
judge = "ngram"
maps = 2
games = "scope:{scope}"

[[participants]]
name = "r"
player = "random?words=3"
"""


@pytest.fixture
def grown(tmp_path: Path) -> str:
    """A scope k grown from simplest_cut (every transfer value 0.5), in tmp_path/a.db.
    24 candidates: of the first 12 the only one accepted besides the root was the root plus
    a reveal after its last move, a copy since semantic de-duplication (issue 19)."""
    table = tmp_path / "matrix.json"
    table.write_text(json.dumps({"default": 0.5}))
    db = sqlite_url(tmp_path / "a.db")
    main(["scope", "grow", "--name", "k", "--from", "simplest_cut", "--oracle",
          f"table:{table}", "--judge", "ngram", "--rounds", "1", "--budget", "24", "--batch",
          "4", "--fewshot", "arms", "--db", db])
    return db


def tournament(tmp_path: Path, scope: str) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(BODY.format(scope=scope))
    return path


async def test_a_tournament_plays_the_games_of_a_scope(tmp_path: Path, grown: str) -> None:
    engine = Store.open(grown).engine
    games = store.accepted_games(engine, "k")
    engine.dispose()
    assert games is not None and len(games) >= 2  # simplest_cut and what round 0 added
    summary = await run_file(tournament(tmp_path, "k"), db=grown, registry=Registry.load())
    assert summary.errors == 0 and summary.written == 2 * len(games)
    engine = Store.open(grown).engine
    played = stored_matches(engine, "scoped", status=MATCH_DONE)
    engine.dispose()
    assert sorted({m.game for m in played}) == sorted(g.name for g in games)


async def test_unknown_scope_and_a_broken_stored_text(tmp_path: Path, grown: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "run", str(tournament(tmp_path, "kk")), "--db",
         grown],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120, check=False,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "No scope called 'kk'" in done.stderr and "Did you mean 'k'?" in done.stderr
    engine = Store.open(grown).engine
    with engine.begin() as conn:  # the stored text is no game: refused, never run
        conn.execute(update(ScopeGame).where(col(ScopeGame.parent).is_not(None)).values(
            source="import os\nos.system('touch pwned')\n"
        ))
    engine.dispose()
    with pytest.raises(TournamentConfigError) as error:
        await run_file(tournament(tmp_path, "k"), db=grown, registry=Registry.load())
    assert "games[1](simplest_cut-mut-" in str(error.value)
    assert "imports are not allowed in XGL" in str(error.value)


async def test_scope_games_sharing_a_name_get_distinct_labels(
    tmp_path: Path, grown: str
) -> None:
    engine = Store.open(grown).engine
    with engine.begin() as conn:
        conn.execute(update(ScopeGame).values(name="same"))
    games = store.accepted_games(engine, "k")
    engine.dispose()
    assert games is not None and len(games) >= 2
    summary = await run_file(tournament(tmp_path, "k"), db=grown, registry=Registry.load())
    assert summary.errors == 0
    engine = Store.open(grown).engine
    played = {m.game for m in stored_matches(engine, "scoped", status=MATCH_DONE)}
    engine.dispose()
    assert played == {f"same-{g.sha256[:8]}" for g in games}
