"""JSON bodies of the remote judge's HTTP API (server and client share them).

Native endpoints: `POST /v1/score`, `/v1/tokenize`, `/v1/generate`, `GET /v1/info`.
OpenAI-compatible: `POST /v1/completions` (the subset vLLM serves for scoring: `echo` with
`logprobs`) and `GET /v1/models`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_ITEMS = 4096  # requests, texts or prompts in one HTTP call
MAX_TEXT = 1_000_000  # characters in one text
MAX_GENERATE_TOKENS = 100_000


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class WireScoreRequest(_Body):
    target: str = Field(max_length=MAX_TEXT)
    context: str = Field(default="", max_length=MAX_TEXT)
    dialect: Literal["xgl", "xent"] = "xgl"


class ScoreBody(_Body):
    requests: list[WireScoreRequest] = Field(max_length=MAX_ITEMS)


class WireScores(_Body):
    tokens: list[str]
    bits: list[float]
    shown: list[str] | None = None  # TokenScores.shown


class ScoreReply(_Body):
    results: list[WireScores]


class TokenizeBody(_Body):
    texts: list[str] = Field(max_length=MAX_ITEMS)
    dialect: Literal["xgl", "xent"] = "xgl"  # whose target convention splits the texts


class TokenizeReply(_Body):
    tokens: list[list[str]]


class WireGenerateRequest(_Body):
    prompt: str = Field(default="", max_length=MAX_TEXT)
    max_tokens: int = Field(ge=0, le=MAX_GENERATE_TOKENS)
    seed: int
    temperature: float = Field(default=1.0, ge=0.0)


class GenerateBody(_Body):
    requests: list[WireGenerateRequest] = Field(max_length=MAX_ITEMS)


class GenerateReply(_Body):
    texts: list[str]


class InfoReply(_Body):
    name: str
    model: str
    revision: str = ""
    dtype: str = "float32"
    vocab_size: int = 0
    bos_text: str | None = None


class CompletionBody(BaseModel):
    """The fields of an OpenAI `/v1/completions` request that the judge honours."""

    model_config = ConfigDict(extra="ignore")  # OpenAI clients send more fields

    model: str | None = None
    prompt: str | list[str] = Field(max_length=MAX_ITEMS)
    max_tokens: int = Field(default=16, ge=0, le=MAX_GENERATE_TOKENS)
    echo: bool = False
    logprobs: int | None = Field(default=None, ge=0, le=5)
    temperature: float = Field(default=1.0, ge=0.0)
    seed: int | None = None
    n: int = Field(default=1, ge=1, le=1)


class EchoLogprobs(BaseModel):
    """OpenAI `logprobs` of a choice: natural-log probabilities, `None` for unscored tokens."""

    tokens: list[str]
    token_logprobs: list[float | None]
    text_offset: list[int]
    top_logprobs: list[dict[str, float] | None] | None = None
