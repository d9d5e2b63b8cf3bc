"""`reinforce` keeps the weights its evaluation policy did best with (issue 19).

A reproduction from the calibration benchmark: on the tests' PLAIN game with the tests'
tiny GPT-2, the run of seed 0 collapses (after 10 steps the greedy player gives one wrong
answer on every map, worse than the base model), although the sampled batches' mean reward
never showed it. With ``keep=best`` (the default) the tuner checks the greedy player on
maps of its own (4) after every step and keeps the best weights, so the same run ends better
than the base model instead of worse."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from arena.gamespace.transfer.evaluate import game_scores
from arena.judges.ngram import NgramJudge
from arena.plugins.registry import Registry
from arena.protocols.finetune import FineTuneRequest
from tests.gamespace import transfer_games as tg

pytestmark = pytest.mark.torch

COLLAPSING_SEED = 0
STEPS = 10


async def test_keep_best_turns_a_collapsing_run_into_a_gain(tmp_path: Path) -> None:
    # On the CPU whatever `--device` says: the collapse is a reproduction measured there
    # (another device's float arithmetic takes the run elsewhere).
    registry, judge = Registry.load(), NgramJudge()
    player = tg.player_spec(tg.save_long_context_model(tmp_path / "tiny"), "cpu")
    game = tg.games()[0]
    before = statistics.fmean(
        await game_scores(player, game, judge=judge, registry=registry, maps=8, seed=0)
    )
    after: dict[str, float] = {}
    for keep in ("last", "best"):
        tuner = registry.create_finetuner(f"{tg.FINETUNER}&keep={keep}")
        result = await tuner.finetune(FineTuneRequest(
            player, game.view, judge, 10**12, COLLAPSING_SEED, tmp_path / keep,
            max_steps=STEPS,
        ))
        after[keep] = statistics.fmean(await game_scores(
            result.player, game, judge=judge, registry=registry, maps=8, seed=0
        ))
    report = f"S_G before {before:.2f}, after keep=last {after['last']:.2f}, best {after['best']:.2f}"
    assert after["last"] < before, f"the reproduction no longer collapses: {report}"
    assert after["best"] > before, report

    record = json.loads((tmp_path / "best" / "finetune.json").read_text())
    checks = record["checks"]
    assert record["steps"] == STEPS and len(checks) == STEPS + 1  # before step 1, after each
    best = max(checks)
    assert record["kept_step"] == max(i for i, c in enumerate(checks) if c == best)
    plain = json.loads((tmp_path / "last" / "finetune.json").read_text())
    assert plain["checks"] == [] and plain["kept_step"] == STEPS
