"""The built-in judges, registered through the `arena_judges` hook like any plugin.

Factories import their judge module lazily so that listing plugins stays cheap (no torch).
Model-backed judges come wrapped in a `JudgePool` (batching, dedup, cache, off-loop
forward passes); `pool=0` in the spec returns the bare backend, and `pool_wait_ms`,
`pool_tokens`, `pool_cache` tune the pool.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from arena.judges.hf.load import DTYPES
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_types import JudgeEntry
from arena.protocols.judge import Judge
from arena.spec_params import Param, SpecParams
from arena.specs import Spec

# Declared here, not in the judge modules, so that listing plugins imports neither torch
# nor aiohttp; the judge modules still refuse unknown parameters when called directly.
_POOL = (
    Param("pool", "bool", True, "batch, dedup and cache requests (0 = the bare backend)"),
    Param("pool_wait_ms", "float", 5.0, "how long a batch waits to fill", minimum=0.0),
    Param("pool_tokens", "int", 8192, "token budget of a batch", minimum=1),
    Param("pool_cache", "int", 100_000, "cached scores, 0 = none", minimum=0),
)
POOL_PARAMS = tuple(param.name for param in _POOL)
_MODEL = (
    Param("device", "str", "cpu", "torch device; comma-separated for one replica each"),
    Param("dtype", "str", "float32", "weights' precision", choices=tuple(DTYPES)),
    Param("attn", "str", help="attention implementation, e.g. sdpa or eager"),
)
NGRAM_PARAMS = SpecParams(params=(Param("order", "int", 5, "n-gram order, 1..10",
                                        minimum=1, maximum=10),))
BUNDLED_PARAMS = SpecParams(params=(*_MODEL, *_POOL))
HF_PARAMS = SpecParams(
    arg="hub id or model folder",
    params=(
        Param("device", "str", "auto", "torch device (auto: cuda, then mps, else cpu); "
              "comma-separated for one replica each"),
        *_MODEL[1:],
        Param("tf32", "bool", True, "TF32 matmuls for float32 on CUDA"),
        Param("compile", "bool", False, "torch.compile the model's body"),
        Param("revision", "str", help="hub branch, tag or commit"),
        Param("trust_remote_code", "bool", False, "run the model repository's own code"),
        Param("max_batch_tokens", "int", 8192, "padded tokens per forward pass", minimum=1),
        Param("packing", "bool", True, "pack several requests per row when supported"),
        *_POOL,
    ),
)
REMOTE_PARAMS = SpecParams(
    arg="server base URL",
    params=(
        Param("token_env", "str", help="environment variable holding the server's token"),
        Param("protocol", "str", "native", "our server or vLLM", choices=("native", "openai")),
        Param("timeout", "float", 120.0, "seconds per request"),
        Param("max_concurrency", "int", 8, "requests in flight", minimum=1),
        Param("batch_size", "int", 256, "requests per HTTP call", minimum=1),
        Param("model", "str", help="model name (openai protocol)"),
        Param("bos_text", "str", help="text standing for the beginning of a sequence"),
        *_POOL,
    ),
)


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
    from arena.judges.pool.judge_pool import JudgePool

    return JudgePool(backend, max_batch_tokens=tokens, max_wait_ms=wait_ms, cache_size=cache)


def _check_pooled(check_backend: Callable[[Spec], object]) -> Callable[[Spec], None]:
    """A spec check for a pooled judge: its pool parameters and its backend's, with
    nothing loaded or contacted."""

    def check(spec: Spec) -> None:
        _pool_settings(spec)
        check_backend(_backend_spec(spec))

    return check


def check_bundled(spec: Spec) -> None:
    from arena.judges.hf.bundled_judge import check_bundled_params

    check_bundled_params(spec.params)


def check_hf(spec: Spec) -> None:
    from arena.judges.hf.judge import check_hf_spec

    check_hf_spec(spec)


def check_remote(spec: Spec) -> None:
    from arena.judges.remote.client import check_remote_spec

    check_remote_spec(spec)


def create_ngram(spec: Spec) -> Judge:
    """`ngram?order=N`: the offline character n-gram test judge (no pooling needed)."""
    from arena.judges.ngram import create_ngram_judge

    return create_ngram_judge(spec.params)


def create_bundled(spec: Spec) -> Judge:
    """`bundled?device=cpu&dtype=float32`: the tiny GPT-2 trained by this project."""
    from arena.judges.hf.bundled_judge import create_bundled_judge

    return _pooled(spec, lambda s: create_bundled_judge(s.params))


def create_hf(spec: Spec) -> Judge:
    """`hf:<hub id or folder>?device=...&dtype=...`: any causal LM through transformers."""
    from arena.judges.hf.judge import create_hf_judge

    return _pooled(spec, create_hf_judge)


def create_remote(spec: Spec) -> Judge:
    """`remote:<url>?token_env=VAR&protocol=native|openai`: a judge served over HTTP."""
    from arena.judges.remote.client import create_remote_judge

    return _pooled(spec, create_remote_judge)


@hookimpl
def arena_judges() -> list[JudgeEntry]:
    return [
        JudgeEntry(
            "ngram",
            create_ngram,
            "Offline character n-gram judge (no torch, no download; for tests).",
            NGRAM_PARAMS,
            check=create_ngram,  # building it is instant and loads nothing
        ),
        JudgeEntry(
            "bundled",
            create_bundled,
            "The arena's tiny GPT-2 judge, trained offline and shipped with the package.",
            BUNDLED_PARAMS,
            check=_check_pooled(check_bundled),
        ),
        JudgeEntry(
            "hf",
            create_hf,
            "Any transformers causal LM by hub id or local folder (GPU, bf16, several devices).",
            HF_PARAMS,
            check=_check_pooled(check_hf),
        ),
        JudgeEntry(
            "remote",
            create_remote,
            "A judge served over HTTP: ours (`arena.judges.remote.server`) or vLLM"
            " /v1/completions.",
            REMOTE_PARAMS,
            check=_check_pooled(check_remote),
        ),
    ]
