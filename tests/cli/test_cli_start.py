"""The `arena` command starts without its heavy libraries (issue 18 item 11: `arena --help`
took 2.5 s, `arena games list` 6.6 s): building the command line, printing help and listing
games import no torch, transformers, litellm, ray, streamlit, SQLAlchemy, SciPy, pandas or
aiohttp; each command imports what it needs when it runs. Timings are in
benchmarks/cli_start_bench.py; this checks what is imported, which does not vary with load.
Also the help text itself: paragraphs rewrapped (no docstring line breaks), an honest
`--cron` help and an honest label on the reference normalisation of `arena scores`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = (
    "torch", "transformers", "litellm", "ray", "streamlit", "sqlalchemy", "sqlmodel",
    "scipy", "pandas", "aiohttp", "numpy", "apscheduler",
)
PROBE = (
    "import json, sys\n"
    "from arena.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "finally:\n"
    f"    heavy = sorted(m for m in {HEAVY!r} if m in sys.modules)\n"
    "    print('HEAVY=' + json.dumps(heavy), file=sys.stderr)\n"
)


def arena(*args: str, columns: int = 80) -> tuple[str, list[str]]:
    """stdout of `arena ARGS` in a fresh process, and the heavy modules it imported."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": str(columns)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    line = next(ln for ln in done.stderr.splitlines() if ln.startswith("HEAVY="))
    return done.stdout, json.loads(line[len("HEAVY="):])


@pytest.mark.parametrize(
    "argv",
    [("--help",), ("games", "list"), ("run", "--help"), ("ratings", "--help"),
     ("schedule", "add", "--help"), ("dashboard", "--help")],
    ids=" ".join,
)
def test_help_and_listing_import_no_heavy_library(argv: tuple[str, ...]) -> None:
    out, heavy = arena(*argv)
    assert out.strip()
    assert heavy == [], f"`arena {' '.join(argv)}` imported {heavy}"


def test_help_paragraphs_are_rewrapped_not_split_at_docstring_line_breaks() -> None:
    # `arena --help` listed `run` as "... Ctrl-C or SIGTERM" and then "stops it keeping
    # every finished match." on a line of its own: the docstring's line break. Now each
    # command is one line (its summary), and a command's own help fills its lines.
    out, _ = arena("--help", columns=120)
    commands = out[out.index("Commands:"):].splitlines()[1:]
    assert all(line.startswith("  ") and not line.startswith("   ") for line in commands if line)
    run_line = next(line for line in commands if line.split()[:1] == ["run"])
    assert " ".join(run_line.split()) == (
        "run Run a tournament; running it again resumes where it stopped."
    ), run_line
    out, _ = arena("run", "--help", columns=120)
    assert not any(line.rstrip().endswith("Ctrl-C or SIGTERM") for line in out.splitlines()), out
    assert (
        "Run a tournament; running it again resumes where it stopped. Ctrl-C or SIGTERM "
        "stops it keeping every finished match." in " ".join(out.split())
    ), out


def test_cron_help_agrees_with_its_example() -> None:
    out, _ = arena("schedule", "add", "--help", columns=200)
    assert "six with seconds first" in out and "five fields" in out, out
    assert "(6 fields: seconds first)" not in out


def test_option_types_repeated_for_a_light_start_agree_with_their_modules() -> None:
    from arena.cli.commands import scope, transfer
    from arena.gamespace.scope import run as scope_run
    from arena.gamespace.transfer import arithmetic as transfer_math
    from arena.gamespace.transfer import measure as transfer_measure
    from arena.tournaments.cli import imports as cli_imports
    from arena.tournaments.cli import ratings as cli_ratings
    from arena.tournaments.ratings import bradley_terry, outcomes, service
    from arena.tournaments.ratings.bootstrap import CLUSTER_MIN_MAPS, RESAMPLING
    from arena.tournaments.services.exchange import export, importers
    from arena.tournaments.services.recurring import cli as recurring_cli
    from arena.tournaments.services.recurring import schedules

    assert scope.FINETUNE == scope_run.FINETUNE
    assert transfer.LEVEL == transfer_math.LEVEL
    assert get_args(transfer.View) == transfer_measure.VIEWS
    assert get_args(cli_ratings.Scale) == get_args(service.Scale)
    assert get_args(cli_ratings.ExportFormat) == get_args(export.ExportFormat)
    assert get_args(cli_imports.ImportFormat) == get_args(importers.ImportFormat)
    assert get_args(cli_imports.OutcomeRule) == get_args(outcomes.OutcomeRule)
    assert cli_ratings.DEFAULT_PRIOR == bradley_terry.DEFAULT_PRIOR
    assert get_args(cli_ratings.Resampling) == RESAMPLING
    assert cli_ratings.CLUSTER_MIN_MAPS == CLUSTER_MIN_MAPS
    assert get_args(recurring_cli.SeedPolicy) == get_args(schedules.SeedPolicy)
