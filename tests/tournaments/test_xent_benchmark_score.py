"""The published Xent benchmark's leaderboard score (issue 20): a result file in the
reference's own schema (`BenchmarkResult`) goes through `arena import` (format detected from
its content) and `arena scores --normalisation benchmark` prints the numbers the reference's
`scripts/generate_md_table.py` prints for it.

The expected numbers are computed here independently: by hand for the edge-case file
(tests/data/xent_results), and step by step from the script's definition for random files."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "xent_results"

# By hand from edge_cases.json (best per map; each result / |best|; mean per game; mean of
# games; x100):
#   Condense c0 best 8: alpha 1, zeta .25, beta .5, gamma .25
#   Condense c1 best -2.5 (negative: divided by 2.5): alpha -1, beta -2, zeta -3, gamma -3
#   Condense c2 best 0: left out for everyone
#   Contrast t0 best 6: alpha .5 and 1 (two results, both count), beta 1, gamma .25, zeta .25
#   Synthesize s0 best 0: left out, so Synthesize is no game of beta's and delta has none
#   alpha (0 + .75)/2, beta (-.75 + 1)/2, gamma and zeta (-1.375 + .25)/2, delta 0.0;
#   zeta and gamma tie: zeta appears first in the file, so it ranks first.
EDGE_TABLE = """\
| Rank | Player ID | Score |
|:----:|:----------|------:|
| 1 | p-alpha | 37.50 |
| 2 | p-beta | 12.50 |
| 3 | p-delta | 0.00 |
| 4 | p-zeta | -56.25 |
| 5 | p-gamma | -56.25 |"""
EDGE_SCORES = {"p-alpha": 37.5, "p-beta": 12.5, "p-delta": 0.0, "p-zeta": -56.25,
               "p-gamma": -56.25}


def arena(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`arena <args>` through the `arena` console entry (errors exit 2)."""
    try:
        main(list(args))
        code = 0
    except SystemExit as done:
        code = int(done.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def imported(capsys: pytest.CaptureFixture[str], db: str, file: Path, name: str) -> None:
    code, out, err = arena(capsys, "import", str(file), "-t", name, "--db", db)
    assert code == 0, err
    assert "xent-results" in out


def benchmark_json(capsys: pytest.CaptureFixture[str], db: str, name: str) -> dict[str, Any]:
    code, out, err = arena(
        capsys, "scores", "-t", name, "--normalisation", "benchmark", "--json", "--db", db
    )
    assert code == 0, err
    bench: dict[str, Any] = json.loads(out)["benchmark"]
    return bench


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'arena.db'}"


def test_edge_cases_reproduce_the_scripts_table(
    capsys: pytest.CaptureFixture[str], db: str
) -> None:
    imported(capsys, db, DATA / "edge_cases.json", "bench")
    code, out, err = arena(capsys, "scores", "-t", "bench", "--normalisation", "benchmark",
                           "--db", db)
    assert code == 0, err
    assert EDGE_TABLE in out
    assert "maps left out (best score exactly 0): 2" in out
    bench = benchmark_json(capsys, db, "bench")
    assert bench["overall"] == EDGE_SCORES
    assert bench["ranking"] == list(EDGE_TABLE_ORDER)
    assert bench["per_game"]["p-beta"] == {"Condense": -75.0, "Contrast": 100.0}
    # stored maps are named by their database ids, as in the reference normalisation
    assert sorted((g, r) for g, r, _ in bench["skipped_maps"]) == [
        ("Condense", "black"), ("Synthesize", "black")
    ]


EDGE_TABLE_ORDER = ("p-alpha", "p-beta", "p-delta", "p-zeta", "p-gamma")


def test_imported_results_are_rated_like_ours(capsys: pytest.CaptureFixture[str], db: str) -> None:
    imported(capsys, db, DATA / "edge_cases.json", "bench")
    code, out, err = arena(capsys, "ratings", "-t", "bench", "--json", "--db", db)
    assert code == 0, err
    rating = {r["participant"]: r["rating"] for r in json.loads(out)}
    assert set(rating) == {"p-alpha", "p-beta", "p-gamma", "p-zeta", "p-delta"}
    # results on one map compare pairwise (eval mode): alpha is ahead of beta on 3 of its 4
    # shared maps, both beat gamma and zeta everywhere, gamma and zeta tie
    assert rating["p-alpha"] > rating["p-beta"] > rating["p-gamma"]
    assert rating["p-gamma"] == pytest.approx(rating["p-zeta"], abs=1.0)
    # importing the same file again changes nothing
    code, out, _ = arena(capsys, "import", str(DATA / "edge_cases.json"), "-t", "bench",
                         "--db", db)
    assert code == 0 and out.startswith("already imported")


# ------------------------------------------------------------------ random files


def script_scores(doc: dict[str, Any]) -> tuple[dict[str, float], list[str]]:
    """The leaderboard by the script's definition, written out step by step."""
    best: dict[tuple[str, str], float] = {}
    for r in doc["results"]:
        key = (r["game_map"]["name"], r["game_map"]["map_seed"])
        if key not in best or r["score"] > best[key]:
            best[key] = r["score"]
    games_of: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for r in doc["results"]:
        games_of.setdefault(r["player"]["id"], {}).setdefault(r["game_map"]["name"], []).append(r)
    scores: dict[str, float] = {}
    for player, games in games_of.items():
        game_means = []
        for game, results in games.items():
            ratio_sum, counted = 0.0, 0
            for r in results:
                top = best[(game, r["game_map"]["map_seed"])]
                if abs(top) == 0:
                    continue
                ratio_sum += r["score"] / abs(top)
                counted += 1
            if counted:
                game_means.append(ratio_sum / counted)
        scores[player] = (sum(game_means) / len(game_means) if game_means else 0.0) * 100.0
    order = sorted(scores, key=lambda p: scores[p], reverse=True)
    return scores, order


def random_result(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    players = [f"model-{i}" for i in range(rng.randint(2, 6))]
    results = []
    for game in rng.sample(["Condense", "Contrast", "Horizon", "Two-Ways", "Synthesize"], 3):
        for map_index in range(rng.randint(1, 4)):
            seed_text = f"{game.lower()}{map_index}"
            kind = rng.choice(["positive", "mixed", "negative", "zero"])
            for player in players:
                for _ in range(rng.choice([0, 1, 1, 1, 2])):  # missing maps and repeats
                    if kind == "zero":
                        score = rng.choice([0.0, -rng.uniform(0, 5)])
                    elif kind == "negative":
                        score = -rng.uniform(0.01, 30)
                    else:
                        score = rng.uniform(-5 if kind == "mixed" else 0.01, 40)
                    rounds = [score, score - rng.uniform(0, 3)]
                    rng.shuffle(rounds)
                    results.append({
                        "game_map": {"name": game, "code": "", "presentation_function": "",
                                     "map_seed": seed_text},
                        "metadata": {}, "player": {"name": "black", "id": player,
                                                   "player_type": "x", "options": None},
                        "score": max(rounds),
                        "token_usage": {"input_tokens": 0, "output_tokens": 0},
                        "round_results": [{"score": s, "history": []} for s in rounds],
                    })
    rng.shuffle(results)
    if not results:  # every draw skipped: one result keeps the file valid
        results.append({"game_map": {"name": "Condense", "map_seed": "c"},
                        "player": {"name": "black", "id": players[0]}, "score": 1.5})
    return {"expanded_config": {}, "results": results}


@pytest.mark.parametrize("seed", range(8))
def test_random_results_match_the_script_exactly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str, seed: int
) -> None:
    doc = random_result(seed)
    file = tmp_path / f"run{seed}.json"
    file.write_text(json.dumps(doc))
    imported(capsys, db, file, f"run{seed}")
    bench = benchmark_json(capsys, db, f"run{seed}")
    expected, order = script_scores(doc)
    assert bench["overall"] == expected  # exact floats, not approximately
    assert bench["ranking"] == order
    code, out, _ = arena(capsys, "scores", "-t", f"run{seed}", "--normalisation", "benchmark",
                         "--db", db)
    assert code == 0
    for rank, player in enumerate(order, 1):
        assert f"| {rank} | {player} | {expected[player]:.2f} |" in out


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("body", "fmt", "wanted"),
    [
        ('{"name": "not results"}', None, "its JSON is not a Xent benchmark result"),
        ("this is not json", None, "Cannot tell the format of 'bad.json'"),
        ('{"results": [{"game_map": {"name": "g", "map_seed": "m"}, "player": {"name": '
         '"black"}, "score": 1}]}', None, "results[0].player.id is missing"),
        ('{"results": [{"game_map": {"name": "g", "map_seed": "m"}, "player": {"name": '
         '"black", "id": "p"}, "score": "high"}]}', None, "results[0].score is 'high'"),
        ('{"expanded_config": {}, "results": []}', None, "holds no results"),
        ('[{"game": "g", "a": 1.0, "b": 0.0}]', "xent-results", "needs a top-level object"),
        # a config is no results file: the message names the command that reads it
        ('{"config_type": "expanded_xent_config", "games": []}', None,
         "is a Xent benchmark config, not match results"),
        ('{"config_type": "expanded_xent_config", "games": []}', "xent-config",
         "Write the config as a tournament with: arena import-benchmark"),
    ],
)
def test_bad_files_are_one_sentence_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str, body: str, fmt: str | None,
    wanted: str,
) -> None:
    file = tmp_path / "bad.json"
    file.write_text(body)
    args = ["import", str(file), "-t", "bad", "--db", db]
    code, out, err = arena(capsys, *args, *(["--format", fmt] if fmt else []))
    assert code == 2
    assert wanted in err
    assert "Traceback" not in err and out == ""
    assert len(err.strip().splitlines()) <= 2


def test_gamebench_arrays_are_detected_from_their_content(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str
) -> None:
    file = tmp_path / "matches.json"
    file.write_text('[{"game": "g", "a": 1.0, "b": 0.0}, {"game": "g", "a": 0.5, "b": 0.5}]')
    code, out, err = arena(capsys, "import", str(file), "-t", "gb", "--db", db)
    assert code == 0, err
    assert "gamebench" in out and "imported 2 matches" in out
