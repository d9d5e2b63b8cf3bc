"""`arena demo`: the packaged demo tournament is valid against the installed plugins, its
options change it as documented, a tiny variant runs end to end through the real command,
and (slow, torch) the real demo with the bundled judge runs and prints its leaderboard."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.errors import ConfigError, UnknownNameError
from arena.plugins.registry import Registry
from arena.runtime.match import active_players
from arena.storage import Store, sqlite_url
from arena.storage.queries import stored_matches
from arena.storage.snapshots import rating_snapshots
from arena.tournaments.demo import dashboard_hint, demo_config
from arena.tournaments.running.prepare import prepare_tournament

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "judges" / "hf" / "bundled" / "model.safetensors"


def arena(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=timeout, check=False,
    )


def test_the_demo_tournament_is_valid_and_has_the_promised_parts() -> None:
    config = demo_config()
    prepared = prepare_tournament(config, Registry.load(), "demo")
    assert config.judge == "bundled" and config.mode == "eval"
    specs = {p.name: p.player for p in config.participants if not p.npc_only}
    assert specs["random"] == "random" and specs["hf-bundled"].startswith("hf:bundled")
    assert specs["search"].startswith("search?budget=")
    roles = {label: active_players(game.program) for label, game in prepared.games.items()}
    assert roles["condense"] == ("black",) and prepared.games["condense"].program.dialect == "xent"
    assert len(roles["describe_to_partner"]) == 2  # bob never sees the story: imperfect info
    # bob's NPC reads alice's description (a random one would make the alice role measure
    # nothing: every entrant's score identical on every map)
    npcs = prepared.games["describe_to_partner"].slot.npcs
    assert config.participant(npcs["bob"]).player.startswith("search?")
    assert npcs["alice"] == "npc"
    # Every participant plays every role of every game on every map, NPCs the other roles.
    per_participant = sum(len(r) for r in roles.values()) * config.maps
    assert len(prepared.plans) == per_participant * len(specs)


def test_demo_options_shrink_and_swap_parts() -> None:
    config = demo_config(judge="ngram", maps=1, rounds=1, budget=8, seed=3, without=["hf-bundled"])
    assert (config.judge, config.maps, config.rounds, config.seed) == ("ngram", 1, 1, 3)
    assert [p.name for p in config.participants if not p.npc_only] == ["random", "search"]
    assert config.participant("search").player == "search?budget=8&beam=4"
    with pytest.raises(UnknownNameError, match="Did you mean 'hf-bundled'"):
        demo_config(without=["hf-bundle"])
    with pytest.raises(ConfigError, match="no participant"):
        demo_config(without=["random", "hf-bundled", "search"])
    assert demo_config(without=["random"]).base is None  # the base participant left too


def test_the_dashboard_hint() -> None:
    assert "dashboard" in Registry.load().command_names()
    assert dashboard_hint(None) == "Dashboard: arena dashboard"  # the default database
    assert dashboard_hint("sqlite:///x.db") == "Dashboard: arena dashboard --db sqlite:///x.db"
    assert dashboard_hint("sqlite:///my dir/x.db") == "Dashboard: arena dashboard --db 'sqlite:///my dir/x.db'"


def test_a_tiny_demo_runs_end_to_end_and_resumes(tmp_path: Path) -> None:
    db = sqlite_url(tmp_path / "demo.db")
    tiny = ("demo", "--judge", "ngram", "--without", "hf-bundled", "--maps", "1", "--rounds",
            "1", "--budget", "8", "--db", db, "--no-progress")
    done = arena(*tiny)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("demo: 8 match(es) played now, 0 already stored (0 error(s))")
    assert any(line.startswith("Leaderboard of demo: ") for line in lines)
    assert any(line.split()[:3] == ["rank", "participant", "rating"] for line in lines)
    rated = {line.split()[1] for line in lines if line.strip()[:1].isdigit()}
    assert rated == {"search", "random"}
    assert lines[-1] == f"Dashboard: arena dashboard --db {db}"
    store = Store.open(db)
    matches = stored_matches(store.engine, "demo")
    snapshots = rating_snapshots(store.engine, "demo")
    store.close()
    # Like `arena run`, the demo stores a rating snapshot: the dashboard's Leaderboard and
    # Ratings over time have something to show right after it (issue 18, item 1).
    assert snapshots and snapshots[0].payload["matches"] == 8
    assert {r["participant"] for r in snapshots[0].payload["rows"]} == {"search", "random"}
    assert {m.game for m in matches} == {"condense", "reverse_prompt", "describe_to_partner"}
    two = [m for m in matches if m.game == "describe_to_partner"]
    assert all(len(m.seats) == 2 and sum(s.main for s in m.seats) == 1 for m in two)
    assert {s.participant for m in two for s in m.seats if s.role == "bob" and not s.main} == {
        "reader"
    }
    # The demo's NPC makes both roles of describe_to_partner measure something. (On this
    # one-map run a one-player game can still tie by chance: its map texts are sampled under
    # the tournament's fresh secret key, and two entrants that both fail may score the same.)
    assert not any(
        line.startswith("note:") and "describe_to_partner" in line for line in lines
    )
    again = arena(*tiny)
    assert again.returncode == 0 and "0 match(es) played now, 8 already stored" in again.stdout


def test_the_demo_writes_the_default_database_the_dashboard_reads(tmp_path: Path) -> None:
    """Issue 18, item 4: `arena demo` then `arena dashboard` (no option) show the same
    database; every command the demo suggests exists and names no --db."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("XENT_ARENA_DB", None)
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "demo", "--judge", "ngram", "--without",
         "hf-bundled", "--without", "search", "--maps", "1", "--rounds", "1", "--no-progress"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr
    default = tmp_path / "data" / "xent-arena" / "arena.db"
    assert default.is_file() and not (default.parent / "demo.db").exists()
    lines = done.stdout.strip().splitlines()
    assert lines[-1] == "Dashboard: arena dashboard"
    assert "Matches: arena matches --tournament demo" in lines
    ratings = subprocess.run(
        [sys.executable, "-m", "arena.cli", "ratings", "--tournament", "demo"], cwd=ROOT,
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    assert ratings.returncode == 0, ratings.stderr
    assert any(line.split()[:3] == ["rank", "participant", "rating"]
               for line in ratings.stdout.splitlines())


@pytest.mark.slow
@pytest.mark.torch
@pytest.mark.skipif(not BUNDLED.is_file(), reason="the bundled judge checkpoint is not built")
def test_the_real_demo_runs_with_the_bundled_judge(tmp_path: Path) -> None:
    started = time.perf_counter()
    done = arena("demo", "--db", sqlite_url(tmp_path / "demo.db"), "--no-progress", timeout=900)
    wall = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert "(0 error(s))" in lines[0] and "judge bundled" in lines[0]
    rated = {line.split()[1] for line in lines if line.strip()[:1].isdigit()}
    assert rated == {"random", "hf-bundled", "search"}
    print(f"\narena demo wall time: {wall:.0f}s\n{done.stdout}")  # shown with pytest -s
