"""`litellm:<model>` — a player backed by any model litellm reaches.

Spec: ``litellm:<model>?temperature=0.2&max_tokens=256&api_base=http://...&timeout=60
&retries=4&concurrency=4&cot=1&api_key_env=MY_KEY&backoff=1&backoff_max=30``.
``temperature=none`` and ``max_tokens=none`` send no such setting: the provider's default
applies (what the published Xent benchmark did; `arena import-benchmark` writes them).

- ``model`` is a litellm model id (``openai/gpt-4o-mini``, ``anthropic/...``; for an
  OpenAI-compatible server such as vLLM, Ollama or llama.cpp: ``openai/<served name>``
  with ``api_base``).
- The API key is read from the environment variable ``api_key_env`` at every call, never
  stored, logged, or put in errors. Without ``api_key_env`` litellm looks up its usual
  variables, except that an OpenAI-compatible model (``openai/``, ``hosted_vllm/``) with
  an ``api_base`` gets a placeholder key: ``OPENAI_API_KEY`` is never sent to a custom
  server unless ``api_key_env=OPENAI_API_KEY`` asks for it (local servers need no key).
- Each call has a ``timeout``; rate limits (429), server errors (5xx), timeouts, dropped
  connections and malformed bodies are retried up to ``retries`` times with exponential
  backoff and full jitter (``backoff`` doubling per attempt, capped at ``backoff_max``).
  Other errors (bad request, authentication, unknown model) fail at once.
- At most ``concurrency`` calls are in flight per endpoint (``api_base``, else the
  provider) across all players of the process; the first player of an endpoint sets it.
- A reply without move tags gets exactly one corrective follow-up message.
- ``cot=1`` asks for reasoning in ``<think>`` tags before the answer (discarded).
- ``prompt=xent-benchmark`` plays as the published Xent benchmark's player: its text each
  turn, its reading of the reply, and its rule for a provider that keeps failing (after the
  retries above): the match has no result (`NoResultError`) instead of a forfeit.
- Token and cost accounting: `LLMPlayer.last_usage` (the last move, all its calls) and
  `LLMPlayer.usage` (cumulative). Cost is `litellm.completion_cost` when litellm knows the
  model's price, else 0.

litellm is imported on the first move, never at import time, with its remote price-map
download disabled (``LITELLM_LOCAL_MODEL_COST_MAP``) and its debug output suppressed.
"""

from __future__ import annotations

import asyncio
import logging
import os
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import metadata
from types import ModuleType
from typing import Any

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_random_exponential,
)

from arena.errors import (
    ConfigError,
    MissingExtraError,
    NoResultError,
    PermanentPlayerError,
    PlayerError,
)
from arena.players.llm.prompting import (
    PROMPT_STYLES,
    XENT_BENCHMARK,
    PromptOptions,
    build_messages,
)
from arena.players.llm.reply_parsing import MissingMoveTags, parse_reply
from arena.players.llm.xent_benchmark_prompt import benchmark_move
from arena.plugins.plugin_types import PlayerContext
from arena.protocols.chat import ChatReply
from arena.protocols.player import MoveRequest
from arena.redaction import redact_secret
from arena.spec_params import Param, SpecParams, is_none
from arena.specs import Spec

log = logging.getLogger(__name__)

NOT_SENT = "not sent, the provider's default applies"
SPEC_PARAMS = SpecParams(
    arg="litellm model id, e.g. openai/gpt-4o-mini",
    params=(
        Param("temperature", "float", 0.2, "sampling temperature", minimum=0.0,
              none=NOT_SENT),
        Param("max_tokens", "int", 256, "tokens per answer", minimum=1, none=NOT_SENT),
        Param("api_base", "str", help="OpenAI-compatible server URL (vLLM, Ollama, ...)"),
        Param("timeout", "float", 60.0, "seconds per request (> 0)"),
        Param("retries", "int", 4, "retries of a failed request", minimum=0),
        Param("concurrency", "int", 4, "requests in flight per endpoint", minimum=1),
        Param("cot", "bool", False, "reason in <think> tags before the answer"),
        Param("api_key_env", "str", help="environment variable holding the API key"),
        Param("backoff", "float", 1.0, "first retry delay in seconds", minimum=0.0),
        Param("backoff_max", "float", 30.0, "longest retry delay in seconds", minimum=0.0),
        Param("prompt", "str", "arena", "prompt style: arena, or xent-benchmark (the "
              "published Xent benchmark's text, its six games)", choices=PROMPT_STYLES),
    ),
)
PARAMS = SPEC_PARAMS.names
BAD_LITELLM_VERSIONS = frozenset({"1.82.7", "1.82.8"})
_PERMANENT_STATUS = frozenset({400, 401, 402, 403, 404, 422})
_OPENAI_COMPATIBLE = ("openai/", "hosted_vllm/", "text-completion-openai/")
_PLACEHOLDER_KEY = "no-key"


@dataclass(frozen=True)
class Usage:
    """Tokens and cost of one or more model calls."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cost_usd + other.cost_usd,
            self.calls + other.calls,
        )

    def as_dict(self) -> dict[str, float | int]:
        """A JSON-ready form for events and storage."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost_usd,
            "calls": self.calls,
        }


@dataclass(frozen=True)
class LLMSettings:
    """The parsed spec of a litellm player."""

    model: str
    temperature: float | None = 0.2  # None: not sent (the provider's default)
    max_tokens: int | None = 256  # None: not sent (no limit but the provider's)
    api_base: str | None = None
    timeout: float = 60.0
    retries: int = 4
    concurrency: int = 4
    cot: bool = False
    api_key_env: str | None = None
    backoff: float = 1.0
    backoff_max: float = 30.0

    @property
    def endpoint(self) -> str:
        """What the concurrency limit is shared by: the server, else the provider."""
        if self.api_base:
            return self.api_base.rstrip("/")
        return self.model.split("/", 1)[0] if "/" in self.model else self.model


def parse_settings(spec: Spec, kind: str = "Player") -> LLMSettings:
    """Settings from a `litellm:<model>?...` spec; `ConfigError` when malformed. `kind`
    names what the spec builds in messages (the `llm` sampler passes "Sampler")."""
    spec.expect_params(PARAMS, kind.lower())
    if not spec.arg.strip():
        raise ConfigError(
            f"{kind} spec '{spec.raw}' names no model. Write litellm:<model>, e.g. "
            "'litellm:openai/gpt-4o-mini' or 'litellm:openai/my-model?api_base="
            "http://127.0.0.1:8000/v1' for a local OpenAI-compatible server."
        )
    key_env = spec.params.get("api_key_env") or None
    if key_env is not None and key_env not in os.environ:
        raise ConfigError(
            f"{kind} '{spec.raw}' reads its API key from the environment variable "
            f"{key_env}, which is not set. Export it (export {key_env}=...) or drop "
            "api_key_env to use litellm's usual variables."
        )
    timeout = spec.float_param("timeout", 60.0)
    backoff, backoff_max = spec.float_param("backoff", 1.0), spec.float_param("backoff_max", 30.0)
    if timeout <= 0 or backoff < 0 or backoff_max < 0:
        raise ConfigError(
            f"{kind} '{spec.raw}': timeout must be > 0 and backoff, backoff_max >= 0 "
            f"(got timeout={timeout}, backoff={backoff}, backoff_max={backoff_max})."
        )
    return LLMSettings(
        model=spec.arg.strip(),
        temperature=None if _is_none(spec, "temperature") else spec.float_param(
            "temperature", 0.2),
        max_tokens=None if _is_none(spec, "max_tokens") else spec.int_param(
            "max_tokens", 256, minimum=1),
        api_base=spec.params.get("api_base") or None,
        timeout=timeout,
        retries=spec.int_param("retries", 4, minimum=0),
        concurrency=spec.int_param("concurrency", 4, minimum=1),
        cot=spec.bool_param("cot", False),
        api_key_env=key_env,
        backoff=backoff,
        backoff_max=backoff_max,
    )


def _is_none(spec: Spec, key: str) -> bool:
    text = spec.params.get(key)
    return text is not None and is_none(text)


def import_litellm() -> ModuleType:
    """Import litellm once, offline and quiet; `ConfigError` if missing or a bad release."""
    # Without this litellm downloads its price map from GitHub at import time.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        version = metadata.version("litellm")
    except metadata.PackageNotFoundError:
        raise MissingExtraError(
            "The litellm player", "litellm", "pip install 'xent-arena[llm]'"
        ) from None
    if version in BAD_LITELLM_VERSIONS:
        raise ConfigError(
            f"litellm {version} is a known-bad release. Install another version: "
            "pip install 'litellm>=1.60,<2,!=1.82.7,!=1.82.8'."
        )
    import litellm

    litellm.suppress_debug_info = True
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
        logger = logging.getLogger(name)
        if logger.level == logging.NOTSET:  # keep an explicit LITELLM_LOG setting
            logger.setLevel(logging.WARNING)
    return litellm


# One semaphore per endpoint and event loop (a semaphore cannot cross loops).
_LIMITS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary()
)


def endpoint_semaphore(endpoint: str, limit: int) -> asyncio.Semaphore:
    """The process-wide semaphore of `endpoint` on the running loop (created with `limit`)."""
    per_loop = _LIMITS.setdefault(asyncio.get_running_loop(), {})
    if endpoint not in per_loop:
        per_loop[endpoint] = asyncio.Semaphore(limit)
    return per_loop[endpoint]


def retry_after(error: BaseException) -> float | None:
    """Seconds the server asked us to wait (a `Retry-After` header in seconds), if any."""
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    value = headers.get("retry-after") if headers is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except (TypeError, ValueError):
        return None  # an HTTP date: fall back to our own backoff


def backoff_wait(base: float, cap: float) -> Callable[[RetryCallState], float]:
    """Tenacity wait: exponential backoff with full jitter (`base` doubling per attempt,
    capped at `cap`), so many players hitting one rate limit spread out; never shorter
    than the server's `Retry-After`."""
    jitter = wait_random_exponential(multiplier=base, max=cap)

    def wait(state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome is not None else None
        asked = retry_after(error) if error is not None else None
        return max(jitter(state), asked or 0.0)

    return wait


def _status(error: BaseException) -> int | None:
    status = getattr(error, "status_code", None)
    return status if isinstance(status, int) else None


def is_retryable(error: BaseException) -> bool:
    """Whether a failed call is worth retrying: anything but a permanent client error."""
    if isinstance(error, TimeoutError):
        return True
    status = _status(error)
    return status is None or status not in _PERMANENT_STATUS


class LLMPlayer:
    """A player that asks an LLM through litellm; see the module docstring."""

    def __init__(self, settings: LLMSettings, *, name: str, options: PromptOptions) -> None:
        self.settings = settings
        self._name = name
        self._options = options
        self.last_usage = Usage()
        self.usage = Usage()

    @property
    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"LLMPlayer({self._name!r})"

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        litellm = import_litellm()
        messages: list[dict[str, str]] = build_messages(request, self._options)
        usage = Usage()
        try:
            if self._options.style == XENT_BENCHMARK:  # the benchmark's player throughout
                try:
                    reply, used = await self._complete(litellm, messages, request.seed)
                except PlayerError as error:  # its API error ends the game-map, no result
                    raise NoResultError(str(error)) from None
                usage += used
                return benchmark_move(reply, request.registers)
            reply, used = await self._complete(litellm, messages, request.seed)
            usage += used
            parsed = parse_reply(reply, request.registers)
            if isinstance(parsed, MissingMoveTags):
                log.info("%s: reply had no move tags; sending one correction", self._name)
                messages += [
                    {"role": "assistant", "content": reply},
                    {"role": "user", "content": parsed.correction()},
                ]
                reply, used = await self._complete(litellm, messages, request.seed)
                usage += used
                parsed = parse_reply(reply, request.registers)
            if isinstance(parsed, MissingMoveTags):
                raise PlayerError(
                    f"LLM player '{self._name}' gave no usable move after a corrective "
                    f"retry: {parsed.describe()}. Try a stronger model or cot=0."
                )
            return parsed
        finally:
            self.last_usage = usage
            self.usage += usage

    async def _complete(
        self, litellm: ModuleType, messages: list[dict[str, str]], seed: int
    ) -> tuple[str, Usage]:
        """One reply text, retrying transient failures with backoff (tenacity)."""
        done = await complete(self.settings, messages, seed, name=self._name, litellm=litellm)
        return done.text, Usage(
            done.prompt_tokens, done.completion_tokens, done.cost_usd or 0.0, calls=1
        )


def api_key(s: LLMSettings) -> str | None:
    """The key to send: from `api_key_env`, a placeholder for a custom OpenAI-compatible
    server, else None (litellm's own environment lookup)."""
    if s.api_key_env is not None:
        return os.environ.get(s.api_key_env)
    if s.api_base and s.model.startswith(_OPENAI_COMPATIBLE):
        return _PLACEHOLDER_KEY  # never forward OPENAI_API_KEY to a custom server
    return None


async def complete(
    s: LLMSettings, messages: list[dict[str, str]], seed: int, *, name: str,
    litellm: ModuleType | None = None, who: str = "LLM player",
) -> ChatReply:
    """One chat completion through litellm: the key handling, timeout, per-endpoint
    concurrency and retries of the litellm player, shared by everything that calls a model
    (the player, the `llm` meta-sampler). Errors and the reply are redacted of the key;
    `PermanentPlayerError` when retrying cannot help, else `PlayerError` after the retries.
    `who` and `name` label log lines and errors."""
    litellm = litellm if litellm is not None else import_litellm()
    key = api_key(s)
    retrying = AsyncRetrying(
        stop=stop_after_attempt(s.retries + 1),
        wait=backoff_wait(s.backoff, s.backoff_max),
        retry=retry_if_exception(is_retryable),
        before_sleep=lambda state: log.info(
            "%s: %s; retrying in %.2f s", name,
            redact_secret(repr(state.outcome.exception() if state.outcome else None), key),
            state.upcoming_sleep,
        ),
        reraise=True,
    )
    attempts = 0
    try:
        async for attempt in retrying:
            with attempt:
                attempts += 1
                key = api_key(s)
                async with endpoint_semaphore(s.endpoint, s.concurrency):
                    response = await asyncio.wait_for(
                        litellm.acompletion(**_call_args(s, messages, seed, key)),
                        timeout=s.timeout,
                    )
                return _completion_of(litellm, response, key)
    except asyncio.CancelledError:
        raise
    except Exception as error:
        reason = redact_secret(f"{type(error).__name__}: {error}", key)
        if not is_retryable(error):
            raise PermanentPlayerError(
                f"{who} '{name}' failed and will not retry: {reason}"
            ) from None  # the original may carry request details
        raise PlayerError(
            f"{who} '{name}' failed after {attempts} attempts; last error: {reason}"
        ) from None
    raise AssertionError("unreachable")  # tenacity returns or raises


def _call_args(s: LLMSettings, messages: list[dict[str, str]], seed: int, key: str | None) -> Any:
    args: dict[str, Any] = {
        "model": s.model,
        "messages": messages,
        "timeout": s.timeout,
        "seed": seed % 2**31,  # providers accept 32-bit seeds
        "drop_params": True,  # providers without `seed` just ignore it
        "num_retries": 0,  # retries are ours, with our backoff
        "max_retries": 0,
    }
    # A setting of None is left out of the call: the provider's default applies (litellm
    # would also drop a None, but what is not passed cannot be sent).
    if s.temperature is not None:
        args["temperature"] = s.temperature
    if s.max_tokens is not None:
        args["max_tokens"] = s.max_tokens
    if s.api_base:
        args["api_base"] = s.api_base
    if key is not None:
        args["api_key"] = key
    return args


def _reply_text(response: Any) -> str:
    try:
        content = response.choices[0].message.content
    except (AttributeError, IndexError, TypeError):
        raise ValueError("the response has no choices[0].message.content") from None
    return content if isinstance(content, str) else ""


def _completion_of(litellm: ModuleType, response: Any, key: str | None) -> ChatReply:
    usage = getattr(response, "usage", None)
    try:
        cost: float | None = float(litellm.completion_cost(completion_response=response))
    except Exception:  # the price of a local or unknown model is not known
        cost = None
    return ChatReply(
        text=redact_secret(_reply_text(response), key),  # a server that echoes the key
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        cost_usd=cost,
    )


def create_llm_player(spec: Spec, ctx: PlayerContext) -> LLMPlayer:
    """Factory for `litellm:<model>?...` (see the module docstring)."""
    settings = parse_settings(spec)
    style = spec.params.get("prompt") or "arena"
    return LLMPlayer(settings, name=spec.raw, options=PromptOptions(cot=settings.cot, style=style))
