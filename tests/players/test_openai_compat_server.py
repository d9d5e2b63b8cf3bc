"""The scriptable OpenAI-compatible test server, spoken to with a plain HTTP client."""

from __future__ import annotations

import aiohttp
import pytest

from arena.errors import ConfigError
from tests.support.openai_compat_server import ServerState, key_fingerprint, start_server


async def test_completions_faults_and_recording() -> None:
    state = ServerState(default={"reply": "default text"})
    state.script([{"reply": "scripted"}, {"status": 429}, {"malformed": True},
                  {"malformed": "no_choices"}])
    headers = {"Authorization": "Bearer sk-abc"}
    async with start_server(state=state) as url, aiohttp.ClientSession() as http:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        body = {"model": "m", "prompt": "one two three"}
        async with http.post(f"{url}/completions", json=body, headers=headers) as r:
            data = await r.json()
        assert data["choices"][0]["text"] == "scripted"
        assert data["usage"] == {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
        async with http.post(f"{url}/chat/completions", json={"messages": []}) as r:
            assert r.status == 429
        async with http.post(f"{url}/chat/completions", json={"messages": []}) as r:
            assert r.status == 200 and (await r.text()).startswith("{this is not json")
        async with http.post(f"{url}/chat/completions", json={"messages": []}) as r:
            assert "choices" not in await r.json()
        async with http.post(f"{url}/chat/completions", json={"messages": []}) as r:
            assert (await r.json())["choices"][0]["message"]["content"] == "default text"
    first = state.requests[0]
    assert first.path == "/v1/completions" and first.text == "one two three"
    assert first.headers["Authorization"] == "***" and "sk-abc" not in repr(first)
    assert first.key_fingerprint == key_fingerprint("sk-abc")
    assert len(state.requests) == 5 and state.in_flight == 0


async def test_only_loopback_addresses() -> None:
    with pytest.raises(ConfigError, match="loopback"):
        async with start_server(host="0.0.0.0"):
            pass
