"""Fault 3: a role where every entrant scores alike on every map (its NPC ignores it) is
flagged at the end of the run, named with its NPC, and left out of the ratings with a note
instead of feeding them ties."""

from __future__ import annotations

import asyncio
from pathlib import Path

from typer.testing import CliRunner

from arena.plugins.registry import Registry
from arena.storage import Store, sqlite_url
from arena.tournaments.cli.ratings import app
from arena.tournaments.ratings import MatchRecord, SeatRecord
from arena.tournaments.ratings.informative import uninformative_roles
from arena.tournaments.ratings.service import comparisons, uninformative
from arena.tournaments.records.rating_store import load_inputs
from arena.tournaments.services.run_config import run_file

# describe_to_partner's shape: bob sees only alice's description; both rewarded by bob's guess.
PARTNER = (
    "# version: 1\nassign(s=story(20))\nreveal(alice, s)\nelicit(alice, t, 6)\n"
    "reveal(bob, t)\nelicit(bob, s0, 6)\nreward(bob, xed(s | s0))\nreward(alice, xed(s | s0))\n"
)
TOURNAMENT = """
name = "partners"
judge = "ngram"
maps = 3
rounds = 1
seed = 5

[[participants]]
name = "deaf"
player = "scripted:the old river"
npc_only = true

[[participants]]
name = "one"
player = "random?seed=1"

[[participants]]
name = "two"
player = "random?seed=2"

[[games]]
game = "partner.xgl"
npc = "deaf"
"""


def eval_record(mid: str, who: str, score: float, map_id: str, role: str = "alice") -> MatchRecord:
    seats = (SeatRecord(role, who, score), SeatRecord("bob", "npc", 0.0, npc=True))
    return MatchRecord(mid, "g", map_id, seats, mode="eval")


def test_only_roles_tied_on_every_shared_map_are_flagged() -> None:
    tied = [eval_record(f"{w}{m}", w, -3.0 - m, f"m{m}") for w in "ab" for m in range(3)]
    [found] = uninformative_roles(tied)
    assert (found.game, found.role, found.npcs, found.entrants, found.maps) == (
        "g", "alice", (("bob", "npc"),), ("a", "b"), 3
    )
    assert "bob=npc" in found.note and "left out of the ratings" in found.note
    one_differs = [*tied[:-1], eval_record("b2", "b", -1.0, "m2")]
    assert uninformative_roles(one_differs) == ()
    alone = [eval_record("a0", "a", -3.0, "m0"), eval_record("b1", "b", -3.0, "m1")]
    assert uninformative_roles(alone) == ()  # no map with two entrants: nothing to tell


def test_a_run_flags_the_role_and_ratings_leave_it_out(tmp_path: Path) -> None:
    (tmp_path / "partner.xgl").write_text(PARTNER, encoding="utf-8")
    path = tmp_path / "partners.toml"
    path.write_text(TOURNAMENT, encoding="utf-8")
    db = sqlite_url(tmp_path / "arena.db")
    summary = asyncio.run(run_file(path, db=db, registry=Registry.load()))
    assert summary.status == "done" and summary.written == 12
    [note] = summary.notes
    assert note.startswith("partner role alice measures nothing with NPC(s) bob=deaf")
    store = Store.open(db)
    try:
        inputs = load_inputs(store, ["partners"])
    finally:
        store.close()
    assert [(u.game, u.role) for u in uninformative(inputs)] == [("partner", "alice")]
    data = comparisons(inputs)
    assert data.n_comparisons == 3  # bob's three maps; alice's three ties are left out
    assert len(data.match_ids) == 6  # only bob's matches stay in the bootstrap pool

    shown = CliRunner().invoke(app, ["ratings", "--tournament", "partners", "--db", db,
                                     "--resamples", "20"])
    assert shown.exit_code == 0, shown.output
    assert "note: partner role alice measures nothing with NPC(s) bob=deaf" in shown.output
