"""`hf:<hub id or local path>` — a local transformers causal LM that generates moves.

Spec: ``hf:<model>?device=auto&max_new_tokens=32&temperature=0.8``.

- The model and tokenizer are loaded with ``from_pretrained`` on the first move (torch and
  transformers are imported only then) and shared by every player of the process that
  names the same model and device.
- A tokenizer with a chat template gets the chat messages of `arena.players.llm.prompting`; the
  reply
  is parsed like an API model's (`arena.players.llm.reply_parsing`).
- Without a chat template the model sees the same prompt as plain text, ending in the
  opening tag ``<move register="r">``; registers are generated one after another, each
  continuation read up to ``</move>``.
- Fallback for small base models that cannot follow the tag format: a register with no
  tag in the reply gets the *first non-empty line* of the raw continuation (tags and
  reasoning removed), or "" when there is none. So the player always produces a string.
- Prompts longer than the model's context keep their end (the task and the answer cue).
- Control characters and undecodable bytes (U+FFFD) are removed from generated text.
- Generation runs in a worker thread (`asyncio.to_thread`), seeded from the request's seed
  and the seat's seed, one generation per model at a time so seeding is reproducible.
  ``temperature=0`` is greedy decoding; otherwise tokens are drawn as `generate` samples
  (temperature, then the model's top-k / top-p) but on the host
  (`arena.players.local.host_sampling`), so a seed gives the same moves on CPU and GPU.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from arena.errors import ConfigError, MissingExtraError, PlayerError
from arena.players.llm.prompting import PromptOptions, build_messages, build_prompt_text
from arena.players.llm.reply_parsing import MissingMoveTags, parse_reply, strip_thinking
from arena.players.local.host_sampling import host_draw
from arena.plugins.plugin_types import PlayerContext
from arena.protocols.player import MoveRequest
from arena.spec_params import Param, SpecParams
from arena.specs import Spec

SPEC_PARAMS = SpecParams(
    arg="hub id, local folder, or 'bundled' (the arena's tiny model)",
    params=(
        Param("device", "str", "auto", "torch device (auto: cuda, then mps, else cpu)"),
        Param("max_new_tokens", "int", 32, "tokens generated per move", minimum=1),
        Param("temperature", "float", 0.8, "sampling temperature, 0 = greedy", minimum=0.0),
    ),
)
PARAMS = SPEC_PARAMS.names
log = logging.getLogger(__name__)
_ANY_TAG = re.compile(r"</?move\b[^>]*>", re.IGNORECASE)
_CLOSE = re.compile(r"</move\s*>", re.IGNORECASE)


@dataclass(frozen=True)
class HFSettings:
    """The parsed spec of an `hf` player."""

    model: str
    device: str = "auto"
    max_new_tokens: int = 32
    temperature: float = 0.8


@dataclass
class _Loaded:
    model: Any
    tokenizer: Any
    lock: threading.Lock
    device: str = "cpu"


_CACHE: dict[tuple[str, str], _Loaded] = {}
_CACHE_LOCK = threading.Lock()


BUNDLED_ALIAS = "bundled"


def bundled_model_folder() -> Path:
    """The folder of the arena's bundled tiny model (`hf:bundled`).

    It ships as package data of the `judges` distribution part; it is located as a
    resource, not imported, so that players keep depending on `arena` only.
    """
    return Path(str(resources.files("arena.judges.hf").joinpath("bundled")))


def parse_settings(spec: Spec) -> HFSettings:
    """Settings from an `hf:<model>?...` spec; `ConfigError` when malformed."""
    spec.expect_params(PARAMS, "player")
    model = spec.arg.strip()
    if model == BUNDLED_ALIAS:
        model = str(bundled_model_folder())
    if not model:
        raise ConfigError(
            f"Player spec '{spec.raw}' names no model. Write hf:<hub id or folder>, e.g. "
            "'hf:gpt2' or 'hf:/path/to/model?device=cpu'."
        )
    path = Path(model).expanduser()
    if (path.is_absolute() or model.startswith((".", "~"))) and not path.is_dir():
        raise ConfigError(
            f"Player '{spec.raw}': there is no model folder at {path}. Give a folder "
            "written by save_pretrained, or a Hugging Face hub id such as 'gpt2'."
        )
    temperature = spec.float_param("temperature", 0.8)
    if temperature < 0:
        raise ConfigError(f"Player '{spec.raw}': temperature must be >= 0, got {temperature}.")
    return HFSettings(
        model=model,
        device=spec.params.get("device", "auto").strip() or "auto",
        max_new_tokens=spec.int_param("max_new_tokens", 32, minimum=1),
        temperature=temperature,
    )


def require_torch() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError:
        raise MissingExtraError(
            "The hf player", "torch and transformers", "pip install 'xent-arena[torch]'"
        ) from None
    return torch, transformers


def read_model(settings: HFSettings) -> _Loaded:
    """A fresh copy of the model and tokenizer for `settings`, in inference mode (no
    dropout); `PlayerError` when they cannot be loaded."""
    _torch, transformers = require_torch()
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(settings.model)
        model = transformers.AutoModelForCausalLM.from_pretrained(settings.model)
    except OSError as error:
        raise PlayerError(
            f"Cannot load model '{settings.model}' for the hf player: {error}. "
            "Check the hub id or folder (and network access for hub ids)."
        ) from None
    device = resolve_device(settings.device)
    model.to(device).train(False)
    log.info("hf player %s on %s (device=%s)", settings.model, device, settings.device)
    return _Loaded(model, tokenizer, threading.Lock(), device)


def resolve_device(name: str) -> str:
    """`auto` -> cuda when present, then mps, else cpu; other names as given."""
    if name.lower() != "auto":
        return name
    torch, _ = require_torch()
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    return "mps" if mps is not None and mps.is_available() else "cpu"


def load_model(settings: HFSettings) -> _Loaded:
    """The model and tokenizer for `settings`, loaded once per (model, device) and shared."""
    key = (settings.model, settings.device)
    with _CACHE_LOCK:
        if key not in _CACHE:
            _CACHE[key] = read_model(settings)
        return _CACHE[key]


def clean(text: str) -> str:
    """`text` without control characters (other than newline and tab) and without the
    replacement character that half-decoded bytes turn into."""
    return "".join(
        ch for ch in text if ch in "\n\t" or (ch != "\ufffd" and unicodedata.category(ch) != "Cc")
    )


def first_line(text: str) -> str:
    """The first non-empty line of `text` without tags or reasoning ("" if none)."""
    cleaned = _ANY_TAG.sub("\n", strip_thinking(clean(text)))
    return next((line.strip() for line in cleaned.splitlines() if line.strip()), "")


class HFPlayer:
    """A player generating moves with a local causal LM; see the module docstring."""

    def __init__(self, settings: HFSettings, *, name: str, seed: int = 0) -> None:
        self.settings = settings
        self._name = name
        self._seed = seed
        self._options = PromptOptions()

    @property
    def name(self) -> str:
        return self._name

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        loaded = await asyncio.to_thread(load_model, self.settings)
        return await asyncio.to_thread(self._moves, loaded, request)

    def _moves(self, loaded: _Loaded, request: MoveRequest) -> dict[str, str]:
        seed = (request.seed + self._seed) % 2**63
        with loaded.lock:
            torch, _ = require_torch()
            torch.manual_seed(seed)
            if getattr(loaded.tokenizer, "chat_template", None):
                return self._chat_moves(loaded, request)
            return self._completion_moves(loaded, request)

    def _chat_moves(self, loaded: _Loaded, request: MoveRequest) -> dict[str, str]:
        prompt = chat_prompt(loaded, build_messages(request, self._options))
        reply = self._generate(loaded, prompt)
        parsed = parse_reply(reply, request.registers)
        if isinstance(parsed, MissingMoveTags):
            fallback = first_line(reply)
            return {r: parsed.found.get(r, fallback) for r in request.registers}
        return parsed

    def _completion_moves(self, loaded: _Loaded, request: MoveRequest) -> dict[str, str]:
        prompt = build_prompt_text(request, self._options)
        moves: dict[str, str] = {}
        for register in request.registers:
            prompt += f'<move register="{register}">'
            continuation = self._generate(loaded, prompt)
            closed = _CLOSE.search(continuation)
            moves[register] = (
                continuation[: closed.start()].strip() if closed else first_line(continuation)
            )
            prompt += f"{moves[register]}</move>\n"
        return moves

    def _generate(self, loaded: _Loaded, prompt: str) -> str:
        _, new = self._generate_ids(loaded, prompt)
        return clean(str(loaded.tokenizer.decode(new, skip_special_tokens=True)))

    def _generate_ids(self, loaded: _Loaded, prompt: str) -> tuple[Any, Any]:
        """The prompt's token ids as the model saw them (1 x n, on the device) and the
        sampled continuation's ids (1-d): the fine-tuner learns from exactly these."""
        return generate_ids(loaded, self.settings, prompt)


@dataclass(frozen=True)
class Generated:
    """A continuation and its token counts."""

    text: str
    prompt_tokens: int
    new_tokens: int


def chat_prompt(loaded: _Loaded, messages: list[dict[str, str]]) -> str:
    """The prompt text for chat `messages`: the tokenizer's chat template when it has one
    (a template that rejects a system turn gets it folded into the user's), else the
    messages' texts one after another."""
    tokenizer = loaded.tokenizer
    if not getattr(tokenizer, "chat_template", None):
        return "\n\n".join(m["content"] for m in messages) + "\n\n"
    try:
        prompt = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    except Exception:
        merged = [{"role": "user", "content": "\n\n".join(m["content"] for m in messages)}]
        prompt = tokenizer.apply_chat_template(merged, tokenize=False, add_generation_prompt=True)
    return str(prompt)


def generate_ids(loaded: _Loaded, settings: HFSettings, prompt: str) -> tuple[Any, Any]:
    """The prompt's ids as the model saw them (its end, when longer than the model's
    context) and the continuation's ids, sampled at `settings.temperature` (greedy at 0)
    for up to `settings.max_new_tokens` tokens. Seeding and locking are the caller's."""
    torch, _ = require_torch()
    tokenizer, model = loaded.tokenizer, loaded.model
    ids = tokenizer(prompt, add_special_tokens=False, return_tensors="pt")["input_ids"]
    context = context_length(model.config)
    if context is not None:  # keep the end: the task and the answer cue
        ids = ids[:, -max(1, context - settings.max_new_tokens) :]
    ids = ids.to(loaded.device)
    sample = settings.temperature > 0
    extra: dict[str, Any] = {}
    if sample:  # drawn on the host: the same seed gives the same moves on every device
        draw = host_draw(model, settings.temperature, torch)
        extra = {"temperature": settings.temperature, "logits_processor": [draw]}
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else (tokenizer.eos_token_id)
    with torch.no_grad():
        out = model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=settings.max_new_tokens,
            do_sample=sample,
            pad_token_id=pad,
            **extra,
        )
    return ids, out[0, ids.shape[1] :]


def generate_text(loaded: _Loaded, settings: HFSettings, prompt: str) -> Generated:
    """`generate_ids`, decoded and cleaned, with the token counts."""
    ids, new = generate_ids(loaded, settings, prompt)
    text = clean(str(loaded.tokenizer.decode(new, skip_special_tokens=True)))
    return Generated(text, int(ids.shape[1]), int(new.shape[0]))


def context_length(config: Any) -> int | None:
    for attribute in ("max_position_embeddings", "n_positions", "n_ctx"):
        value = getattr(config, attribute, None)
        if isinstance(value, int) and value > 0:
            return value
    return None


def create_hf_player(spec: Spec, ctx: PlayerContext) -> HFPlayer:
    """Factory for `hf:<hub id or local path>?device=cpu&max_new_tokens=32&temperature=0.8`."""
    return HFPlayer(parse_settings(spec), name=spec.raw, seed=ctx.seed)
