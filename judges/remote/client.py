"""A `Judge` that scores through an HTTP judge server: ours (`arena.judges.remote.server`) or any
OpenAI-compatible completions server such as vLLM.

Protocols:

- `native` (our server): `/v1/score`, `/v1/tokenize`, `/v1/generate`, `/v1/info`. Exact:
  the server's judge applies the token rules of XGL.md section 7.
- `openai` (vLLM or our server): scores through `/v1/completions` with `echo: true`,
  `logprobs: 0`, `max_tokens: 0`, sending the text context + target as one prompt and
  reading the target's token logprobs by `text_offset`. Limitation: tokenisation is then the
  server's, over the joined text, so the context/target split is approximated by character
  offsets (a token that straddles the boundary counts as context). In dialect `xgl` the
  client applies the whitespace convention and starts the prompt with `bos_text` (e.g.
  "<|endoftext|>" for GPT-2 on vLLM) so that the first target token is predicted by BOS;
  leave it unset for servers whose tokenizer adds BOS itself. Without either, an `xgl`
  request with an empty context cannot be scored (its first token has no logprob) and
  fails with a `JudgeError` saying so.

The bearer token is sent in a header only: it never appears in logs, reprs or errors.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import aiohttp

from arena.errors import ConfigError, JudgeError, UnknownNameError, did_you_mean
from arena.judges.hf.tokens import adds_space
from arena.lang.ast import Dialect
from arena.protocols.judge import GenerateRequest, Judge, JudgeInfo, ScoreRequest, TokenScores
from arena.specs import Spec

log = logging.getLogger(__name__)
LN2 = math.log(2.0)
PROTOCOLS = ("native", "openai")
Protocol = Literal["native", "openai"]


def redact_url(url: str) -> str:
    """The URL without user:password, for messages."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


@dataclass(frozen=True)
class EchoPlan:
    """How one score request is sent as an OpenAI prompt and read back."""

    prompt: str
    boundary: int  # characters of the prompt before the target
    hidden_space: bool  # the convention added a space before the target
    dialect: Dialect


def plan_echo(req: ScoreRequest, bos_text: str | None) -> EchoPlan:
    """The prompt for `req`: (BOS text) + context + target under the dialect's rules."""
    ctx, tgt = req.context, req.target
    space_ctx = adds_space(ctx, req.dialect)
    space_tgt = adds_space(tgt, req.dialect)
    head = (bos_text or "") if req.dialect == "xgl" else ""
    before = head + (" " if space_ctx else "") + ctx
    prompt = before + (" " if space_tgt else "") + tgt
    return EchoPlan(prompt, len(before), space_tgt, req.dialect)


def read_echo(plan: EchoPlan, logprobs: dict[str, Any]) -> TokenScores:
    """The target's per-token bits from an OpenAI `logprobs` object of the echoed prompt."""
    tokens = list(logprobs.get("tokens") or [])
    values = list(logprobs.get("token_logprobs") or [])
    offsets = logprobs.get("text_offset")
    n = len(tokens)
    if len(values) != n:
        raise JudgeError("The server's echo has different numbers of tokens and logprobs.")
    if not isinstance(offsets, list) or len(offsets) != n:
        offsets, pos = [], 0
        for tok in tokens:
            offsets.append(pos)
            pos += len(str(tok))
    in_range = not offsets or (offsets[0] >= 0 and offsets[-1] <= len(plan.prompt))
    if not in_range or any(b < a for a, b in itertools.pairwise(offsets)):
        raise JudgeError(
            "The server's echo text_offset values do not index the prompt; use the native "
            "protocol with this server."
        )
    idx = [i for i in range(n) if offsets[i] >= plan.boundary]
    pieces: list[str] = []
    for k, i in enumerate(idx):
        end = offsets[idx[k + 1]] if k + 1 < len(idx) else len(plan.prompt)
        pieces.append(plan.prompt[offsets[i] : end])
    if plan.hidden_space and pieces and offsets[idx[0]] == plan.boundary:
        pieces[0] = pieces[0][1:]
    lps = [values[i] for i in idx]
    if plan.dialect == "xent":  # the first target token is never scored
        pieces, lps = pieces[1:], lps[1:]
    if any(v is None for v in lps):
        raise JudgeError(
            "The server returned no logprob for the first target token: nothing precedes it. "
            "Set bos_text (e.g. '<|endoftext|>' for GPT-2) for servers that add no BOS, or "
            "use the native protocol."
        )
    return TokenScores(tokens=tuple(pieces), bits=tuple(-float(v) / LN2 for v in lps))


class RemoteJudge:
    """A `Judge` over HTTP (see the module docstring for the two protocols)."""

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        protocol: Protocol = "native",
        timeout: float = 120.0,
        max_concurrency: int = 8,
        batch_size: int = 256,
        model: str | None = None,
        bos_text: str | None = None,
        name: str = "remote",
    ) -> None:
        if protocol not in PROTOCOLS:
            raise UnknownNameError("remote judge protocol", protocol, PROTOCOLS)
        if not url.startswith(("http://", "https://")):
            raise ConfigError(
                f"Remote judge URL '{redact_url(url)}' must start with http:// or https://, "
                "e.g. http://127.0.0.1:8000."
            )
        if urlsplit(url).username or urlsplit(url).password:
            raise ConfigError(
                f"Remote judge URL '{redact_url(url)}' carries credentials; remove them and "
                "pass the bearer token with token= (or token_env= in a spec)."
            )
        base = url.rstrip("/")
        self._base = base[:-3] if base.endswith("/v1") else base  # accept OpenAI base URLs
        self._safe = redact_url(self._base)
        self.__token = token
        self.protocol: Protocol = protocol
        self.timeout = timeout
        self.batch_size = max(1, batch_size)
        self._max_concurrency = max(1, max_concurrency)
        self._model = model
        self.bos_text = bos_text
        self._name = name
        self._info = JudgeInfo(name=name, model=model or self._safe, dtype="remote")
        self._connected = False
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sem: asyncio.Semaphore | None = None

    def __repr__(self) -> str:
        auth = ", token=***" if self.__token else ""
        return f"RemoteJudge({self._safe!r}, protocol={self.protocol!r}{auth})"

    @property
    def info(self) -> JudgeInfo:
        return self._info

    # ------------------------------------------------------------------ HTTP

    def _ensure_session(self) -> tuple[aiohttp.ClientSession, asyncio.Semaphore]:
        loop = asyncio.get_running_loop()
        if self._session is None or self._loop is not loop or self._session.closed:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=self.timeout))
            self._sem = asyncio.Semaphore(self._max_concurrency)
            self._loop = loop
        assert self._sem is not None
        return self._session, self._sem

    async def _call(self, method: str, path: str, body: Any = None) -> Any:
        session, sem = self._ensure_session()
        headers = {"Authorization": f"Bearer {self.__token}"} if self.__token else {}
        where = f"{self._safe}{path}"
        async with sem:
            try:
                async with session.request(
                    method, self._base + path, json=body, headers=headers
                ) as r:
                    text = await r.text()
                    status = r.status
            except TimeoutError:
                raise JudgeError(
                    f"The remote judge at {where} did not answer within {self.timeout:g} s. "
                    "Raise timeout= or check the server's load."
                ) from None
            except aiohttp.ClientError as exc:
                raise JudgeError(
                    f"Cannot reach the remote judge at {where}: {type(exc).__name__}: {exc}. "
                    "Check that the server runs and the URL is right."
                ) from None
        data = _json_or_none(text)
        if status != 200:
            message = _error_message(data) or text[:200]
            hint = " Check the token (token_env=...)." if status == 401 else ""
            raise JudgeError(f"The remote judge at {where} answered {status}: {message}.{hint}")
        if data is None:
            raise JudgeError(f"The remote judge at {where} answered with invalid JSON.")
        return data

    async def connect(self) -> None:
        """Fetch the server's judge info (native) or model id (openai); done once."""
        if self._connected:
            return
        if self.protocol == "native":
            data = await self._call("GET", "/v1/info")
            self._info = JudgeInfo(
                name=f"{self._name}/{data.get('name', '')}",
                model=str(data.get("model", "")),
                revision=str(data.get("revision", "")),
                dtype=str(data.get("dtype", "")),
                vocab_size=int(data.get("vocab_size", 0)),
            )
            if self.bos_text is None and isinstance(data.get("bos_text"), str):
                self.bos_text = data["bos_text"]
        elif self._model is None:
            data = await self._call("GET", "/v1/models")
            models = [m.get("id") for m in data.get("data", []) if isinstance(m, dict)]
            if not models:
                raise JudgeError(f"The server at {self._safe} lists no model; pass model=...")
            self._model = str(models[0])
            self._info = JudgeInfo(name=self._name, model=self._model, dtype="remote")
        self._connected = True

    async def _chunks(self, items: Sequence[Any], run: Any) -> list[Any]:
        """Run `run(chunk)` over chunks of `batch_size` concurrently, keeping order."""
        chunks = [items[i : i + self.batch_size] for i in range(0, len(items), self.batch_size)]
        parts = await asyncio.gather(*(run(c) for c in chunks))
        return [x for part in parts for x in part]

    # ------------------------------------------------------------------ Judge protocol

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        if not requests:
            return []
        await self.connect()
        if self.protocol == "openai":
            return await self._score_openai(requests)

        async def run(chunk: Sequence[ScoreRequest]) -> list[TokenScores]:
            body = {
                "requests": [
                    {"target": r.target, "context": r.context, "dialect": r.dialect} for r in chunk
                ]
            }
            data = await self._call("POST", "/v1/score", body)
            results = data.get("results", [])
            if len(results) != len(chunk):
                raise JudgeError(f"The remote judge at {self._safe} returned a wrong count.")
            return [
                TokenScores(
                    tuple(x["tokens"]), tuple(float(b) for b in x["bits"]),
                    None if x.get("shown") is None else tuple(x["shown"]),
                )
                for x in results
            ]

        return await self._chunks(requests, run)

    async def _completions(self, prompts: Sequence[str], **fields: Any) -> list[dict[str, Any]]:
        body = {"model": self._model or self._info.model, "prompt": list(prompts), **fields}
        data = await self._call("POST", "/v1/completions", body)
        choices = sorted(data.get("choices", []), key=lambda c: int(c.get("index", 0)))
        if len(choices) != len(prompts):
            raise JudgeError(f"The server at {self._safe} returned a wrong number of choices.")
        return choices

    async def _score_openai(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        plans = [plan_echo(r, self.bos_text) for r in requests]
        todo = [p for p, r in zip(plans, requests, strict=True) if r.target]

        async def run(chunk: Sequence[EchoPlan]) -> list[TokenScores]:
            choices = await self._completions(
                [p.prompt for p in chunk], max_tokens=0, echo=True, logprobs=0, temperature=0.0
            )
            return [
                read_echo(p, c.get("logprobs") or {}) for p, c in zip(chunk, choices, strict=True)
            ]

        scored = iter(await self._chunks(todo, run))
        empty = TokenScores(tokens=(), bits=())
        return [next(scored) if r.target else empty for r in requests]

    async def tokenize(self, texts: Sequence[str], dialect: Dialect = "xgl") -> list[list[str]]:
        if not texts:
            return []
        await self.connect()
        if self.protocol == "native":
            body = {"texts": list(texts), "dialect": dialect}
            data = await self._call("POST", "/v1/tokenize", body)
            return [list(t) for t in data["tokens"]]
        # openai: the server's own split of each text as written (either dialect), read
        # from an echo
        plans = [EchoPlan(t, 0, False, "xgl") for t in texts]
        choices = await self._completions(texts, max_tokens=0, echo=True, logprobs=0)
        out = []
        for plan, choice in zip(plans, choices, strict=True):
            offsets = (choice.get("logprobs") or {}).get("text_offset") or []
            bounds = [*offsets[1:], len(plan.prompt)]
            out.append([plan.prompt[a:b] for a, b in zip(offsets, bounds, strict=True)])
        return out

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        if not requests:
            return []
        await self.connect()
        if self.protocol == "native":
            body = {
                "requests": [
                    {
                        "prompt": r.prompt,
                        "max_tokens": r.max_tokens,
                        "seed": r.seed,
                        "temperature": r.temperature,
                    }
                    for r in requests
                ]
            }
            data = await self._call("POST", "/v1/generate", body)
            return [str(t) for t in data["texts"]]

        async def one(r: GenerateRequest) -> str:
            choices = await self._completions(
                [r.prompt], max_tokens=r.max_tokens, seed=r.seed, temperature=r.temperature
            )
            return str(choices[0].get("text", ""))

        return list(await asyncio.gather(*(one(r) for r in requests)))

    async def aclose(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _error_message(data: Any) -> str:
    if isinstance(data, dict):
        err = data.get("error", data.get("message"))
        if isinstance(err, dict):
            return str(err.get("message", ""))
        if isinstance(err, str):
            return err
    return ""


REMOTE_PARAMS = (
    "token_env",
    "protocol",
    "timeout",
    "max_concurrency",
    "batch_size",
    "model",
    "bos_text",
)


def check_remote_spec(spec: Spec) -> str | None:
    """The token of a `remote:` judge spec (None without `token_env`); `ConfigError` for a
    spec without a URL, with an unset token variable or a bad parameter (nothing is sent)."""
    import os

    spec.expect_params(REMOTE_PARAMS, "judge")
    if not spec.arg:
        raise ConfigError(
            f"Judge spec '{spec.raw}' names no server. Write remote:<url>, "
            "e.g. remote:http://127.0.0.1:8000?token_env=ARENA_JUDGE_TOKEN."
        )
    token = None
    var = spec.params.get("token_env")
    if var:
        token = os.environ.get(var)
        if not token:
            raise ConfigError(
                f"Environment variable {var} (token_env of judge '{redact_url(spec.arg)}') is "
                f"not set or empty. Export it with the server's token: export {var}=..."
            )
    protocol = spec.params.get("protocol", "native")
    if protocol not in PROTOCOLS:
        raise ConfigError(
            f"Unknown remote judge protocol '{protocol}' in '{redact_url(spec.arg)}'."
            f"{did_you_mean(protocol, PROTOCOLS)} native talks to our server, openai to vLLM."
        )
    spec.float_param("timeout", 120.0)
    spec.int_param("max_concurrency", 8, minimum=1)
    spec.int_param("batch_size", 256, minimum=1)
    return token


def create_remote_judge(spec: Spec) -> Judge:
    """`remote:<url>[,<url>…]?token_env=VAR&protocol=native|openai&model=...&bos_text=...`.

    The token is read from the environment variable named by `token_env` (never written in
    the spec itself, so it stays out of configs and logs). Several comma-separated URLs are
    replicas of one judge: each call goes to the least busy (`arena.judges.remote.least_busy`).
    """
    token = check_remote_spec(spec)
    protocol = spec.params.get("protocol", "native")
    replicas = [
        RemoteJudge(
            url.strip(),
            token=token,
            protocol="openai" if protocol == "openai" else "native",
            timeout=spec.float_param("timeout", 120.0),
            max_concurrency=spec.int_param("max_concurrency", 8, minimum=1),
            batch_size=spec.int_param("batch_size", 256, minimum=1),
            model=spec.params.get("model") or None,
            bos_text=spec.params.get("bos_text") or None,
        )
        for url in spec.arg.split(",")
    ]
    if len(replicas) == 1:
        return replicas[0]
    from arena.judges.remote.least_busy import LeastBusyJudge

    return LeastBusyJudge(replicas)
