"""Adaptive pairing in real runs (issue 33 items 1 and 3): `pairing = "adaptive"` picks the
matches round by round from what is stored, so two databases with the same seed key store
the same matches, a run cut after a round and resumed picks what an uncut run picks, and a
new entrant joining a tournament that has run plays only the matches that place it; a round
robin with the same stopping rule plays in rounds too and stops alike. Real runs of the
engine (`arena run`) on SQLite."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text
from typer.testing import CliRunner

from arena.cli import build_app
from arena.storage import MATCH_DONE, Store, sqlite_url
from arena.tournaments.running.executors.map_prep import AHEAD_OF_PLAY
from tests.executors.ray_fixtures import share_seed_key
from tests.tournaments.arena_fixtures import KEY, THREE_ENTRANTS, fix_seed_key

APP = build_app()
ADAPTIVE = 'pairing = "adaptive"\nstop_when = "settled"\nconfidence = {c}'
NEWCOMER = '\n[[participants]]\nname = "late"\nplayer = "scripted:the"\n'


def write(folder: Path, rules: str, extra: str = "", maps: int = 12) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "t.toml"
    path.write_text(THREE_ENTRANTS.format(maps=maps, rules=rules) + extra, encoding="utf-8")
    return path


def run(path: Path, db: str, *extra: str) -> str:
    ran = CliRunner().invoke(APP, ["run", str(path), "--db", db, "--no-progress", *extra],
                             env={"COLUMNS": "200"})
    assert ran.exit_code == 0, ran.output
    return ran.output


def keys(db: str) -> list[str]:
    """The stored done matches' keys, in the order they were stored."""
    store = Store.open(db)
    try:
        return [m.key for m in store.stored_matches("small", status=MATCH_DONE)]
    finally:
        store.close()


def seats(db: str) -> dict[str, set[str]]:
    store = Store.open(db)
    try:
        return {m.key: {s.participant for s in m.seats if s.main}
                for m in store.stored_matches("small", status=MATCH_DONE)}
    finally:
        store.close()


def test_two_databases_with_one_seed_key_pick_the_same_matches(tmp_path: Path) -> None:
    """Same seed key, same stored outcomes: the rounds pick the same matches, and the run
    stops settled before its 72 planned matches."""
    path = write(tmp_path, ADAPTIVE.format(c=0.5))
    one, two = sqlite_url(tmp_path / "one.db"), sqlite_url(tmp_path / "two.db")
    fix_seed_key(one, KEY)  # with some keys the three do not settle within 72 matches
    said = run(path, one)
    assert "stopped: settled: the 50% intervals of the top 3 no longer overlap" in said, said
    first = keys(one)
    assert 0 < len(first) < 72, len(first)
    share_seed_key(one, two, "small")
    run(path, two)
    assert sorted(keys(two)) == sorted(first)


def test_a_round_robin_with_one_seed_key_stops_after_the_same_matches(tmp_path: Path) -> None:
    """A round robin whose rule rates the board plays in rounds (`rounds.OrderedRounds`):
    its verdicts fall between rounds, on exactly the matches stored, so four databases with
    one seed key stop after the same matches. Asked before each match, the same outcomes
    stopped it after 50, 63, 58 and 50 (the board rated whatever the writer had stored)."""
    path = write(tmp_path, 'stop_when = "settled"\nconfidence = 0.5')
    first_db = sqlite_url(tmp_path / "first.db")
    fix_seed_key(first_db, KEY)
    said = run(path, first_db)
    assert "stopped: settled" in said, said
    first = keys(first_db)
    assert 0 < len(first) < 72, len(first)
    for i in range(3):
        other = sqlite_url(tmp_path / f"other{i}.db")
        share_seed_key(first_db, other, "small")
        run(path, other)
        assert sorted(keys(other)) == sorted(first)  # stored in the order they ended


def maps_made(db: str) -> tuple[int, int]:
    """(maps stored, maps the stored matches were played on)."""
    store = Store.open(db)
    try:
        with store.engine.connect() as conn:
            stored = conn.execute(text("SELECT count(*) FROM maps")).scalar_one()
            played = conn.execute(text("SELECT count(DISTINCT map_id) FROM matches")).scalar_one()
    finally:
        store.close()
    return int(stored), int(played)


def test_a_run_that_settles_early_makes_only_the_maps_it_played(tmp_path: Path) -> None:
    """Maps are made on demand in adaptive runs: the maps of picked matches, and no other,
    so a run that stops settled has not paid the judge for the maps it skipped (the 12
    maps x 2 games of the plan were all made before)."""
    db = sqlite_url(tmp_path / "a.db")
    fix_seed_key(db, KEY)
    said = run(write(tmp_path, ADAPTIVE.format(c=0.5)), db)
    assert "stopped: settled" in said, said
    stored, played = maps_made(db)
    assert 0 < stored == played < 24, (stored, played)


def test_a_round_robin_that_a_rule_stops_makes_its_maps_only_a_little_ahead(
    tmp_path: Path,
) -> None:
    """A round robin with a stopping rule makes its maps at most `AHEAD_OF_PLAY` ahead of
    play, so stopped after 6 of its 180 matches it has not paid for the 60 maps of its plan
    (30 maps x 2 games; before, every one was made while the first matches played)."""
    db = sqlite_url(tmp_path / "a.db")
    fix_seed_key(db, KEY)
    said = run(write(tmp_path, "max_matches = 6", maps=30), db, "--concurrency", "2")
    assert "stopped: max_matches" in said, said
    stored, played = maps_made(db)
    assert 0 < played <= stored <= played + AHEAD_OF_PLAY < 60, (stored, played)


def test_a_run_cut_after_a_round_resumes_with_the_picks_of_an_uncut_run(tmp_path: Path) -> None:
    """The uncut run plays rounds until its 95% intervals settle (or the plan ends); a run
    stopped by max_matches after its first round and run again without it stores exactly
    the same matches: the picks are a function of what is stored."""
    rules = ADAPTIVE.format(c=0.95)
    uncut = sqlite_url(tmp_path / "uncut.db")
    fix_seed_key(uncut, KEY)  # with some keys the ranking settles after the first round
    run(write(tmp_path / "u", rules), uncut)
    played = keys(uncut)
    assert len(played) > 16, "the test needs more than one round"
    cut = sqlite_url(tmp_path / "cut.db")
    share_seed_key(uncut, cut, "small")
    said = run(write(tmp_path / "c", rules + "\nmax_matches = 16"), cut)
    assert "stopped: max_matches" in said and 0 < len(keys(cut)) <= 16
    assert set(keys(cut)) <= set(played)  # the first round is the uncut run's first round
    run(write(tmp_path / "c", rules), cut)
    assert sorted(keys(cut)) == sorted(played)


def test_a_new_entrant_is_placed_with_only_its_own_matches(tmp_path: Path) -> None:
    """A tournament whose 72 matches were all played gets a fourth entrant: the next run
    (adaptive, settled at 50%) plays only matches in which the newcomer has a seat, fewer
    than its 24 planned, and stops once it is placed; the run says where."""
    db = sqlite_url(tmp_path / "a.db")
    fix_seed_key(db, KEY)
    run(write(tmp_path, ""), db)
    before = set(keys(db))
    assert len(before) == 72
    said = run(write(tmp_path, ADAPTIVE.format(c=0.5), NEWCOMER), db, "--concurrency", "4")
    assert "stopped: placed: late at rank" in said, said
    new = {k: who for k, who in seats(db).items() if k not in before}
    assert new and all("late" in who for who in new.values()), new
    assert len(new) < 24, len(new)
