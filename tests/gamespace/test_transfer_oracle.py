"""The real transfer oracle on constructed pairs whose answer is known (the issue's bar):
a renamed copy of a game and a copy with a no-op instruction are the same game (they share
the runs, and V is 1 exactly), a game whose score the move cannot change is not playable
and transfer to or from it is undefined. Real fine-tuning (reinforce), real games, the
n-gram judge, a real SQLite file. These are the calibration cases of
benchmarks/gamespace_calibration.py at one seed.
"""

from __future__ import annotations

import asyncio
import math
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from arena.errors import ConfigError, UnknownNameError
from arena.gamespace.transfer.measure import (
    TransferMatrix,
    TransferSetting,
    open_oracle,
)
from arena.gamespace.transfer.oracle import Estimate, GameText, TransferOracle
from arena.lang.game_file import game_sha256
from arena.plugins.registry import Registry
from arena.storage import Store
from arena.storage import transfers as stored
from tests.gamespace import transfer_games as tg


def plugins() -> Registry:
    """The installed plugins: what open_oracle builds the fine-tuner and players with."""
    return Registry.load()

pytestmark = pytest.mark.torch


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tg.save_long_context_model(tmp_path_factory.mktemp("tiny-long"))


@pytest.fixture(scope="module")
def setting(model: Path, torch_device: str) -> TransferSetting:
    return TransferSetting(
        tg.player_spec(model, torch_device), tg.FINETUNER, tg.BUDGET, maps=tg.MAPS, seed=0,
        judge="ngram", runs=tg.RUNS,
    )


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("transfer-db") / "arena.db")


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tuned")


class Log:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str) -> None:
        self.lines.append(line)


@pytest.fixture(scope="module")
def measured(setting: TransferSetting, db: str, models_dir: Path) -> tuple[TransferMatrix, Log]:
    """The whole matrix, measured once for the module (about 10 s)."""

    async def run() -> tuple[TransferMatrix, Log]:
        store, log = Store.open(db), Log()
        try:
            async with open_oracle(setting, store=store, registry=plugins(),
                                   models_dir=models_dir, progress=log) as oracle:
                return await oracle.matrix(tg.games()), log
        finally:
            store.close()

    return asyncio.run(run())


async def test_verdicts_follow_def_35(measured: tuple[TransferMatrix, Log]) -> None:
    matrix, log = measured
    plain, renamed, fixed = matrix.verdicts
    assert (renamed.scores_before, renamed.scores_after) == (plain.scores_before,
                                                              plain.scores_after)  # one game
    for learnable in (plain, renamed):
        assert learnable.playable and learnable.gain_low > 0
        assert learnable.score_after > learnable.score_before
        assert len(set(learnable.scores_before)) > 1  # the maps differ: a real interval
        assert tg.RUNS * tg.BUDGET <= learnable.tokens < 2 * tg.RUNS * tg.BUDGET  # all runs
    assert not fixed.playable and fixed.score_after == fixed.score_before
    assert (fixed.gain_low, fixed.gain_high) == (0.0, 0.0)
    # once per run of each game: plain and its renamed copy are one game
    assert sum(line.startswith("fine-tuning ") for line in log.lines) == 2 * tg.RUNS
    assert matrix.agreeing[:2] == (tg.RUNS, tg.RUNS)


async def test_a_renamed_copy_transfers_exactly_one(measured: tuple[TransferMatrix, Log]) -> None:
    """Calibration case (issue 19): one evaluation form, so the same runs and maps for both
    and V = 1 with the interval [1, 1]; by construction, and the matrix says so."""
    matrix, _ = measured
    assert matrix.by_construction("plain", "renamed")
    assert not matrix.by_construction("plain", "fixed")
    for source, target in (("plain", "renamed"), ("renamed", "plain")):
        v = matrix.value(source, target)
        assert (v.value, v.low, v.high) == (1.0, 1.0, 1.0), v
        assert v.target_after > v.target_before
    for name in ("plain", "renamed"):
        diagonal = matrix.value(name, name)
        assert (diagonal.value, diagonal.low, diagonal.high) == (1.0, 1.0, 1.0)


async def test_transfer_to_or_from_an_unplayable_game_is_undefined(
    measured: tuple[TransferMatrix, Log],
) -> None:
    matrix, _ = measured
    for source in ("plain", "renamed"):
        v = matrix.value(source, "fixed")  # Def. 37: the target must be playable too
        assert v.value is None and v.low is None and "target game is not playable" in v.reason
        assert v.target_after == v.target_before  # measured all the same: nothing changed
    for target in ("plain", "renamed", "fixed"):
        undefined = matrix.value("fixed", target)
        assert undefined.value is None and undefined.low is None
        assert "undefined" in undefined.reason and "contains 0" in undefined.reason


async def test_everything_is_stored_and_read_back_without_tuning_again(
    measured: tuple[TransferMatrix, Log], setting: TransferSetting, db: str, models_dir: Path,
) -> None:
    matrix, _ = measured
    store = Store.open(db)
    try:
        assert stored.verdicts(store.engine, setting.sha256) == list(matrix.verdicts)
        assert stored.transfers(store.engine, setting.sha256) == list(matrix.values)
        [summary] = [x for x in stored.settings(store.engine)
                     if x.setting_sha256 == setting.sha256]
        assert (summary.games, summary.transfers) == (3, 9)
        for run in range(tg.RUNS):  # each run is stored on its own, once per game
            assert len(stored.verdicts(store.engine, setting.run_sha256(run))) == 2
        assert f'"budget_tokens":{tg.BUDGET}' in summary.setting_json
        log = Log()
        async with open_oracle(setting, store=store, registry=plugins(),
                               models_dir=models_dir, progress=log) as oracle:
            assert isinstance(oracle, TransferOracle)
            again = await oracle.matrix(tg.games())
            plain, renamed, fixed = (GameText(g.name, g.version, g.filename, g.source)
                                     for g in tg.games())
            v = matrix.value("plain", "renamed")
            assert await oracle.transfer(plain, renamed) == Estimate(v.value, v.low, v.high)
            gain = await oracle.playable(fixed)
            assert (gain.value, gain.low, gain.high) == (0.0, 0.0, 0.0)
            undefined = await oracle.transfer(fixed, plain)
            assert not undefined.defined and math.isnan(undefined.value)
        assert log.lines == [] and again.runs_tuned == 0  # nothing tuned or played again
        assert matrix.runs_tuned == 2 * tg.RUNS  # the first time: plain's and fixed's runs
        assert replace(again, runs_tuned=matrix.runs_tuned) == matrix
    finally:
        store.close()


async def test_a_new_pair_reuses_the_kept_model(
    measured: tuple[TransferMatrix, Log], setting: TransferSetting, models_dir: Path,
) -> None:
    """Without a database, the kept model folders still spare the fine-tuning."""
    log = Log()
    async with open_oracle(setting, store=None, registry=plugins(), models_dir=models_dir,
                           progress=log) as oracle:
        [plain, _, fixed] = tg.games()
        record = await oracle.transfer_record(plain, fixed)
    assert record.value is None and record.source_sha256 == game_sha256(plain.source)
    assert log.lines and not any(line.startswith("fine-tuning ") for line in log.lines)


async def test_bad_settings_fail_before_any_model_loads(setting: TransferSetting) -> None:
    with pytest.raises(ConfigError, match="at least 2 evaluation maps"):
        async with open_oracle(TransferSetting(setting.player, maps=1), store=None,
                               registry=plugins()):
            pass
    with pytest.raises(ConfigError, match="budget must be at least 1"):
        async with open_oracle(TransferSetting(setting.player, budget_tokens=0), store=None,
                               registry=plugins()):
            pass
    with pytest.raises(ConfigError, match=r"Unknown view 'source'.*infoset, code"):
        TransferSetting(setting.player, view="source").check()  # type: ignore[arg-type]
    with pytest.raises(UnknownNameError, match="reinforce"):
        async with open_oracle(TransferSetting(setting.player, finetuner="reinforse",
                                               judge="ngram"), store=None,
                               registry=plugins()):
            pass


async def test_a_tuned_model_folder_that_is_gone_is_tuned_again(
    setting: TransferSetting, tmp_path: Path
) -> None:
    log = Log()
    async with open_oracle(setting, store=None, registry=plugins(), models_dir=tmp_path,
                           progress=log) as oracle:
        [plain, _, fixed] = tg.games()
        first = await oracle.verdict(plain)
        assert first.model_path is not None
        shutil.rmtree(first.model_path)
        record = await oracle.transfer_record(plain, fixed)
    assert any("is gone; fine-tuning again" in line for line in log.lines)
    assert Path(first.model_path, "model.safetensors").is_file()
    assert record.value is None and record.target_after == record.target_before


def test_the_stored_setting_never_holds_a_secret() -> None:
    spec = "litellm:openai/gpt-4o-mini?api_key=sk-abcdefghijklmnopqrstuvwx"
    setting = TransferSetting("hf:bundled", opponent=spec)
    assert "sk-abc" not in setting.to_json() and "api_key=***" in setting.to_json()
    other_key = TransferSetting("hf:bundled", opponent=spec.replace("sk-abc", "sk-xyz"))
    assert other_key.sha256 == setting.sha256  # a key does not change what is measured
    assert TransferSetting("hf:bundled", maps=9).sha256 != TransferSetting("hf:bundled").sha256
    code = TransferSetting("hf:bundled", view="code")
    assert code.sha256 != TransferSetting("hf:bundled").sha256 and code.show_code


def test_each_game_is_tuned_with_run_seeds_of_its_own() -> None:
    """Issue 36: two games (an unrecognised copy among them) are tuned independently; the
    runs of one game differ from each other; the seeds do not depend on R."""
    setting = TransferSetting("hf:bundled")
    plain, copy = "a" * 64, "b" * 64
    seeds = {(key, run): setting.run_seed(run, key) for key in (plain, copy) for run in range(4)}
    assert len(set(seeds.values())) == 8
    assert TransferSetting("hf:bundled", runs=8).run_seed(2, plain) == seeds[(plain, 2)]


async def test_adding_a_run_tunes_only_the_new_run(
    measured: tuple[TransferMatrix, Log], setting: TransferSetting, db: str, models_dir: Path,
) -> None:
    """Issue 19 item 2: per-run results are cached, so R + 1 runs cost one more tuning per
    game; the intervals are over runs and maps and the agreement is reported."""
    store, log = Store.open(db), Log()
    more = replace(setting, runs=setting.runs + 1)
    try:
        async with open_oracle(more, store=store, registry=plugins(), models_dir=models_dir,
                               progress=log) as oracle:
            [plain, _, fixed] = tg.games()
            verdict = await oracle.verdict(plain)
            assert await oracle.verdict(fixed) and not (await oracle.verdict(fixed)).playable
    finally:
        store.close()
    tuned = [line for line in log.lines if line.startswith("fine-tuning ")]
    assert len(tuned) == 2 and all(f"run {more.runs} of {more.runs}" in t for t in tuned)
    assert verdict.playable and verdict.setting_sha256 == more.sha256
    assert oracle.agreement[game_sha256(plain.source)] == (more.runs, more.runs)
    assert oracle.agreement[game_sha256(fixed.source)] == (more.runs, more.runs)


async def test_a_copy_with_a_no_op_instruction_transfers_exactly_one(
    measured: tuple[TransferMatrix, Log], setting: TransferSetting, db: str, models_dir: Path,
) -> None:
    """Calibration case (issue 19): plain + a no-op instruction is plain (the same
    evaluation form), so it reads plain's runs (nothing is tuned or played again) and
    V = 1 with the interval [1, 1], both ways; its rows are its own (its text, its name)."""
    from arena.match_setup import load_game_text

    store, log = Store.open(db), Log()
    try:
        async with open_oracle(setting, store=store, registry=plugins(),
                               models_dir=models_dir, progress=log) as oracle:
            [plain, _, _] = tg.games()
            noop = load_game_text(tg.NOOP, "noop.xgl")
            there = await oracle.transfer_record(plain, noop)
            back = await oracle.transfer_record(noop, plain)
            verdict = await oracle.verdict(noop)
            assert oracle.key(noop) == oracle.key(plain)
    finally:
        store.close()
    assert log.lines == []  # the copy's runs are plain's
    for record in (there, back):
        assert (record.value, record.low, record.high) == (1.0, 1.0, 1.0), record
    assert there.target == "noop" and there.target_sha256 == game_sha256(tg.NOOP)
    matrix, _ = measured
    plain_verdict = matrix.verdicts[0]
    assert verdict.game == "noop" and verdict.playable
    assert (verdict.gain_low, verdict.gain_high) == (plain_verdict.gain_low,
                                                     plain_verdict.gain_high)
    assert there.scores_after == plain_verdict.scores_after
