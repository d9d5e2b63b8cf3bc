"""The built-in judges, registered through the `arena_judges` hook like any plugin.

Factories import their judge module lazily so that listing plugins stays cheap (no torch).
Model-backed judges come wrapped in a `JudgePool` (batching, dedup, cache, off-loop
forward passes); `pool=0` in the spec returns the bare backend, and `pool_wait_ms`,
`pool_tokens`, `pool_cache` tune the pool.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from arena.hookspecs import hookimpl
from arena.plugin_types import JudgeEntry
from arena.protocols.judge import Judge
from arena.specs import Spec

POOL_PARAMS = ("pool", "pool_wait_ms", "pool_tokens", "pool_cache")
_POOL_DOC = "pool=0|1 pool_wait_ms=<ms> pool_tokens=<batch token budget> pool_cache=<entries>"


def _backend_spec(spec: Spec) -> Spec:
    return replace(spec, params={k: v for k, v in spec.params.items() if k not in POOL_PARAMS})


def _pool_settings(spec: Spec) -> tuple[bool, int, float, int]:
    """(pool, pool_tokens, pool_wait_ms, pool_cache) of a spec; `ConfigError` if malformed."""
    return (
        spec.bool_param("pool", True),
        spec.int_param("pool_tokens", 8192, minimum=1),
        spec.float_param("pool_wait_ms", 5.0),
        spec.int_param("pool_cache", 100_000, minimum=0),
    )


def _pooled(spec: Spec, build: Callable[[Spec], Judge]) -> Judge:
    """Build the backend from the spec without pool parameters, then wrap it."""
    pool, tokens, wait_ms, cache = _pool_settings(spec)
    backend = build(_backend_spec(spec))
    if not pool:
        return backend
    from judges.pool import JudgePool

    return JudgePool(backend, max_batch_tokens=tokens, max_wait_ms=wait_ms, cache_size=cache)


def _check_pooled(check_backend: Callable[[Spec], object]) -> Callable[[Spec], None]:
    """A spec check for a pooled judge: its pool parameters and its backend's, with
    nothing loaded or contacted."""

    def check(spec: Spec) -> None:
        _pool_settings(spec)
        check_backend(_backend_spec(spec))

    return check


def check_bundled(spec: Spec) -> None:
    from judges.bundled_judge import check_bundled_params

    check_bundled_params(spec.params)


def check_hf(spec: Spec) -> None:
    from judges.hf import check_hf_spec

    check_hf_spec(spec)


def check_remote(spec: Spec) -> None:
    from judges.remote_client import check_remote_spec

    check_remote_spec(spec)


def create_ngram(spec: Spec) -> Judge:
    """`ngram?order=N`: the offline character n-gram test judge (no pooling needed)."""
    from judges.ngram import create_ngram_judge

    return create_ngram_judge(spec.params)


def create_bundled(spec: Spec) -> Judge:
    """`bundled?device=cpu&dtype=float32`: the tiny GPT-2 trained by this project."""
    from judges.bundled_judge import create_bundled_judge

    return _pooled(spec, lambda s: create_bundled_judge(s.params))


def create_hf(spec: Spec) -> Judge:
    """`hf:<hub id or folder>?device=...&dtype=...`: any causal LM through transformers."""
    from judges.hf import create_hf_judge

    return _pooled(spec, create_hf_judge)


def create_remote(spec: Spec) -> Judge:
    """`remote:<url>?token_env=VAR&protocol=native|openai`: a judge served over HTTP."""
    from judges.remote_client import create_remote_judge

    return _pooled(spec, create_remote_judge)


@hookimpl
def arena_judges() -> list[JudgeEntry]:
    return [
        JudgeEntry(
            "ngram",
            create_ngram,
            "Offline character n-gram judge (no torch, no download; for tests).",
            "order=<1..10>",
            check=create_ngram,  # building it is instant and loads nothing
        ),
        JudgeEntry(
            "bundled",
            create_bundled,
            "The arena's tiny GPT-2 judge, trained offline and shipped with the package.",
            f"device=cpu dtype=float32 attn=<impl>; {_POOL_DOC}",
            check=_check_pooled(check_bundled),
        ),
        JudgeEntry(
            "hf",
            create_hf,
            "Any transformers causal LM by hub id or local folder (GPU, bf16, several devices).",
            "arg: hub id or folder; device=cpu|cuda:0,cuda:1 dtype=float32|bfloat16|float16|auto "
            f"attn=sdpa revision=<rev> trust_remote_code=0 max_batch_tokens=8192; {_POOL_DOC}",
            check=_check_pooled(check_hf),
        ),
        JudgeEntry(
            "remote",
            create_remote,
            "A judge served over HTTP: ours (`judges.remote_server`) or vLLM /v1/completions.",
            "arg: base URL; token_env=<VAR> protocol=native|openai model=<name> "
            f"bos_text=<text> timeout=<s> max_concurrency=<n>; {_POOL_DOC}",
            check=_check_pooled(check_remote),
        ),
    ]
