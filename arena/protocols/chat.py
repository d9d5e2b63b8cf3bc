"""The chat-model contract: what the `llm` meta-sampler asks of a model, and the one reply
type every chat call returns (the LLM player's completions included).

Plain data and a protocol: the players plugin implements it with litellm and local
transformers models, so nothing below it imports a model library.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class ChatReply:
    """A model's reply, its tokens, and its cost in USD (None where no price is known)."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None


class ChatModel(Protocol):
    """A model the sampler can talk to (blocking: `propose` is a plain iterator)."""

    @property
    def model(self) -> str:
        """The model's id, recorded in the lineage header (no secrets)."""
        ...

    def chat(self, messages: list[dict[str, str]], seed: int) -> ChatReply:
        """The reply to `messages`; an `ArenaError` when the call fails
        (`PermanentPlayerError` when every further call would fail the same way)."""
        ...
