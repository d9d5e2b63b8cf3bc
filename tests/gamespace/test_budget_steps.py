"""Issue 19 item 1: budgets are stated and checked in optimiser steps as well as tokens. A
step cap stops the tuning; a budget that buys fewer than MIN_STEPS steps is warned about in
one sentence that names the token budget which would buy them."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from arena.cli.commands.scope import grow_command
from arena.cli.commands.transfer import transfer_command
from arena.errors import ConfigError
from arena.gamespace.transfer.finetune import MIN_STEPS, steps_warning
from arena.gamespace.transfer.measure import (
    DEFAULT_BUDGET_TOKENS,
    DEFAULT_MAPS,
    DEFAULT_RUNS,
    TransferSetting,
    open_oracle,
)
from arena.judges.ngram import NgramJudge
from arena.players.finetune.reinforce import ReinforceSettings
from arena.plugins.registry import Registry
from arena.protocols.finetune import FineTuneRequest
from tests.gamespace import transfer_games as tg

SINGLE_TEXT_EPISODE_TOKENS = 3_584  # one episode of single_text (issue 19: 28 672 a step of 8)
CHECK_MAPS = ReinforceSettings().check  # keep=best plays them before step 1 and after each


def test_the_warning_is_one_sentence_with_the_budget_that_would_do() -> None:
    warning = steps_warning("single_text", 1, 28_672, 20_000)
    assert warning is not None and warning.count(". ") == 0 and warning.endswith(".")
    assert "took 1 optimiser step(s)" in warning and f"fewer than the {MIN_STEPS}" in warning
    wanted = int(warning.rsplit("--budget-tokens ", 1)[1].split()[0])
    assert wanted >= MIN_STEPS * 28_672
    assert steps_warning("single_text", MIN_STEPS, MIN_STEPS * 1000, 10**6) is None


def test_the_default_budget_buys_the_minimum_steps_of_a_paper_game() -> None:
    step = (8 + CHECK_MAPS) * SINGLE_TEXT_EPISODE_TOKENS
    wanted = MIN_STEPS * step + CHECK_MAPS * SINGLE_TEXT_EPISODE_TOKENS
    assert wanted <= DEFAULT_BUDGET_TOKENS
    assert TransferSetting("hf:bundled").budget_tokens == DEFAULT_BUDGET_TOKENS
    for command in (transfer_command, grow_command):  # the CLI's literal defaults agree
        parameters = inspect.signature(command).parameters
        assert parameters["budget_tokens"].default == DEFAULT_BUDGET_TOKENS
        assert parameters["runs"].default == DEFAULT_RUNS == TransferSetting("m").runs
        assert parameters["maps"].default == DEFAULT_MAPS == TransferSetting("m").maps
    with pytest.raises(ConfigError, match="at least 1 step"):
        TransferSetting("hf:bundled", budget_steps=0).check()


@pytest.mark.torch
async def test_a_step_cap_stops_the_tuning(tmp_path: Path) -> None:
    from tests.players.test_hf_player import _save_tiny_model

    model = _save_tiny_model(tmp_path / "tiny", chat=False)
    registry = Registry.load()
    tuner = registry.create_finetuner("reinforce?lr=1e-2&batch=2")
    [game, _, _] = tg.games()
    result = await tuner.finetune(FineTuneRequest(
        f"hf:{model}?max_new_tokens=4&temperature=1", game.view, NgramJudge(), 10**9, 0,
        tmp_path / "out", max_steps=2,
    ))
    assert result.steps == 2 and result.tokens < 10**9


@pytest.mark.torch
async def test_the_oracle_warns_when_the_budget_buys_too_few_steps(tmp_path: Path) -> None:
    model = tg.save_long_context_model(tmp_path / "tiny")
    setting = TransferSetting(
        tg.player_spec(model), "reinforce?lr=1e-2&batch=2&temperature=1", budget_tokens=100,
        maps=2, judge="ngram", runs=1,
    )
    lines: list[str] = []
    async with open_oracle(setting, store=None, registry=Registry.load(),
                           models_dir=tmp_path / "m", progress=lines.append) as oracle:
        [game, _, _] = tg.games()
        await oracle.verdict(game)
    assert len(oracle.warnings) == 1 and "took 1 optimiser step(s)" in oracle.warnings[0]
    assert oracle.warnings[0] in lines
