"""The real transfer oracle: fine-tune M on each game, measure S_G before and after on the
same evaluation maps, and compute Def. 35's verdicts and Def. 37's transfer values.

A `TransferSetting` fixes everything a number depends on (player M, fine-tuner F, budget T,
evaluation maps K, seed, judge, opponent, interval level): its sha256 keys the stored rows
(`arena.storage.transfers`), so a game is fine-tuned on once per setting and a value is
measured once; the tuned models are kept under `models_dir/<setting>/<game>` and reused.

How things are measured (`arena.gamespace.transfer.evaluate`): M and every F_G[M] play the
game's main role on the K evaluation maps of `seed` (other roles: the frozen `opponent`,
default M itself), so S_G(M) and S_G(F_G[M]) are paired map by map, and so are the scores of
one player at different games (map i has the same seed at every game). The arithmetic and its
choices (undefined values, the interval rule) are `arena.gamespace.transfer.arithmetic`.

Common maps, independent runs: the evaluation maps and play seeds come from `seed` alone, so
the scores of two games are paired map by map (the intervals use that pairing:
`arena.gamespace.transfer.arithmetic`). Run r fine-tunes with `run_seed(r, key)`, a seed of
its own at every game (`key`: the evaluation form), so two games that are the same game but
not recognised as one are tuned independently, as two measured games are (issue 36).

What the players see (`view`): by default their information set without the program's text
(`arena.runtime.code_hidden`), so a game's numbers depend on the game, not on how it is
spelled; `view="code"` shows the code as tournaments do.

Games, not spellings: every game is played and tuned on in its evaluation form
(`evaluation_form`: the canonical form under a fixed name), and what is measured (each run's
scores and tuned model) is keyed by that form's sha256 (`key`). Two spellings of one game
(another name, renamed registers, a no-op instruction, other comments) therefore share their
runs, and V between them is 1 exactly, with the interval [1, 1]: by construction, not
measured. A copy the canonical form does not recognise (a register copied before scoring, a
dead assignment, an equivalent expression) is tuned and measured on its own, with runs of
its own: such a V is measured, with its interval (`docs/gamespace-calibration.md`; with
`view="code"` the untuned model reads the copy's text and may play it differently, so V
need not be 1). What is reported (the
combined verdict and the transfer values, the rows `arena transfer`, scopes and the
dashboard read) is keyed by the sha256 of the text as given, under the name as given, so
every game file has its own rows.

`open_oracle` is what scope growth (Algorithm 1) and `arena transfer` use.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import statistics
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Literal, get_args

from arena.errors import ConfigError
from arena.gamespace.transfer.arithmetic import (
    LEVEL,
    gain,
    runs_gain,
    runs_transfer_value,
)
from arena.gamespace.transfer.evaluate import evaluation_form, game_scores
from arena.gamespace.transfer.finetune import MIN_STEPS, steps_warning
from arena.gamespace.transfer.oracle import UNDEFINED, Estimate, GameText
from arena.lang.game_file import game_sha256
from arena.match_setup import LoadedGame, load_game_text
from arena.plugins.registry import Registry
from arena.protocols.finetune import FineTuneRequest
from arena.protocols.judge import Judge
from arena.redaction import redact
from arena.runtime.seeds import derive_seed
from arena.storage import Store
from arena.storage.transfers import TransferRecord, VerdictRecord

RECORD_FILE = "finetune.json"  # written last by a fine-tuner run that completed (reinforce)

Progress = Callable[[str], None]
METHOD = 5  # 2: name-free evaluation, Def. 37 needs both games playable; 3: canonical form;
# 4: t and Fieller intervals over crossed runs x maps (issue 36), no bootstrap; 5: the code
# hidden by default (`view`), run seeds of each game's own
View = Literal["infoset", "code"]  # what the players see: `arena.runtime.code_hidden`, or
VIEWS: tuple[View, ...] = get_args(View)  # the code as in a tournament
# R: fine-tuning runs per game (intervals over runs, then maps). 4, the smallest R at which
# one failed run cannot decide the verdict alone: the bootstrap draws that run every time
# with probability (1/R)^R, 3.7 % at R = 3 (more than the 2.5 % tail of a 95 % interval, so
# one run that did not learn made a learnable game "not playable") and 0.4 % at R = 4.
DEFAULT_RUNS = 4
# K: evaluation maps per game. 16, not 8: over 20 seeds of the calibration benchmark (the same
# runs scored on 8 and on 16 maps) the five texts of a learnable game were judged playable in
# 94 of 100 measurements against 85, for about no extra time on this machine (the fine-tuning
# dominates): docs/gamespace-calibration.md
DEFAULT_MAPS = 16
DEFAULT_BUDGET_TOKENS = 360_000  # about MIN_STEPS (8) steps of single_text: batch 8 and the
# 4 check maps of reinforce's keep=best, 12 episodes of about 3 584 tokens a step


@dataclass(frozen=True)
class TransferSetting:
    """The setting (M, F, T and how S_G is measured) that every value depends on (Remark 39).

    Attributes:
        player: M, a player spec the fine-tuner accepts (e.g. ``hf:bundled``).
        finetuner: F, a fine-tuner spec (e.g. ``reinforce?lr=1e-4``).
        budget_tokens: T, the fine-tuning token budget (default: about `MIN_STEPS` steps
            of a paper game such as single_text at the default batch of 8 episodes, 28 672
            tokens a step on the bundled model).
        budget_steps: also stop after this many optimiser steps (None: tokens decide).
            Every tuning that took fewer than `MIN_STEPS` steps is reported in `warnings`.
        maps: K, evaluation maps per game (>= 2: intervals are over maps).
        seed: evaluation maps, training maps and fine-tuning seed.
        judge: the judge spec that scores every move.
        opponent: the player of the other roles (default: `player`), frozen.
        level: the intervals' confidence level.
        runs: R, fine-tuning runs per game (seeds `run_seed(r, key)`); intervals are over
            the crossed runs x maps table (`arena.gamespace.transfer.arithmetic`).
        view: what the players see: "infoset", their information set without the
            program's text (the default: a game's numbers do not depend on its spelling),
            or "code", the code as in a tournament.
        method: the measurement method's version; rows stored by an older method (whose
            numbers depended on the game's name or spelling, or gave a value to an
            unplayable target) are keyed apart and never reused.
    """

    player: str
    finetuner: str = "reinforce"
    budget_tokens: int = DEFAULT_BUDGET_TOKENS
    maps: int = DEFAULT_MAPS
    seed: int = 0
    judge: str = "bundled"
    opponent: str | None = None
    level: float = LEVEL
    method: int = METHOD
    runs: int = DEFAULT_RUNS
    budget_steps: int | None = None
    view: View = "infoset"

    @property
    def show_code(self) -> bool:
        """Whether the players see the program's text (`view`)."""
        return self.view == "code"

    def public(self) -> dict[str, object]:
        """The setting with secrets in its specs redacted (what is stored and shown)."""
        return {k: redact(v) if isinstance(v, str) else v for k, v in asdict(self).items()}

    def to_json(self) -> str:
        """The canonical JSON of `public()` (sorted keys): stored, and hashed by `sha256`
        (a secret, such as an API key in a spec, never changes what is measured)."""
        return json.dumps(self.public(), sort_keys=True, separators=(",", ":"))

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.to_json().encode("utf-8")).hexdigest()

    def run_json(self, run: int) -> str:
        """The setting of fine-tuning run `run` alone: R left out (so adding runs keeps the
        runs already measured), the run's index in."""
        public = {k: v for k, v in self.public().items() if k != "runs"}
        public["run"] = run
        return json.dumps(public, sort_keys=True, separators=(",", ":"))

    def run_sha256(self, run: int) -> str:
        """What run `run`'s stored verdicts and model folders are keyed by."""
        return hashlib.sha256(self.run_json(run).encode("utf-8")).hexdigest()

    def run_seed(self, run: int, key: str) -> int:
        """The fine-tuning seed of run `run` at the game whose evaluation form has sha256
        `key`: its own at every game, so two games are tuned independently (one game spelled
        two ways the canonical form recognises has one key, and shares its runs).
        Evaluation maps stay those of `seed` for every run and game: paired map by map."""
        return derive_seed("gamespace-run", self.seed, run, key)

    def check(self) -> None:
        """`ConfigError` for numbers no measurement can use."""
        if self.budget_tokens < 1:
            raise ConfigError(
                f"The fine-tuning budget must be at least 1 token, got {self.budget_tokens}. "
                "Give e.g. --budget-tokens 20000."
            )
        if self.budget_steps is not None and self.budget_steps < 1:
            raise ConfigError(
                f"The fine-tuning step budget must be at least 1 step, got "
                f"{self.budget_steps}. Give e.g. --budget-steps {MIN_STEPS}, or leave it out."
            )
        if self.runs < 1:
            raise ConfigError(
                f"At least 1 fine-tuning run is needed, got runs={self.runs}. Give e.g. "
                f"--runs {DEFAULT_RUNS}."
            )
        if self.maps < 2:
            raise ConfigError(
                f"Transfer values need at least 2 evaluation maps (intervals are over maps), "
                f"got {self.maps}. Give e.g. --maps {DEFAULT_MAPS}."
            )
        if self.view not in VIEWS:
            raise ConfigError(
                f"Unknown view {self.view!r}: what the players see is one of "
                f"{', '.join(VIEWS)}. Give e.g. --view {VIEWS[0]}."
            )
        if not 0.5 <= self.level < 1.0:
            raise ConfigError(
                f"The confidence level must be from 0.5 to below 1, got {self.level}. Use "
                "e.g. 0.95."
            )


def loaded_from(game: GameText | LoadedGame) -> LoadedGame:
    """A game as text (the oracle protocol's `GameText`) parsed and checked."""
    if isinstance(game, LoadedGame):
        return game
    return load_game_text(game.source, game.filename, name=game.name)


@dataclass(frozen=True)
class TransferMatrix:
    """What `arena transfer` measured: verdicts per game and V_Gi(Gj) for every pair."""

    setting: TransferSetting
    verdicts: tuple[VerdictRecord, ...]
    values: tuple[TransferRecord, ...]
    agreeing: tuple[int, ...] = ()  # per verdict: runs whose own verdict is the same
    keys: tuple[str, ...] = ()  # per verdict: the sha256 of the game's evaluation form
    runs_tuned: int = 0  # fine-tuning runs this oracle tuned (the others were read back)

    def value(self, source: str, target: str) -> TransferRecord:
        """V_source(target), by game name."""
        return next(v for v in self.values if v.source == source and v.target == target)

    def by_construction(self, source: str, target: str) -> bool:
        """Whether V_source(target) holds by construction: the two texts have one evaluation
        form, so they share their runs and V is 1 [1, 1] without being measured."""
        if not self.keys:
            return False
        key = dict(zip((v.game for v in self.verdicts), self.keys, strict=True))
        return key[source] == key[target]

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready document (per-map scores included, for re-analysis)."""
        return {
            "setting": self.setting.public(),
            "setting_sha256": self.setting.sha256,
            "verdicts": [
                {**_public(asdict(v)), "runs": self.setting.runs, "runs_agreeing": n}
                for v, n in zip(self.verdicts, self.agreeing or [None] * len(self.verdicts),
                                strict=True)
            ],
            "transfers": [
                {**_public(asdict(v)), "by_construction": self.by_construction(v.source, v.target)}
                for v in self.values
            ],
            "runs_tuned": self.runs_tuned,
        }


def _public(row: dict[str, object]) -> dict[str, object]:
    row.pop("setting_json", None)
    row.pop("setting_sha256", None)
    row.pop("created_at", None)
    return row


@dataclass(frozen=True)
class PairedScores:
    """Per-map scores behind V_source(target): M's (one list per game) and each source
    run's tuned model's (one list per run, per game), all on the same K maps."""

    source_before: list[float]
    source_after: list[list[float]]
    target_before: list[float]
    target_after: list[list[float]]


class FineTuneOracle:
    """The `TransferOracle` of scope growth, measured for real and cached in the database.

    R = `setting.runs` fine-tuning runs per game (run r tunes with `run_seed(r, key)`, on the
    same K evaluation maps). Each run is stored on its own, under `setting.run_sha256(r)`
    (which does not depend on R) and the game's `key`, with its model folder: asking for
    more runs later tunes only the new ones, and a copy of a game tunes nothing. The
    combined verdict and value (t and Fieller intervals over runs x maps,
    `arena.gamespace.transfer.arithmetic`) are stored under `setting.sha256`.
    Evaluates each (player, game) once per oracle. `store` None keeps results in memory.
    """

    def __init__(
        self, setting: TransferSetting, *, registry: Registry, judge: Judge,
        store: Store | None, models_dir: Path, progress: Progress | None = None,
    ) -> None:
        setting.check()
        self.setting = setting
        self.registry = registry
        self.judge = judge
        self.store = store
        self.models_dir = models_dir
        self._report = progress or (lambda message: None)
        self._scores: dict[tuple[str, str], list[float]] = {}
        self._forms: dict[str, LoadedGame] = {}  # game text -> its evaluation form
        self._verdicts: dict[tuple[str, str], VerdictRecord] = {}  # (setting sha, game sha)
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}
        self._tuner = registry.create_finetuner(setting.finetuner)
        self.warnings: list[str] = []  # one sentence per tuning with too few steps
        self.agreement: dict[str, tuple[int, int]] = {}  # game sha -> (runs agreeing, R)
        self.runs_tuned = 0  # fine-tuning runs tuned by this oracle (not read back)

    # --- the TransferOracle protocol -----------------------------------------------------

    async def transfer(self, source: GameText, target: GameText) -> Estimate:
        """V_source(target) (Def. 37); `UNDEFINED` (NaN) unless both games are playable."""
        record = await self.transfer_record(loaded_from(source), loaded_from(target))
        if record.value is None or record.low is None or record.high is None:
            return UNDEFINED
        return Estimate(record.value, record.low, record.high)

    async def playable(self, game: GameText) -> Estimate:
        """The gain S_G(F_G[M]) - S_G(M) and its interval (Def. 35: playable if low > 0)."""
        record = await self.verdict(loaded_from(game))
        return Estimate(record.score_after - record.score_before, record.gain_low,
                        record.gain_high)

    # --- measurements ---------------------------------------------------------------------

    async def matrix(self, games: Sequence[LoadedGame]) -> TransferMatrix:
        """Verdicts of every game and V_Gi(Gj) for every ordered pair (diagonal included)."""
        keys = [game_sha256(g.source) for g in games]
        if len(set(keys)) < len(keys):
            twice = sorted({g.name for g, k in zip(games, keys, strict=True) if keys.count(k) > 1})
            raise ConfigError(
                f"The same game text is given more than once ({', '.join(twice)}). Give each "
                "game once."
            )
        verdicts = [await self.verdict(g) for g in games]
        values = [await self.transfer_record(s, t) for s in games for t in games]
        agreeing = tuple(self.agreement.get(k, (0, self.setting.runs))[0] for k in keys)
        return TransferMatrix(
            self.setting, tuple(verdicts), tuple(values), agreeing,
            tuple(self.key(g) for g in games), self.runs_tuned,
        )

    async def run_verdict(self, game: LoadedGame, run: int) -> VerdictRecord:
        """Run `run`: fine-tune M on `game` with the run's seed (once per game: keyed by
        `key`) and measure the gain on the K evaluation maps (its interval: over maps only)."""
        sha = self.setting.run_sha256(run)
        key = self.key(game)
        async with self._locks.setdefault((sha, key), asyncio.Lock()):
            known = self._verdicts.get((sha, key)) or self._stored_verdict(sha, key)
            if known is None:
                known = await self._tune_and_measure(game, key, run)
            self._verdicts[(sha, key)] = known
            return known if known.game == game.name else replace(known, game=game.name)

    async def verdict(self, game: LoadedGame) -> VerdictRecord:
        """Def. 35 over R runs x K maps (each run tuned once, then read back), stored under
        the game's text."""
        setting, key = self.setting, game_sha256(game.source)
        runs = [await self.run_verdict(game, r) for r in range(setting.runs)]
        combined = self._verdicts.get((setting.sha256, key)) or self._stored_verdict(
            setting.sha256, key
        )
        measured = runs_gain(
            runs[0].scores_before, [r.scores_after for r in runs], level=setting.level,
        )
        self.agreement[key] = (measured.agreeing, setting.runs)
        if combined is None:
            after = [statistics.fmean(column) for column in zip(
                *(r.scores_after for r in runs), strict=True
            )]
            combined = VerdictRecord(
                setting.sha256, setting.to_json(), game.name, key, measured.gain.before,
                measured.gain.after, measured.gain.gain.low, measured.gain.gain.high,
                measured.playable, sum(r.tokens for r in runs), runs[0].model_path,
                tuple(runs[0].scores_before), tuple(after),
            )
            if self.store is not None:
                self.store.save_verdict(combined)
        self._verdicts[(setting.sha256, key)] = combined
        return combined

    async def transfer_record(self, source: LoadedGame, target: LoadedGame) -> TransferRecord:
        """V_source(target) over R runs x K maps, measured once per setting (then read
        back); undefined unless both games are playable (Def. 37; the target is fine-tuned
        on too when the source is playable)."""
        setting = self.setting
        source_text, target_text = game_sha256(source.source), game_sha256(target.source)
        if self.store is not None:
            stored = self.store.transfer(setting.sha256, source_text, target_text)
            if stored is not None:
                return stored
        source_key, target_key = self.key(source), self.key(target)
        tuned = await self.verdict(source)
        target_playable = True if source_key == target_key else (
            (await self.verdict(target)).playable if tuned.playable else True
        )
        paired = await self.paired_scores(source, target)
        before, afters = paired.target_before, paired.target_after
        estimate = runs_transfer_value(
            paired.source_before, paired.source_after, before, afters, level=setting.level,
            target_playable=target_playable,
        )
        interval = estimate.value
        mean_after = [statistics.fmean(column) for column in zip(*afters, strict=True)]
        record = TransferRecord(
            setting.sha256, source.name, source_text, target.name, target_text,
            None if interval is None else interval.value,
            None if interval is None else interval.low,
            None if interval is None else interval.high,
            estimate.target_before, estimate.target_after, estimate.reason,
            tuple(before), tuple(mean_after),
        )
        if self.store is not None:
            self.store.save_transfer(record)
        return record

    async def paired_scores(self, source: LoadedGame, target: LoadedGame) -> PairedScores:
        """What V_source(target) is computed from: per map, M's scores at both games, and per
        run r of the source (tuned on it once), F_source[M]'s scores at both games."""
        runs = [await self.run_verdict(source, r) for r in range(self.setting.runs)]
        source_before = list(runs[0].scores_before)
        source_after = [list(r.scores_after) for r in runs]
        if self.key(source) == self.key(target):
            return PairedScores(source_before, source_after, source_before, source_after)
        return PairedScores(source_before, source_after, await self.scores(
            self.setting.player, target
        ), [
            await self.scores(await self._tuned_player(source, run, r), target)
            for r, run in enumerate(runs)
        ])

    async def scores(self, player: str, game: LoadedGame) -> list[float]:
        """S_G per evaluation map of `player` (memoised; M's also read from stored rows)."""
        key = (player, self.key(game))
        if key not in self._scores:
            stored = self._stored_base_scores(key[1]) if player == self.setting.player else None
            if stored is None:
                self._progress(f"evaluating {player} at {game.name} on {self.setting.maps} maps")
                stored = await game_scores(
                    player, self.form(game), judge=self.judge, registry=self.registry,
                    maps=self.setting.maps, seed=self.setting.seed,
                    opponent=self.setting.opponent or self.setting.player,
                    show_code=self.setting.show_code,
                )
            self._scores[key] = stored
        return self._scores[key]

    def form(self, game: LoadedGame) -> LoadedGame:
        """`game`'s evaluation form (memoised by text): what is played and tuned on."""
        if game.source not in self._forms:
            self._forms[game.source] = evaluation_form(game)
        return self._forms[game.source]

    def key(self, game: LoadedGame) -> str:
        """What `game`'s runs (scores, tuned models) are keyed by: the sha256 of its
        evaluation form, the same for every spelling of one game."""
        return game_sha256(self.form(game).source)

    # --- internals ------------------------------------------------------------------------

    def _progress(self, message: str) -> None:
        self._report(redact(message))

    def _stored_verdict(self, sha: str, key: str) -> VerdictRecord | None:
        if self.store is None:
            return None
        return self.store.verdict(sha, key)

    def _stored_base_scores(self, key: str) -> list[float] | None:
        sha = self.setting.run_sha256(0)
        known = self._verdicts.get((sha, key)) or self._stored_verdict(sha, key)
        return list(known.scores_before) if known is not None else None

    def _model_dir(self, key: str, run: int) -> Path:
        return self.models_dir / self.setting.run_sha256(run)[:16] / key[:16]

    async def _tuned_player(self, game: LoadedGame, verdict: VerdictRecord, run: int) -> str:
        """F_G[M]'s spec for run `run`: the kept model, or (when its folder is gone) tuned
        again."""
        folder = Path(verdict.model_path) if verdict.model_path else None
        if folder is not None and (folder / RECORD_FILE).is_file():
            return _tuned_spec(self.setting.player, folder)
        self._progress(f"the tuned model of {game.name} (run {run}) is gone; fine-tuning again")
        return await self._finetune(game, self._model_dir(self.key(game), run), run)

    async def _finetune(self, game: LoadedGame, out: Path, run: int) -> str:
        if out.exists() and not (out / RECORD_FILE).is_file():
            shutil.rmtree(out)  # a run killed before it finished: start it again
        if (out / RECORD_FILE).is_file():
            return _tuned_spec(self.setting.player, out)
        setting = self.setting
        self._progress(
            f"fine-tuning {setting.player} on {game.name} (run {run + 1} of {setting.runs}, "
            f"{setting.finetuner}, {setting.budget_tokens} tokens)"
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        self.runs_tuned += 1
        result = await self._tuner.finetune(FineTuneRequest(
            setting.player, self.form(game).view, self.judge, setting.budget_tokens,
            setting.run_seed(run, self.key(game)), out, max_steps=setting.budget_steps,
            show_code=setting.show_code,
        ))
        warning = steps_warning(game.name, result.steps, result.tokens, setting.budget_tokens)
        if warning is not None:
            self.warnings.append(warning)
            self._progress(warning)
        return result.player

    async def _tune_and_measure(self, game: LoadedGame, key: str, run: int) -> VerdictRecord:
        setting = self.setting
        folder = self._model_dir(key, run)
        tuned = await self._finetune(game, folder, run)
        before = await self.scores(setting.player, game)
        after = await self.scores(tuned, game)
        measured = gain(before, after, level=setting.level)
        sha = setting.run_sha256(run)
        record = VerdictRecord(
            sha, setting.run_json(run), game.name, key, measured.before,
            measured.after, measured.gain.low, measured.gain.high, measured.playable,
            _tokens(folder), str(folder.resolve()), tuple(before), tuple(after),
        )
        if self.store is not None:
            self.store.save_verdict(record)
        return record


def _tuned_spec(player: str, folder: Path) -> str:
    """`hf:<folder>` with the base player's parameters (what reinforce returns)."""
    from arena.specs import Spec, parse_spec

    base = parse_spec(player)
    return Spec(base.name, str(folder.resolve()), dict(base.params)).canonical


def _tokens(folder: Path) -> int:
    try:
        return int(json.loads((folder / RECORD_FILE).read_text(encoding="utf-8"))["tokens"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0


def default_models_dir() -> Path:
    """Where tuned models are kept by default: the user data dir's `finetuned/`."""
    from platformdirs import user_data_dir

    from arena.storage.engine import APP_NAME

    return Path(user_data_dir(APP_NAME)) / "finetuned"


@asynccontextmanager
async def open_oracle(
    setting: TransferSetting, *, store: Store | None, registry: Registry,
    models_dir: Path | None = None, progress: Progress | None = None,
) -> AsyncIterator[FineTuneOracle]:
    """The real oracle for `setting`, with its judge loaded (and closed on exit); `registry`
    builds the fine-tuner, the players and the judge.

    Bad specs (player, fine-tuner, judge) and settings fail here, before any model loads."""
    setting.check()
    registry.check_spec("player", setting.player)
    if setting.opponent is not None:
        registry.check_spec("player", setting.opponent)
    registry.create_finetuner(setting.finetuner)
    judge = registry.create_judge(setting.judge)
    try:
        yield FineTuneOracle(
            setting, registry=registry, judge=judge, store=store,
            models_dir=models_dir or default_models_dir(), progress=progress,
        )
    finally:
        await judge.aclose()


__all__ = [
    "FineTuneOracle", "PairedScores", "TransferMatrix", "TransferSetting", "default_models_dir",
    "game_sha256", "loaded_from", "open_oracle",
]
