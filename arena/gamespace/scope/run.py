"""Setting up a scope growth (`arena scope grow`): the parameters stored with the scope,
the oracle (`finetune`: the real one of `arena.gamespace.transfer.measure`, imported lazily; or
`table:FILE`, a known matrix), the sampler and the filter pipeline, then Algorithm 1
(`arena.gamespace.scope.growth`).

A scope's name and parameters go together: a rerun with the same parameters continues the
stored growth, one with other parameters is refused (the archive would mix two runs).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.errors import ConfigError
from arena.gamespace.sampling.pipeline import FilterPipeline, PipelineConfig
from arena.gamespace.scope.growth import GrowthParams, GrowthResult, Progress, ScopeGrowth
from arena.gamespace.transfer.oracle import GameText, TransferOracle
from arena.gamespace.transfer.table_oracle import TableOracle
from arena.lang.game_file import game_sha256
from arena.match_setup import LoadedGame
from arena.plugins.registry import Registry
from arena.redaction import redact
from arena.specs import NAME_RE
from arena.storage import Store, scopes

if TYPE_CHECKING:  # the real oracle's module is imported only when it is used
    from arena.gamespace.transfer.measure import TransferSetting

FINETUNE = "finetune"
TABLE = "table:"


@dataclass(frozen=True)
class GrowRequest:
    """Everything `arena scope grow` was given."""

    name: str
    games: tuple[LoadedGame, ...]
    sampler: str
    params: GrowthParams
    judge: str = "bundled"
    base: str | None = None  # None: the few-shot rule's own (search for trend)
    oracle: str = FINETUNE
    setting: TransferSetting | None = None  # for the finetune oracle
    models_dir: Path | None = None
    fewshot: str = "trend"  # the filter's few-shot rule (`PipelineConfig.for_rule`)


def check_name(name: str) -> str:
    if not NAME_RE.fullmatch(name):
        raise ConfigError(
            f"The scope name {name!r} has characters other than letters, digits, '_', '.' "
            "and '-'; give e.g. --name my_scope."
        )
    return name


def check_params(params: GrowthParams) -> None:
    """`ConfigError` for thresholds and sizes Algorithm 1 cannot use."""
    for label, value in (("--alpha1", params.alpha1), ("--alpha2", params.alpha2)):
        if not 0 < value <= 1:
            raise ConfigError(
                f"{label} must lie in (0, 1] (Algorithm 1 takes alpha > 0, and gamma is "
                f"compared with 1 - alpha2), got {value}. Give e.g. {label} 0.2."
            )


def oracle_setting_sha256(request: GrowRequest) -> str:
    """The key of the values the scope's decisions rest on: the fine-tuning setting's
    sha256, or the table file's."""
    if request.oracle == FINETUNE:
        assert request.setting is not None
        return request.setting.sha256
    return hashlib.sha256(_table_path(request.oracle).read_bytes()).hexdigest()


def _table_path(oracle: str) -> Path:
    return Path(oracle[len(TABLE):]).expanduser()


def check_oracle(oracle: str, setting: object | None) -> None:
    if oracle == FINETUNE:
        if setting is None:
            raise ConfigError(
                "The finetune oracle needs the model to fine-tune: give --player (e.g. "
                "--player hf:bundled), or choose --oracle table:FILE.json."
            )
        return
    if oracle.startswith(TABLE) and len(oracle) > len(TABLE):
        TableOracle.from_file(_table_path(oracle))  # a bad file fails before any work
        return
    raise ConfigError(
        f"Unknown oracle {oracle!r}: choose 'finetune' (fine-tune and play, the default) or "
        "'table:FILE.json' (a known transfer matrix)."
    )


def params_doc(request: GrowRequest) -> dict[str, Any]:
    """What a scope's decisions depend on (stored; compared on a rerun)."""
    setting = request.setting.public() if request.setting is not None else None
    return {
        **asdict(request.params), "sampler": redact(request.sampler), "judge": request.judge,
        "base": _config(request).base, "fewshot": request.fewshot, "oracle": request.oracle,
        "setting": setting,
        "from": [game_sha256(g.source) for g in request.games],
    }


def open_scope(store: Store, request: GrowRequest) -> scopes.ScopeRecord:
    """The stored scope of `request` (created on the first run); a rerun must match."""
    doc = params_doc(request)
    text = json.dumps(doc, sort_keys=True)
    found = store.scope(request.name)
    if found is None:
        return store.create_scope(request.name, text, oracle_setting_sha256(request))
    stored = json.loads(found.params_json)
    differ = sorted(k for k in set(doc) | set(stored) if doc.get(k) != stored.get(k))
    if differ or found.setting_sha256 != oracle_setting_sha256(request):
        what = ", ".join(differ) or "the transfer table's content"
        raise ConfigError(
            f"The scope {request.name} was grown with other parameters ({what} differ): "
            "rerun with the same ones to continue it, or give another --name."
        )
    return found


def _config(request: GrowRequest) -> PipelineConfig:
    """The filter pipeline's config: the request's few-shot rule at its own sizes."""
    return PipelineConfig.for_rule(request.fewshot, seed=request.params.seed, base=request.base)


def _game_text(game: LoadedGame) -> GameText:
    return GameText(game.name, game.version, Path(game.filename).name, game.source)


async def grow(
    request: GrowRequest, store: Store, registry: Registry, progress: Progress | None = None
) -> GrowthResult:
    """Grow (or continue growing) the scope of `request` into `store`."""
    scope = open_scope(store, request)
    sampler = registry.create_sampler(request.sampler)
    judge = registry.create_judge(request.judge)
    try:
        pipeline = FilterPipeline(registry, judge, _config(request))
        initial = [_game_text(g) for g in request.games]
        if request.oracle != FINETUNE:
            oracle: TransferOracle = TableOracle.from_file(_table_path(request.oracle))
            return await _run(request, scope, sampler, pipeline, oracle, store, initial,
                              progress)
        from arena.gamespace.transfer.measure import open_oracle

        assert request.setting is not None
        async with open_oracle(
            request.setting, store=store, registry=registry, models_dir=request.models_dir,
            progress=progress,
        ) as real:
            return await _run(request, scope, sampler, pipeline, real, store, initial,
                              progress)
    finally:
        await judge.aclose()


async def _run(
    request: GrowRequest, scope: scopes.ScopeRecord, sampler: Any, pipeline: FilterPipeline,
    oracle: TransferOracle, store: Store, initial: Sequence[GameText],
    progress: Progress | None,
) -> GrowthResult:
    growth = ScopeGrowth(
        request.params, sampler=sampler, pipeline=pipeline, oracle=oracle, store=store,
        scope_id=scope.id, progress=progress,
    )
    try:
        return await growth.grow(initial)
    except BaseException:
        now = store.scope(scope.name) or scope
        store.set_scope_progress(scope.id, status=scopes.INTERRUPTED, round=now.round,
                                 state=now.state)
        raise


__all__ = ["FINETUNE", "GrowRequest", "check_name", "check_oracle", "check_params", "grow",
           "open_scope", "params_doc"]
