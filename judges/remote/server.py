"""Serve any `Judge` over HTTP (aiohttp).

Endpoints (JSON; see `arena.judges.remote.wire` for the bodies):

- `POST /v1/score` — native batch scoring: per-token bits and token texts.
- `POST /v1/tokenize`, `POST /v1/generate`, `GET /v1/info` — the rest of the protocol.
- `POST /v1/completions` — OpenAI/vLLM-compatible. With `max_tokens: 0, echo: true,
  logprobs: 0|1` it returns the prompt's tokens, `token_logprobs` (natural log, `null` for
  the first token, which nothing predicts) and `text_offset` (character offsets into the
  prompt). The prompt is tokenised exactly as given (dialect `xent`), except that a prompt
  starting with the judge's BOS text (`bos_text` in `/v1/info`, e.g. "<|endoftext|>")
  followed by whitespace is read as BOS + the rest, so its first real token is scored, as
  vLLM does. `top_logprobs` is always null (the judge protocol has no top-k). With
  `max_tokens > 0` and no echo it samples a continuation (`seed` defaults to 0).
- `GET /v1/models` (OpenAI model list), `GET /health` (no token needed).

With a token, every other endpoint needs `Authorization: Bearer <token>` (401 otherwise).
Errors are JSON `{"error": {"message", "type"}}`. The server never logs request headers.
"""

from __future__ import annotations

import hmac
import json
import logging
import math
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from pydantic import BaseModel, ValidationError

from arena.errors import ArenaError
from arena.judges.remote.wire import (
    CompletionBody,
    EchoLogprobs,
    GenerateBody,
    GenerateReply,
    InfoReply,
    ScoreBody,
    ScoreReply,
    TokenizeBody,
    TokenizeReply,
    WireScores,
)
from arena.protocols.judge import GenerateRequest, Judge, ScoreRequest

log = logging.getLogger(__name__)
JUDGE_KEY: web.AppKey[Judge] = web.AppKey("judge", Judge)
MAX_BODY_BYTES = 32 * 1024 * 1024
LN2 = math.log(2.0)
_OPEN_PATHS = frozenset({"/health"})

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _error(status: int, message: str, kind: str) -> web.Response:
    return web.json_response({"error": {"message": message, "type": kind}}, status=status)


def _auth_middleware(token: str) -> Any:
    expected = f"Bearer {token}".encode()

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path not in _OPEN_PATHS:
            given = request.headers.get("Authorization", "").encode()
            if not hmac.compare_digest(given, expected):
                resp = _error(
                    401,
                    "Missing or wrong bearer token. Send 'Authorization: Bearer <token>'.",
                    "unauthorized",
                )
                resp.headers["WWW-Authenticate"] = "Bearer"
                return resp
        return await handler(request)

    return check


@web.middleware
async def _errors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return _error(exc.status, exc.reason or "HTTP error", "http_error")
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}"
            for e in exc.errors(include_input=False)[:10]
        )
        return _error(400, f"Invalid request body: {problems}", "invalid_request")
    except json.JSONDecodeError as exc:
        return _error(400, f"Request body is not valid JSON: {exc.msg}", "invalid_request")
    except ArenaError as exc:
        return _error(422, str(exc), "judge_error")
    except Exception as exc:
        log.exception("judge server error on %s", request.path)
        return _error(500, f"Internal judge error ({type(exc).__name__}).", "internal_error")


async def _body(request: web.Request, model: type[BaseModel]) -> Any:
    raw = await request.read()
    return model.model_validate_json(raw or b"{}")


def _judge(request: web.Request) -> Judge:
    return request.app[JUDGE_KEY]


async def _score(request: web.Request) -> web.Response:
    body: ScoreBody = await _body(request, ScoreBody)
    reqs = [ScoreRequest(r.target, r.context, r.dialect) for r in body.requests]
    results = await _judge(request).score(reqs)
    reply = ScoreReply(
        results=[
            WireScores(
                tokens=list(s.tokens), bits=list(s.bits),
                shown=None if s.shown is None else list(s.shown),
            )
            for s in results
        ]
    )
    return web.json_response(text=reply.model_dump_json())


async def _tokenize(request: web.Request) -> web.Response:
    body: TokenizeBody = await _body(request, TokenizeBody)
    tokens = await _judge(request).tokenize(body.texts, body.dialect)
    return web.json_response(text=TokenizeReply(tokens=tokens).model_dump_json())


async def _generate(request: web.Request) -> web.Response:
    body: GenerateBody = await _body(request, GenerateBody)
    reqs = [GenerateRequest(r.prompt, r.max_tokens, r.seed, r.temperature) for r in body.requests]
    texts = await _judge(request).generate(reqs)
    return web.json_response(text=GenerateReply(texts=texts).model_dump_json())


async def _info(request: web.Request) -> web.Response:
    judge = _judge(request)
    i = judge.info
    bos = getattr(judge, "bos_text", None)
    reply = InfoReply(
        name=i.name,
        model=i.model,
        revision=i.revision,
        dtype=i.dtype,
        vocab_size=i.vocab_size,
        bos_text=bos if isinstance(bos, str) else None,
    )
    return web.json_response(text=reply.model_dump_json())


async def _models(request: web.Request) -> web.Response:
    model = _judge(request).info.model
    data = [{"id": model, "object": "model", "owned_by": "xent-arena"}]
    return web.json_response({"object": "list", "data": data})


async def _health(request: web.Request) -> web.Response:
    return web.json_response({"status": "ok"})


async def echo_logprobs(judge: Judge, prompts: list[str]) -> list[EchoLogprobs]:
    """Each prompt's tokens with natural-log probabilities, as vLLM's echo gives them."""
    bos = getattr(judge, "bos_text", None)
    heads: list[str] = []
    reqs: list[ScoreRequest] = []
    for prompt in prompts:
        head = ""
        if isinstance(bos, str) and bos and prompt.startswith(bos):
            rest = prompt[len(bos) :]
            if not rest or rest[0].isspace():  # exact: the xgl convention adds nothing here
                head = bos
        heads.append(head)
        if head:
            reqs.append(ScoreRequest(prompt[len(head) :], "", "xgl"))
        else:
            reqs.append(ScoreRequest(prompt, "", "xent"))
    results = await judge.score(reqs) if reqs else []
    out = []
    for prompt, head, scores in zip(prompts, heads, results, strict=True):
        if not prompt:
            out.append(EchoLogprobs(tokens=[], token_logprobs=[], text_offset=[]))
            continue
        if head:
            tokens = [head, *scores.tokens]
        else:  # xent: the first token is not scored and not returned; recover its text
            tail = "".join(scores.tokens)
            first = prompt[: len(prompt) - len(tail)] if prompt.endswith(tail) else ""
            tokens = [first, *scores.tokens]
        logprobs: list[float | None] = [None, *(-b * LN2 for b in scores.bits)]
        offsets, pos = [], 0
        for tok in tokens:
            offsets.append(pos)
            pos += len(tok)
        out.append(EchoLogprobs(tokens=tokens, token_logprobs=logprobs, text_offset=offsets))
    return out


async def _completions(request: web.Request) -> web.Response:
    body: CompletionBody = await _body(request, CompletionBody)
    judge = _judge(request)
    prompts = [body.prompt] if isinstance(body.prompt, str) else body.prompt
    if body.echo and body.max_tokens > 0:
        return _error(
            400,
            "echo with max_tokens > 0 is not supported: score with max_tokens=0 and echo=true, "
            "or generate with echo=false.",
            "invalid_request",
        )
    choices: list[dict[str, Any]] = []
    prompt_tokens = completion_tokens = 0
    if body.echo:
        echoes = await echo_logprobs(judge, prompts)
        for i, (prompt, echo) in enumerate(zip(prompts, echoes, strict=True)):
            prompt_tokens += len(echo.tokens)
            lp = echo.model_dump() if body.logprobs is not None else None
            choices.append({"index": i, "text": prompt, "logprobs": lp, "finish_reason": "length"})
    else:
        seed = body.seed if body.seed is not None else 0
        reqs = [GenerateRequest(p, body.max_tokens, seed, body.temperature) for p in prompts]
        texts = await judge.generate(reqs) if body.max_tokens > 0 else [""] * len(prompts)
        completion_tokens = body.max_tokens * len(prompts)
        for i, text in enumerate(texts):
            choices.append({"index": i, "text": text, "logprobs": None, "finish_reason": "length"})
    return web.json_response(
        {
            "id": f"cmpl-{uuid.uuid4().hex}",
            "object": "text_completion",
            "created": int(time.time()),
            "model": judge.info.model,
            "choices": choices,
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )


def create_app(
    judge: Judge, token: str | None, *, max_body_bytes: int = MAX_BODY_BYTES
) -> web.Application:
    """An aiohttp application serving `judge`; `token` (if given) guards every endpoint
    but `/health`. The judge is not closed with the app: its owner closes it."""
    middlewares = [_errors_middleware]
    if token:
        middlewares.append(_auth_middleware(token))
    app = web.Application(middlewares=middlewares, client_max_size=max_body_bytes)
    app[JUDGE_KEY] = judge
    app.router.add_post("/v1/score", _score)
    app.router.add_post("/v1/tokenize", _tokenize)
    app.router.add_post("/v1/generate", _generate)
    app.router.add_post("/v1/completions", _completions)
    app.router.add_get("/v1/info", _info)
    app.router.add_get("/v1/models", _models)
    app.router.add_get("/health", _health)
    return app


async def serve(
    judge: Judge, *, host: str = "127.0.0.1", port: int = 8000, token: str | None = None
) -> web.AppRunner:
    """Start serving `judge` (returns the runner: `await runner.cleanup()` to stop).

    Wrap the judge in a `JudgePool` first so concurrent HTTP calls are batched together.
    """
    runner = web.AppRunner(create_app(judge, token))
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    log.info("judge %s served on http://%s:%d", judge.info.model, host, port)
    return runner
