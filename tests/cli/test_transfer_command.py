"""`arena transfer`: bad input is one sentence and exit 2 before any model loads; a real run
(tiny model, n-gram judge) prints the verdicts and the matrix, stores them, and a second
run of the same setting reads them back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import build_app
from tests.gamespace import transfer_games as tg

REPO = Path(__file__).resolve().parents[2]
APP = build_app()


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(APP, ["transfer", *args])
    return result.exit_code, result.output


@pytest.fixture
def plain(tmp_path: Path) -> str:
    path = tmp_path / "plain.xgl"
    path.write_text(tg.PLAIN, encoding="utf-8")
    return str(path)


OK = ["--player", "hf:bundled", "--judge", "ngram"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no_such_game", *OK], "Unknown game 'no_such_game'"),
        (["missing/game.xgl", *OK], "No game file at missing/game.xgl"),
        (["{plain}", "{plain}", *OK], "The same game text is given more than once (plain)"),
        (["{plain}", *OK, "--finetuner", "reinforce?lr=fast"], "lr"),
        (["{plain}", *OK, "--finetuner", "sgd"], "sgd"),
        (["{plain}", "--player", "nosuchplayer:x", "--judge", "ngram"], "nosuchplayer"),
        (["{plain}", "--player", "hf:bundled", "--judge", "nosuchjudge"], "nosuchjudge"),
    ],
)
def test_bad_input_is_one_sentence_and_exit_2(
    plain: str, tmp_path: Path, args: list[str], message: str
) -> None:
    filled = [a.replace("{plain}", plain) for a in args]
    code, output = cli(*filled, "--db", str(tmp_path / "a.db"))
    assert code == 2, output
    assert output.startswith("error: ") and message in output, output
    assert "Traceback" not in output and len(output.strip().splitlines()) == 1


def test_an_unknown_view_names_the_valid_ones_and_exits_2(plain: str, tmp_path: Path) -> None:
    code, output = cli(plain, *OK, "--view", "source", "--db", str(tmp_path / "a.db"))
    assert code == 2, output
    assert "'source' is not one of 'infoset', 'code'" in output and "Traceback" not in output
    assert not (tmp_path / "a.db").exists()  # nothing was measured or stored


def test_a_real_run_prints_stores_and_reads_back(tmp_path: Path) -> None:
    model = tg.save_long_context_model(tmp_path / "model")
    files = []
    for name, text in (("plain", tg.PLAIN), ("fixed", tg.FIXED), ("renamed", tg.RENAMED)):
        (tmp_path / f"{name}.xgl").write_text(text, encoding="utf-8")
        files.append(str(tmp_path / f"{name}.xgl"))
    args = [
        sys.executable, "-m", "arena.cli", "transfer", *files, "--player", tg.player_spec(model),
        "--finetuner", tg.FINETUNER, "--budget-tokens", str(tg.BUDGET), "--maps", "6",
        "--judge", "ngram", "--runs", "2", "--db", str(tmp_path / "arena.db"),
        "--models-dir", str(tmp_path / "tuned"),
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Fine-tuning playability (Def. 35)" in out and "V_row(column)" in out
    plain_row = next(line for line in out.splitlines() if line.startswith("│ plain "))
    assert "yes" in plain_row  # playable
    fixed_row = [line for line in out.splitlines() if line.startswith("│ fixed ")]
    assert "no" in fixed_row[0] and fixed_row[1].count("undefined") == 3
    assert "2 of 2" in plain_row  # both runs agree with the verdict
    # what was measured, what holds by construction (renamed shares plain's runs), the cost
    assert "Measured: each game fine-tuned 2 times (seeds of its own)" in out
    assert "the players saw their information set, not the code" in out  # the default view
    assert "The players saw no code" in out  # plain and fixed: measured apart
    assert "1 [1, 1] =" in out and "holds by construction" in out
    assert "Cost: 4 fine-tuning run(s) tuned in this call" in out  # plain's and fixed's
    assert "stored under setting" in out
    assert "fine-tuning" in done.stderr  # progress goes to stderr
    again = subprocess.run([*args, "--json"], env=env, capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0, again.stderr
    doc = json.loads(again.stdout)
    assert "fine-tuning" not in again.stderr and "evaluating" not in again.stderr  # read back
    assert doc["setting"]["maps"] == 6 and len(doc["setting_sha256"]) == 64
    verdicts = {v["game"]: v for v in doc["verdicts"]}
    assert verdicts["plain"]["playable"] and not verdicts["fixed"]["playable"]
    assert len(verdicts["plain"]["scores_before"]) == 6
    values = {(v["source"], v["target"]): v for v in doc["transfers"]}
    assert values[("plain", "renamed")]["by_construction"]
    assert not values[("plain", "fixed")]["by_construction"] and doc["runs_tuned"] == 0
    assert len(values) == 9 and values[("plain", "fixed")]["value"] is None  # Def. 37:
    assert "target game is not playable" in values[("plain", "fixed")]["reason"]  # both
    assert verdicts["plain"]["runs"] == 2 and verdicts["plain"]["runs_agreeing"] == 2
    assert values[("fixed", "plain")]["value"] is None
    assert values[("fixed", "plain")]["reason"].startswith("undefined")
