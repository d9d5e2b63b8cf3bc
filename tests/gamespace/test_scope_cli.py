"""`arena scope grow | show | list` as a user runs them: a growth killed with SIGKILL and rerun
ends with the archive of an uninterrupted growth; `show` reports rounds and covers; bad
input is one sentence and exit 2. The oracle is a table file (every value 0.5), the
sampler the real `mutate`, the checks the real pipeline with the n-gram judge."""

from __future__ import annotations

import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.cli import main
from arena.gamespace.scope.cover import transfer_cover
from arena.storage import Store, sqlite_url
from arena.storage import scopes as store

ROOT = Path(__file__).resolve().parents[2]


def grow_args(table: Path, db: Path, **changes: str) -> list[str]:
    """`arena scope grow` of scope k from simplest_cut; `changes` replace options."""
    options = {
        "name": "k", "from": "simplest_cut", "oracle": f"table:{table}", "judge": "ngram",
        "rounds": "2", "budget": "24", "batch": "3", "db": sqlite_url(db),
        "fewshot": "arms",  # the cheap rule: these tests are about the CLI and the archive
    } | changes
    return ["scope", "grow", *(x for k, v in options.items() for x in (f"--{k}", v))]


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True,
                          text=True, env=env, timeout=300, check=False)


def archive(db: Path) -> tuple[str, list[tuple[object, ...]]]:
    engine = Store.open(sqlite_url(db)).engine
    found = store.scope(engine, "k")
    assert found is not None
    rows = [(g.sha256, g.round, g.accepted, g.gamma, g.verdicts.get("decision"))
            for g in store.games(engine, found.id)]
    engine.dispose()
    return found.status, rows


def count_rows(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            return int(conn.execute("select count(*) from scope_games").fetchone()[0])
    except sqlite3.Error:
        return 0


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "matrix.json"
    path.write_text(json.dumps({"transfer": {}, "default": 0.5}))
    return path


def test_a_killed_growth_resumes_to_the_uninterrupted_scope(tmp_path: Path, table: Path) -> None:
    whole = arena(*grow_args(table, tmp_path / "whole.db"))
    assert whole.returncode == 0, whole.stderr
    status, expected = archive(tmp_path / "whole.db")
    assert status == store.DONE and sum(1 for r in expected if r[2]) >= 3

    killed_db = tmp_path / "killed.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-m", "arena.cli", *grow_args(table, killed_db)],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    # past the root's repeat loop (24 candidates): killed during round 1
    while count_rows(killed_db) < 30 and time.monotonic() < deadline:
        assert child.poll() is None, "the growth ended before it could be killed"
        time.sleep(0.02)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    status, partial = archive(killed_db)
    assert status == store.GROWING and 30 <= len(partial) < len(expected)

    again = arena(*grow_args(table, killed_db))
    assert again.returncode == 0, again.stderr
    assert archive(killed_db) == (store.DONE, expected)
    assert again.stdout.splitlines()[-1].split(";")[0] == whole.stdout.splitlines()[-1].split(
        ";")[0]


def test_show_and_list_report_rounds_and_covers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Values 0.5 except V_simplest_cut(simplest_cut-mut-s6-1) = 0.9. With alpha2 0.4 the
    first kept candidate (mut-s3-2, gamma 0.5) joins; mut-s6-1 (gamma 0.9 > 0.6) stops the
    root's loop; the next round adds games at gamma 0.5 (so N = 1 round keeps it short)."""
    table = tmp_path / "matrix.json"
    table.write_text(json.dumps({
        "transfer": {"simplest_cut": {"simplest_cut-mut-s6-1": 0.9}}, "default": 0.5
    }))
    db = sqlite_url(tmp_path / "a.db")
    main(grow_args(table, tmp_path / "a.db", alpha2="0.4", rounds="1"))
    capsys.readouterr()
    main(["scope", "show", "k", "--db", db])
    shown = capsys.readouterr().out
    assert "Σ_0: 1 game(s) simplest_cut" in shown
    assert "Ω_0: 1 game(s) simplest_cut-mut-s3-2" in shown
    # Σ = {root, mut-s3-2}; the weighed candidate mut-s6-1 is covered at 0.9 (by the root),
    # every game of Σ covers itself (V_G(G) = 1) and the root covers mut-s3-2 at 0.5
    assert "weighed (gamma measured, not accepted): 1" in shown
    assert "Δ_Σ(candidates ∪ Σ) = 0.9;" in shown
    assert "Δ_Σ(Σ) = 1;" in shown and "Δ_Σ0(Σ) = 0.5;" in shown
    main(["scope", "show", "k", "--json", "--db", db])
    doc = json.loads(capsys.readouterr().out)
    assert doc["rounds"] == [["simplest_cut"], ["simplest_cut-mut-s3-2"]]
    assert doc["covers"]["Δ_Σ(candidates ∪ Σ)"]["value"] == pytest.approx(0.9)
    stopped = next(g for g in doc["games"] if g["name"] == "simplest_cut-mut-s6-1")
    assert stopped["verdicts"]["decision"] == "stop" and stopped["gamma"] == 0.9
    # Def. 45: V_root(mut-s3-2) = 0.5, the other way round unmeasured: at eta 0.5 the root
    # alone covers Σ; at 0.6 nothing does but each game itself
    main(["scope", "show", "k", "--cover", "0.5", "--db", db])
    shown = capsys.readouterr().out
    assert "eta-cover (Def. 45, eta=0.5, optimal): 1 game(s) simplest_cut;" in shown
    assert "Def. 47: the benchmark measure of (k, eta=0.5)" in shown
    main(["scope", "show", "k", "--cover", "0.6", "--db", db])
    assert "optimal): 2 game(s)" in capsys.readouterr().out
    # games = "scope:k?cover=ETA" in a tournament plays the cover only
    from arena.errors import ArenaError
    from arena.tournaments.planning.scope_games import scope_games

    assert [e["game"] for e in scope_games("scope:k?cover=0.5", db).entries] == ["simplest_cut"]
    assert len(scope_games("scope:k?cover=0.6", db).entries) == 2
    assert len(scope_games("scope:k", db).entries) == 2
    with pytest.raises(ArenaError, match="only option is cover=ETA"):
        scope_games("scope:k?cover=half", db)
    main(["scope", "list", "--db", db])
    listed = capsys.readouterr().out
    assert "k" in listed and "done" in listed


def test_bad_input_is_one_sentence_and_exit_2(
    tmp_path: Path, table: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = sqlite_url(tmp_path / "a.db")
    cases = [
        (grow_args(table, tmp_path / "a.db", alpha1="0"), "--alpha1 must lie in (0, 1]"),
        (grow_args(tmp_path / "missing.json", tmp_path / "a.db"), "Cannot read the transfer"),
        (grow_args(table, tmp_path / "a.db", oracle="magic"), "Unknown oracle 'magic'"),
        (grow_args(table, tmp_path / "a.db", oracle="finetune"), "needs the model to fine-tune"),
    ]
    for args, expected in cases:
        with pytest.raises(SystemExit) as done:
            main(args)
        err = capsys.readouterr().err
        assert done.value.code == 2 and expected in err and "Traceback" not in err
    main(grow_args(table, tmp_path / "a.db", budget="3"))
    capsys.readouterr()
    for args, expected in [
        (grow_args(table, tmp_path / "a.db", budget="4"),
         "The scope k was grown with other parameters (budget differ)"),
        (["scope", "show", "kk", "--db", db], "Did you mean 'k'?"),
    ]:
        with pytest.raises(SystemExit) as done:
            main(args)
        err = capsys.readouterr().err
        assert done.value.code == 2 and expected in err and "Traceback" not in err


def test_transfer_cover_on_a_known_matrix() -> None:
    values = {("a", "b"): 0.4, ("a", "c"): 0.7, ("b", "c"): 0.9, ("c", "a"): None}
    assert transfer_cover(["a", "b", "c"], ["a"], values).value == pytest.approx(0.4)
    both = transfer_cover(["a", "b", "c"], ["a", "b"], values)
    assert both.value == pytest.approx(0.9) and both.measured == 3 and both.pairs == 4
    alone = transfer_cover(["a", "c"], ["c"], values)  # V_c(a) undefined: a is uncovered
    assert alone.value == -math.inf and alone.uncovered == ("a",)
