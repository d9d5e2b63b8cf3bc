"""`arena ratings` and `arena scores` over stored tournaments: the GameBench Table 1
reproduction through `arena import`, the JSON shape, scales, merged tournaments, snapshots
per run, and consistency with the stored matches."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.storage import Store, sqlite_url
from arena.storage.queries import stored_matches
from arena.storage.snapshots import rating_snapshots
from arena.tournaments.cli.ratings import app
from arena.tournaments.cli.run import main as run_main
from arena.tournaments.ratings import LeaderboardConfig, leaderboard, online_elo
from arena.tournaments.ratings.service import normalised_scores
from arena.tournaments.ratings.service import online_elo as service_elo
from arena.tournaments.records.from_store import records_from_store
from arena.tournaments.records.rating_store import load_inputs
from arena.tournaments.services.exchange.importers import import_file
from tests.tournaments.gamebench_reference import DATA, PUBLISHED, needs_data

REPO = Path(__file__).resolve().parents[2]

ROW_KEYS = [
    "participant", "rating", "ci_low", "ci_high", "rank_low", "rank_high", "n_comparisons",
    "provisional", "cost",  # cost: the participant's spend (tests/tournaments/test_run_cost.py)
]

# Built-in players only, so `arena run` (Registry.load()) can play it.
EVAL = """
name = "mini"
judge = "ngram"
npc = "npc"
base = "beta"
maps = 2
rounds = 3
seed = 11

[[participants]]
name = "npc"
player = "random?words=2"
npc_only = true

[[participants]]
name = "alpha"
player = "scripted:once upon a time the cat"

[[participants]]
name = "beta"
player = "random?words=4"

[[games]]
game = "condense.xgl"

[[games]]
game = "duel.xgl"
"""

CONDENSE = "# version: 1\nassign(s=story(20))\nelicit(black, t, 6)\nreward(black, xed(s | t))\n"
DUEL = (
    "# version: 2\nassign(s=story(20))\nelicit(alice, t, 6)\nelicit(bob, x, 6)\n"
    "reward(alice, xed(s | t))\nreward(bob, xed(s | x))\n"
)


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, env=env,
        timeout=300,
    )


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A database where the `mini` tournament was run twice with `arena run`."""
    folder = tmp_path_factory.mktemp("mini")
    (folder / "condense.xgl").write_text(CONDENSE)
    (folder / "duel.xgl").write_text(DUEL)
    path = folder / "mini.toml"
    path.write_text(EVAL)
    db = sqlite_url(folder / "mini.db")
    for _ in range(2):
        run_main(["run", str(path), "--db", db, "--no-progress"])  # exits only on failure
    return db


@needs_data
def test_gamebench_table1_is_reproduced_through_import_and_ratings(tmp_path: Path) -> None:
    db = sqlite_url(tmp_path / "gb.db")
    done = arena("import", str(DATA), "--format", "gamebench", "--tournament", "gamebench", "--db", db)
    assert done.returncode == 0, done.stderr
    done = arena("ratings", "--tournament", "gamebench", "--scale", "log", "--json", "--db", db)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [list(r) for r in rows] == [ROW_KEYS] * len(PUBLISHED)
    # imported results carry no spend: "not measured", never a cost of 0
    assert all(r["cost"]["measured"] == 0 and r["cost"]["tokens"] is None for r in rows)
    ours = {r["participant"]: r["rating"] for r in rows}
    assert set(ours) == set(PUBLISHED)
    for agent, published in PUBLISHED.items():
        assert ours[agent] == pytest.approx(published, abs=0.15), agent
    for x, y in combinations(PUBLISHED, 2):
        if abs(PUBLISHED[x] - PUBLISHED[y]) > 0.1:
            assert (ours[x] > ours[y]) == (PUBLISHED[x] > PUBLISHED[y]), (x, y)
    assert sum(ours.values()) == pytest.approx(0.0, abs=1e-9)  # log scale: mean 0
    for r in rows:
        assert r["ci_low"] <= r["rating"] <= r["ci_high"]
        assert 1 <= r["rank_low"] <= r["rank_high"] <= len(rows)
        assert r["provisional"] == (r["n_comparisons"] < 30)
    assert {r["participant"]: r["n_comparisons"] for r in rows}["human"] == 13


def test_json_rows_have_the_documented_shape_and_elo_has_mean_1000(mini: str) -> None:
    result = CliRunner().invoke(
        app, ["ratings", "--tournament", "mini", "--db", mini, "--json", "--resamples", "100"]
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [list(r) for r in rows] == [ROW_KEYS, ROW_KEYS]
    types = [type(rows[0][k]) for k in ROW_KEYS]
    assert types == [str, float, float, float, int, int, int, bool, dict]
    assert sum(r["rating"] for r in rows) / len(rows) == pytest.approx(1000.0)
    assert [r["rating"] for r in rows] == sorted((r["rating"] for r in rows), reverse=True)


def test_the_map_bootstrap_is_chosen_from_the_command_line(mini: str) -> None:
    """--resample map draws maps (then their matches): same points, intervals of its own,
    said in the text; an unknown unit is refused with the valid ones."""
    boards = {}
    for unit in ("match", "map"):
        result = CliRunner().invoke(app, ["ratings", "-t", "mini", "--db", mini, "--json",
                                          "--resamples", "200", "--resample", unit])
        assert result.exit_code == 0, result.output
        boards[unit] = {r["participant"]: r for r in json.loads(result.output)}
    for name, row in boards["map"].items():
        assert row["rating"] == pytest.approx(boards["match"][name]["rating"])
    assert any((row["ci_low"], row["ci_high"]) != (boards["match"][n]["ci_low"],
                                                   boards["match"][n]["ci_high"])
               for n, row in boards["map"].items())
    text = CliRunner().invoke(app, ["ratings", "-t", "mini", "--db", mini, "--resamples", "50",
                                    "--resample", "map"])
    assert "50 map resamples" in text.output
    bad = CliRunner().invoke(app, ["ratings", "-t", "mini", "--db", mini, "--resample", "maps"],
                             env={"COLUMNS": "200"})
    said = " ".join(bad.output.replace("│", " ").split())
    assert bad.exit_code == 2 and "'maps' is not one of 'auto', 'match', 'map', 'cluster'" in said


def test_ratings_agree_with_the_stored_matches(mini: str) -> None:
    store = Store.open(mini)
    try:
        stored = stored_matches(store.engine, "mini")
        inputs = load_inputs(store, ["mini"])
    finally:
        store.close()
    # two runs of one file: the second stored nothing new, the matches are those of one run
    assert len(stored) == 2 * 2 * 3  # (condense 1 role + duel 2 roles) x 2 maps x 2 entrants
    records = records_from_store(stored)
    expected = leaderboard(records, LeaderboardConfig(n_resamples=100, seed=4))
    result = CliRunner().invoke(
        app, ["ratings", "-t", "mini", "--db", mini, "--json", "--resamples", "100", "--seed", "4"]
    )
    rated = [{k: v for k, v in row.items() if k != "cost"} for row in json.loads(result.output)]
    assert rated == json.loads(json.dumps(expected))
    # the winner of each comparable (game, role, map) group decides the order, each game
    # weighing the same in all (the fit weights games alike)
    wins = {"alpha": 0.0, "beta": 0.0}
    groups: dict[tuple[object, ...], dict[str, float]] = {}
    for rec in records:
        groups.setdefault(rec.comparability_key(), {})[rec.main.participant] = rec.main.score or 0.0
    per_game = Counter(str(key[0]) for key in groups)
    for key, scores in groups.items():
        a, b, weight = scores["alpha"], scores["beta"], 1.0 / per_game[str(key[0])]
        wins["alpha"] += weight * (1.0 if a > b else 0.5 if a == b else 0.0)
        wins["beta"] += weight * (1.0 if b > a else 0.5 if a == b else 0.0)
    by_name = {r["participant"]: r for r in expected}
    assert set(by_name) == {"alpha", "beta"}  # the NPC is never rated
    assert by_name["alpha"]["n_comparisons"] == by_name["beta"]["n_comparisons"] == len(groups)
    if wins["alpha"] != wins["beta"]:
        better = max(wins, key=lambda k: wins[k])
        assert expected[0]["participant"] == better
    # the live Elo view replays the same comparisons
    assert service_elo(inputs) == pytest.approx(online_elo(records))


def test_each_run_stores_a_snapshot_of_the_accumulated_ratings(mini: str) -> None:
    store = Store.open(mini)
    try:
        snaps = rating_snapshots(store.engine, "mini", "bradley_terry")
    finally:
        store.close()
    assert len(snaps) == 2  # one per `arena run`
    newest, oldest = snaps
    assert newest.payload["run_id"] == 2 and oldest.payload["run_id"] == 1
    assert newest.payload["matches"] == oldest.payload["matches"] == 12
    assert [r["participant"] for r in newest.payload["rows"]] == [
        r["participant"] for r in oldest.payload["rows"]
    ]
    assert set(newest.payload["online_elo"]) == {"alpha", "beta"}


def test_tournaments_merge_by_participant_name(mini: str, tmp_path: Path) -> None:
    extra = tmp_path / "extra.csv"
    extra.write_text(
        "game,participant_a,score_a,participant_b,score_b\n"
        "chess,alpha,1,gamma,0\nchess,gamma,1,beta,0\nchess,beta,1,alpha,0\n"
    )
    store = Store.open(mini)
    try:
        import_file(store, extra, "mini-ext")
    finally:
        store.close()
    args = ["ratings", "-t", "mini", "-t", "mini-ext", "--db", mini, "--resamples", "50"]
    merged = json.loads(CliRunner().invoke(app, [*args, "--json"]).output)
    alone = json.loads(
        CliRunner().invoke(app, ["ratings", "-t", "mini", "--db", mini, "--json", "--resamples", "50"]).output
    )
    n = {r["participant"]: r["n_comparisons"] for r in merged}
    n_alone = {r["participant"]: r["n_comparisons"] for r in alone}
    assert n == {"alpha": n_alone["alpha"] + 2, "beta": n_alone["beta"] + 2, "gamma": 2}
    text = CliRunner().invoke(app, args).output
    assert "mini, mini-ext: 15 matches" in text and "* provisional" in text
    unknown = CliRunner().invoke(app, ["ratings", "-t", "mni", "--db", mini])
    assert "Did you mean 'mini'" in str(unknown.exception)


def test_scores_give_catch_up_the_xent_measure_and_reference(mini: str) -> None:
    result = CliRunner().invoke(app, ["scores", "-t", "mini", "--db", mini, "--json", "--bins", "10"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["base"] == "beta"  # from the tournament file
    assert set(report["reference"]["overall"]) == {"alpha", "beta"}
    for name, measure in report["xent_measure"].items():
        assert len(measure["bin_edges"]) == 11 and sum(measure["masses"]) == pytest.approx(1.0)
        assert measure["values"] == report["catch_up"][name]
    played = {(g, r) for g, r in [("condense", "black"), ("duel", "alice"), ("duel", "bob")]}
    flagged = {(u["game"], u["role"]) for u in report["unplayable"]}
    assert flagged <= played
    store = Store.open(mini)
    try:
        inputs = load_inputs(store, ["mini"])
    finally:
        store.close()
    direct = normalised_scores(inputs)
    assert {p: dict(g) for p, g in direct.catch_up.items()} == report["catch_up"]
    text = CliRunner().invoke(app, ["scores", "-t", "mini", "--db", mini, "--base", "alpha"]).output
    assert "Catch-up scores against base 'alpha'" in text and "Reference normalisation" in text
    # score / |best| is no percentage where the best is negative: the label says what it is
    assert "100 x score / |best score|" in text and "percent of the best" not in text


def test_scores_offer_the_papers_narms_and_reference_normalisations(mini: str) -> None:
    from arena.scoring import ThresholdSpec
    from arena.tournaments.ratings.normalisation import catch_up_normalisation, game_scores

    args = ["scores", "-t", "mini", "--db", mini, "--json"]
    narms = CliRunner().invoke(app, [*args, "--normalisation", "narms", "--theta", "0.5",
                                     "--levels", "2"])
    assert narms.exit_code == 0, narms.output
    report = json.loads(narms.output)
    assert report["method"] == "narms" and report["threshold"] == {"theta": 0.5, "m": 2}
    store = Store.open(mini)
    try:
        inputs = load_inputs(store, ["mini"])
    finally:
        store.close()
    cells = catch_up_normalisation(list(inputs.records), "beta", None, ThresholdSpec(0.5, 2))
    assert report["catch_up"] == game_scores(cells)
    reference = json.loads(CliRunner().invoke(app, [*args, "--normalisation", "reference"]).output)
    assert reference["method"] == "reference" and reference["catch_up"] == {}
    assert reference["reference"] == report["reference"]
    text = CliRunner().invoke(app, [*args[:-1], "--normalisation", "narms"]).output
    assert "narms (paper Definition 42) against base 'beta', levels of theta=1 bits, m=2" in text
    bad = CliRunner().invoke(app, [*args, "--normalisation", "narm"])
    assert bad.exit_code != 0 and "Did you mean 'narms'" in str(bad.exception)


def test_the_tournament_file_chooses_the_normalisation(tmp_path: Path) -> None:
    (tmp_path / "condense.xgl").write_text(CONDENSE)
    (tmp_path / "duel.xgl").write_text(DUEL)
    text = EVAL.replace('name = "mini"', 'name = "mini-narms"').replace(
        'base = "beta"', 'base = "beta"\nnormalisation = { method = "narms", theta = 0.25, m = 3 }'
    )
    path = tmp_path / "mini.toml"
    path.write_text(text)
    db = sqlite_url(tmp_path / "n.db")
    run_main(["run", str(path), "--db", db, "--no-progress"])
    shown = CliRunner().invoke(app, ["scores", "-t", "mini-narms", "--db", db, "--json"])
    report = json.loads(shown.output)
    assert report["method"] == "narms" and report["threshold"] == {"theta": 0.25, "m": 3}
    override = CliRunner().invoke(app, ["scores", "-t", "mini-narms", "--db", db, "--json",
                                        "--normalisation", "catch-up"])
    assert json.loads(override.output)["method"] == "catch-up"
