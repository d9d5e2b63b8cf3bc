"""Remote judge over real HTTP on 127.0.0.1: our server, the native and OpenAI protocols."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from arena.errors import ConfigError, JudgeError
from arena.judges.pool.judge_pool import JudgePool
from arena.judges.remote.client import RemoteJudge, create_remote_judge
from arena.judges.remote.server import create_app
from arena.protocols.judge import GenerateRequest, Judge, ScoreRequest
from arena.specs import parse_spec

from .test_hf import RAGGED

pytestmark = pytest.mark.torch
TOKEN = "s3cret-judge-token-0123456789"

# Requests whose joined text tokenises like the separate parts (the OpenAI protocol's domain).
JOINABLE = [
    ScoreRequest("the cat sat on the mat.", "Then the dog ran"),
    ScoreRequest("garden window", ""),
    ScoreRequest("red", "a small bird"),
    ScoreRequest(" quickly and slowly, never always", "The river at night", "xent"),
    ScoreRequest(" sat on the mat", "the cat", "xent"),
    ScoreRequest("", "nothing to score"),
]


@pytest.fixture
async def server(hf_judge: Any) -> AsyncIterator[tuple[str, Any]]:
    srv = TestServer(create_app(hf_judge, TOKEN), host="127.0.0.1")
    await srv.start_server()
    yield str(srv.make_url("")).rstrip("/"), hf_judge
    await srv.close()


def close(a: Any, b: Any) -> bool:
    return a.tokens == b.tokens and all(
        abs(x - y) < 1e-4 for x, y in zip(a.bits, b.bits, strict=True)
    )


async def test_native_protocol_matches_the_local_judge(server: tuple[str, Any]) -> None:
    url, local = server
    remote = RemoteJudge(url, token=TOKEN)
    assert isinstance(remote, Judge)
    got = await remote.score(RAGGED)
    assert got == await local.score(RAGGED)  # JSON floats round-trip exactly
    assert remote.info.model == local.info.model
    assert remote.info.revision == local.info.revision
    texts = ["the cat  sat ", "東京 café"]
    assert await remote.tokenize(texts) == await local.tokenize(texts)
    assert await remote.tokenize(texts, "xent") == await local.tokenize(texts, "xent")
    assert await local.tokenize(texts, "xent") != await local.tokenize(texts)  # no space added
    split = [ScoreRequest("東京 café ✨", "", "xent")]  # characters the tokenizer splits
    (theirs,), (ours,) = await remote.score(split), await local.score(split)
    assert theirs.shown == ours.shown and ours.shown is not None and "\ufffd" in "".join(ours.shown)
    gen = [GenerateRequest("the cat", 6, 11), GenerateRequest("", 5, 3)]
    assert await remote.generate(gen) == await local.generate(gen)
    assert remote.bos_text == local.bos_text
    await remote.aclose()


async def test_openai_protocol_matches_where_tokenisation_agrees(server: tuple[str, Any]) -> None:
    url, local = server
    remote = RemoteJudge(url, token=TOKEN, protocol="openai", bos_text=local.bos_text)
    got = await remote.score(JOINABLE)
    want = await local.score(JOINABLE)
    for g, w in zip(got, want, strict=True):
        assert close(g, w)
    assert remote.info.model == local.info.model  # from /v1/models
    [sample] = await remote.generate([GenerateRequest("the cat", 6, 11)])
    assert sample == (await local.generate([GenerateRequest("the cat", 6, 11)]))[0]
    await remote.aclose()


async def test_openai_protocol_without_bos_explains_itself(server: tuple[str, Any]) -> None:
    url, _ = server
    remote = RemoteJudge(url, token=TOKEN, protocol="openai")
    with pytest.raises(JudgeError, match="bos_text"):
        await remote.score([ScoreRequest("garden window", "")])
    await remote.aclose()


async def test_completions_echo_format(server: tuple[str, Any]) -> None:
    url, _ = server
    body = {
        "model": "x",
        "prompt": ["The cat sat", "a"],
        "max_tokens": 0,
        "echo": True,
        "logprobs": 0,
    }
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with (
        aiohttp.ClientSession() as s,
        s.post(f"{url}/v1/completions", json=body, headers=headers) as r,
    ):
        assert r.status == 200
        data = await r.json()
    first, second = data["choices"]
    lp = first["logprobs"]
    assert first["text"] == "The cat sat" and "".join(lp["tokens"]) == "The cat sat"
    assert lp["token_logprobs"][0] is None
    assert all(v < 0 for v in lp["token_logprobs"][1:])
    assert lp["text_offset"][0] == 0 and lp["text_offset"] == sorted(lp["text_offset"])
    assert second["logprobs"]["tokens"] == ["a"]
    assert data["usage"]["prompt_tokens"] == len(lp["tokens"]) + 1


async def test_token_is_required(server: tuple[str, Any]) -> None:
    url, _ = server
    async with aiohttp.ClientSession() as s:
        async with s.get(f"{url}/v1/info") as r:
            assert r.status == 401
            assert "bearer token" in (await r.json())["error"]["message"]
        async with s.get(f"{url}/v1/info", headers={"Authorization": "Bearer nope"}) as r:
            assert r.status == 401
        async with s.get(f"{url}/health") as r:
            assert r.status == 200
    with pytest.raises(JudgeError, match="401"):
        await RemoteJudge(url).score([ScoreRequest("the cat")])


async def test_token_never_leaks(server: tuple[str, Any], caplog: pytest.LogCaptureFixture) -> None:
    url, _ = server
    caplog.set_level(logging.DEBUG)
    good = RemoteJudge(url, token=TOKEN)
    await good.score([ScoreRequest("the cat")])
    wrong = RemoteJudge(url, token=TOKEN + "-wrong")
    with pytest.raises(JudgeError) as err:
        await wrong.score([ScoreRequest("the cat")])
    with pytest.raises(JudgeError) as err2:  # a judge error travels back too
        await good.score([ScoreRequest("the cat sat on the mat " * 40)])
    assert "window" in str(err2.value)
    for text in (caplog.text, str(err.value), repr(err.value), str(err2.value), repr(good)):
        assert TOKEN not in text
    assert "token=***" in repr(good)
    await good.aclose()
    await wrong.aclose()


async def test_bad_requests_get_json_errors(hf_judge: Any) -> None:
    srv = TestServer(create_app(hf_judge, None, max_body_bytes=2000), host="127.0.0.1")
    await srv.start_server()
    url = str(srv.make_url("")).rstrip("/")
    async with aiohttp.ClientSession() as s:
        async with s.post(f"{url}/v1/score", json={"requests": [{"context": "x"}]}) as r:
            assert r.status == 400
            assert "target" in (await r.json())["error"]["message"]
        async with s.post(f"{url}/v1/score", data=b"{not json") as r:
            assert r.status == 400
        big = {"requests": [{"target": "x" * 5000}]}
        async with s.post(f"{url}/v1/score", json=big) as r:
            assert r.status == 413 and "error" in await r.json()
        bad = {"prompt": "a", "max_tokens": 3, "echo": True}
        async with s.post(f"{url}/v1/completions", json=bad) as r:
            assert r.status == 400 and "max_tokens=0" in (await r.json())["error"]["message"]
    await srv.close()


async def test_server_over_a_pool_batches_concurrent_calls(hf_judge: Any) -> None:
    pool = JudgePool(hf_judge, max_wait_ms=30, close_backend=False)
    srv = TestServer(create_app(pool, TOKEN), host="127.0.0.1")
    await srv.start_server()
    remote = RemoteJudge(str(srv.make_url("")), token=TOKEN)
    got = await asyncio.gather(*(remote.score([r]) for r in RAGGED))
    want = await hf_judge.score(RAGGED)
    assert all(close(g[0], w) for g, w in zip(got, want, strict=True))
    m = pool.metrics()
    assert m["requests"] == len(RAGGED) and m["batches"] < len(RAGGED)
    await remote.aclose()
    await srv.close()
    await pool.aclose()


async def test_unreachable_server_is_a_clear_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    remote = RemoteJudge(f"http://127.0.0.1:{port}", token=TOKEN)
    with pytest.raises(JudgeError, match="Cannot reach") as err:
        await remote.score([ScoreRequest("x")])
    assert TOKEN not in str(err.value)
    await remote.aclose()
    with pytest.raises(ConfigError, match="credentials") as bad:
        RemoteJudge(f"http://user:hunter2@127.0.0.1:{port}")
    assert "hunter2" not in str(bad.value)


async def test_spec_factory_reads_the_token_from_the_environment(
    server: tuple[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, local = server
    monkeypatch.setenv("XENT_TEST_JUDGE_TOKEN", TOKEN)
    remote = create_remote_judge(parse_spec(f"remote:{url}?token_env=XENT_TEST_JUDGE_TOKEN"))
    assert await remote.score(RAGGED[:2]) == await local.score(RAGGED[:2])
    await remote.aclose()
    monkeypatch.delenv("XENT_TEST_JUDGE_TOKEN")
    with pytest.raises(ConfigError, match="XENT_TEST_JUDGE_TOKEN"):
        create_remote_judge(parse_spec(f"remote:{url}?token_env=XENT_TEST_JUDGE_TOKEN"))
    with pytest.raises(ConfigError, match="Did you mean 'openai'"):
        create_remote_judge(parse_spec(f"remote:{url}?protocol=opneai"))
