"""The model back ends of the `llm:<model>` meta-sampler (`arena.gamespace.sampling.llm_sampler`),
registered by the players plugin because they reuse the players' model code: litellm
calls with the litellm player's key handling, retries and redaction
(`arena.players.llm.player.complete`), and local transformers models loaded like the hf player's
(`arena.players.local.hf_player.load_model`).

Spec: ``llm:<model>?repairs=3&examples=2&temperature=0.8&max_tokens=2048`` where
``<model>`` is a litellm model id (``llm:openai/gpt-4o-mini``; an OpenAI-compatible server
with ``api_base=http://127.0.0.1:8000/v1``, and the litellm player's ``timeout``,
``retries``, ``api_key_env``, ... parameters) or ``hf:<hub id, folder or bundled>``
(``llm:hf:bundled?device=cpu``). The spec recorded in headers and generation.json is
redacted (`arena.redaction`); the API key itself is only ever read from the environment.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any, TypeVar

from arena.errors import ConfigError
from arena.gamespace.sampling.llm_sampler import (
    DEFAULT_EXAMPLES,
    DEFAULT_REPAIRS,
    MAX_EXAMPLES,
    MAX_REPAIRS,
    LLMSampler,
)
from arena.players.llm import player as llm_player
from arena.players.local import hf_player
from arena.protocols.chat import ChatReply
from arena.redaction import redact
from arena.spec_params import Param, SpecParams
from arena.specs import Spec

T = TypeVar("T")
HF_PREFIX = "hf:"
_LITELLM_ONLY = (
    "api_base", "timeout", "retries", "concurrency", "api_key_env", "backoff", "backoff_max"
)
_HF_ONLY = ("device",)
SPEC_PARAMS = SpecParams(
    arg="litellm model id (openai/gpt-4o-mini) or hf:<hub id, folder or bundled>",
    arg_required=True,
    params=(
        Param("repairs", "int", DEFAULT_REPAIRS, "repairs after a rejected game", minimum=0,
              maximum=MAX_REPAIRS),
        Param("examples", "int", DEFAULT_EXAMPLES, "library games shown besides the parent",
              minimum=0, maximum=MAX_EXAMPLES),
        Param("temperature", "float", 0.8, "sampling temperature", minimum=0.0),
        Param("max_tokens", "int", 2048, "tokens per reply", minimum=1),
        *(p for p in llm_player.SPEC_PARAMS.params if p.name in _LITELLM_ONLY),
        Param("device", "str", "cpu", "torch device (hf: models)"),
    ),
)


def run_blocking(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` to completion from blocking code: on a fresh event loop, in a
    worker thread when this thread already runs one."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


class LiteLLMChat:
    """A litellm model, called with the litellm player's settings and safeguards."""

    def __init__(self, settings: llm_player.LLMSettings, label: str) -> None:
        self.settings, self.label = settings, label

    @property
    def model(self) -> str:
        return self.settings.model

    def chat(self, messages: list[dict[str, str]], seed: int) -> ChatReply:
        done = run_blocking(llm_player.complete(
            self.settings, messages, seed, name=self.label, who="The llm sampler's model"
        ))
        return done  # the player's completion is a ChatReply


class HFChat:
    """A local transformers model, loaded (once per process) like the hf player's."""

    def __init__(self, settings: hf_player.HFSettings, label: str) -> None:
        self.settings, self.label = settings, label

    @property
    def model(self) -> str:
        return self.label

    def chat(self, messages: list[dict[str, str]], seed: int) -> ChatReply:
        loaded = hf_player.load_model(self.settings)
        torch, _ = hf_player.require_torch()
        context = hf_player.context_length(loaded.model.config)
        settings = self.settings
        if context is not None and settings.max_new_tokens > context // 2:
            settings = replace(settings, max_new_tokens=context // 2)  # room for the prompt
        with loaded.lock:
            torch.manual_seed(seed)
            made = hf_player.generate_text(
                loaded, settings, hf_player.chat_prompt(loaded, messages)
            )
        return ChatReply(made.text, made.prompt_tokens, made.new_tokens, None)


def _only(spec: Spec, names: tuple[str, ...], what: str) -> None:
    wrong = [name for name in names if name in spec.params]
    if wrong:
        raise ConfigError(
            f"Sampler spec '{redact(spec.raw)}': parameter '{wrong[0]}' applies to {what} "
            f"models only. Remove it, or name such a model."
        )


def create_llm_sampler(spec: Spec) -> LLMSampler:
    """Factory for `llm:<model>?...` (the registry has checked the declared parameters)."""
    model = spec.arg.strip()
    shown = redact(spec.raw)
    if not model or model == HF_PREFIX.rstrip(":"):
        raise ConfigError(
            f"Sampler spec '{shown}' names no model. Write llm:<model>, e.g. "
            "llm:openai/gpt-4o-mini, llm:openai/NAME?api_base=http://127.0.0.1:8000/v1 or "
            "llm:hf:bundled."
        )
    common = {"temperature": spec.params.get("temperature", "0.8")}
    max_tokens = spec.params.get("max_tokens", "2048")
    chat: LiteLLMChat | HFChat
    if model.startswith(HF_PREFIX):
        _only(spec, _LITELLM_ONLY, "litellm")
        device = spec.params.get("device", "cpu")
        params = {**common, "max_new_tokens": max_tokens, "device": device}
        sub = Spec("hf", model.removeprefix(HF_PREFIX), params, raw=shown)
        chat = HFChat(hf_player.parse_settings(sub), model)
    else:
        _only(spec, _HF_ONLY, "hf:")
        params = {**common, "max_tokens": max_tokens}
        params |= {k: v for k, v in spec.params.items() if k in _LITELLM_ONLY}
        sub = Spec("litellm", model, params, raw=shown)
        chat = LiteLLMChat(llm_player.parse_settings(sub, kind="Sampler"), shown)
    return LLMSampler(
        chat, spec=shown, repairs=spec.int_param("repairs", DEFAULT_REPAIRS),
        examples=spec.int_param("examples", DEFAULT_EXAMPLES),
    )
