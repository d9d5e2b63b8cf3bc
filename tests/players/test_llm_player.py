"""The litellm player against the local OpenAI-compatible test server, over real HTTP."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from importlib.util import find_spec
from urllib.parse import urlencode

import pytest

from arena.errors import ConfigError, PlayerError
from arena.judges.ngram import NgramJudge
from arena.players.llm.player import (
    LLMPlayer,
    Usage,
    backoff_wait,
    create_llm_player,
    is_retryable,
    retry_after,
)
from arena.plugins.plugin_types import PlayerContext
from arena.protocols.player import GameView, MoveRequest, Player
from arena.specs import parse_spec
from tests.runtime.helpers import events_of, run_game
from tests.support.openai_compat_server import ServerState, key_fingerprint, start_server

pytestmark = [
    pytest.mark.llm,
    # find_spec, not importorskip: importing litellm at collection time is slow.
    pytest.mark.skipif(find_spec("litellm") is None, reason="needs litellm (xent-arena[llm])"),
]

FAST = {"backoff": "0.001", "backoff_max": "0.005", "timeout": "5"}


@pytest.fixture
async def server() -> AsyncIterator[tuple[ServerState, str]]:
    state = ServerState()
    async with start_server(state=state) as url:
        yield state, url


def make_player(url: str, model: str = "openai/test-model", **params: str) -> LLMPlayer:
    query = urlencode({"api_base": url, **FAST, **params})
    return create_llm_player(parse_spec(f"litellm:{model}?{query}"), PlayerContext())


def make_request(*registers: str, seed: int = 7) -> MoveRequest:
    return MoveRequest(
        game=GameView(name="g", code="elicit(black, t, 5)", dialect="xgl"),
        role="black", round=1, rounds=1, line=1, registers=registers or ("t",), max_len=5,
        visible={}, reveals=(), history=(), omniscient=True, seed=seed,
    )


async def test_parses_a_tagged_reply_sent_over_http(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.script([{"reply": 'Here: <move register="t">quiet harbour</move>'}])
    player = make_player(url)
    assert isinstance(player, Player)
    assert await player.move(make_request()) == {"t": "quiet harbour"}
    (sent,) = state.requests
    assert sent.path == "/v1/chat/completions" and sent.body["model"] == "test-model"
    assert [m["role"] for m in sent.body["messages"]] == ["system", "user"]
    assert "elicit(black, t, 5)" in sent.text  # the prompt reached the server
    assert sent.body["seed"] == 7 and sent.body["max_tokens"] == 256


async def test_last_tag_wins_and_think_is_ignored(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.script([{
        "reply": '<think>try <move register="t">no</move></think>'
                 '<move register="t">first</move> <move register="t">second</move>'
    }])
    assert await make_player(url).move(make_request()) == {"t": "second"}


async def test_missing_tags_get_exactly_one_correction(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.script([{"reply": "I pick quiet harbour"}, {"reply": '<move register="t">fixed</move>'}])
    player = make_player(url)
    assert await player.move(make_request()) == {"t": "fixed"}
    assert len(state.requests) == 2
    follow_up = state.requests[1].body["messages"]
    assert follow_up[-2] == {"role": "assistant", "content": "I pick quiet harbour"}
    assert "did not contain a move for register(s) t" in follow_up[-1]["content"]
    assert player.last_usage.calls == 2


async def test_missing_tags_twice_fail_after_one_retry(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.default = {"reply": "no tags at all"}
    with pytest.raises(PlayerError, match="no usable move after a corrective retry"):
        await make_player(url).move(make_request())
    assert len(state.requests) == 2


async def test_rate_limit_then_success(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.script([{"status": 429}, {"reply": "<move>after backoff</move>"}])
    assert await make_player(url).move(make_request()) == {"t": "after backoff"}
    assert len(state.requests) == 2


async def test_server_errors_twice_then_success(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.script([{"status": 500}, {"status": 500}, {"reply": "<move>third time</move>"}])
    assert await make_player(url).move(make_request()) == {"t": "third time"}
    assert len(state.requests) == 3


async def test_retries_are_bounded(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.script([{"status": 503}] * 5)
    with pytest.raises(PlayerError, match="after 2 attempts"):
        await make_player(url, retries="1").move(make_request())
    assert len(state.requests) == 2


async def test_client_errors_are_not_retried(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.script([{"status": 400}, {"reply": "<move>never asked</move>"}])
    with pytest.raises(PlayerError, match="will not retry"):
        await make_player(url).move(make_request())
    assert len(state.requests) == 1


async def test_malformed_bodies_are_retried(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.script([{"malformed": True}, {"malformed": "no_choices"}, {"reply": "<move>ok</move>"}])
    assert await make_player(url).move(make_request()) == {"t": "ok"}
    assert len(state.requests) == 3


async def test_slow_reply_times_out(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.default = {"delay": 30, "reply": "<move>late</move>"}
    with pytest.raises(PlayerError, match="Timeout"):
        await make_player(url, timeout="0.2", retries="1").move(make_request())
    assert len(state.requests) == 2


async def test_timeouts_end_in_a_forfeit_in_a_real_match(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.default = {"delay": 30}
    player = make_player(url, timeout="0.1", retries="0")
    result = await run_game("elicit(alice, t, 5)\n", {"alice": player}, NgramJudge())
    (forfeit,) = events_of(result, "forfeit")
    assert forfeit.player == "alice" and "Timeout" in forfeit.reason
    assert len(state.requests) == 3  # the runtime's own three attempts, one call each


async def test_concurrency_limit_is_shared_per_endpoint(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.default = {"delay": 0.05, "reply": "<move>x</move>"}
    players = [make_player(url, concurrency="2") for _ in range(6)]
    moves = await asyncio.gather(*(p.move(make_request()) for p in players))
    assert moves == [{"t": "x"}] * 6
    assert len(state.requests) == 6
    assert 1 <= state.max_in_flight <= 2


async def test_usage_is_recorded_per_move_and_cumulated(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.script([{"reply": "<move>one two three</move>"}, {"reply": "<move>four</move>"}])
    player = make_player(url)
    await player.move(make_request())
    prompt_words = len(state.requests[0].text.split())  # the server counts words
    assert player.last_usage == Usage(prompt_words, 3, 0.0, 1)  # unknown model: cost 0
    await player.move(make_request())
    assert player.last_usage.completion_tokens == 1
    assert player.usage.calls == 2 and player.usage.completion_tokens == 4
    assert player.usage.prompt_tokens == prompt_words + len(state.requests[1].text.split())


async def test_api_key_never_appears_in_logs_errors_or_events(
    server: tuple[ServerState, str],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    state, url = server
    secret = "sk-test-DO-NOT-LEAK-4f9a8b7c6d5e"
    monkeypatch.setenv("ARENA_TEST_KEY", secret)
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="LiteLLM")  # even litellm's own debug output
    player = make_player(url, api_key_env="ARENA_TEST_KEY", retries="1")
    state.script([{"status": 429}, {"reply": "<move>fine</move>"},
                  {"status": 401, "echo_auth": True}])
    assert await player.move(make_request()) == {"t": "fine"}
    with pytest.raises(PlayerError) as failure:
        await player.move(make_request())
    assert state.requests[0].key_fingerprint == key_fingerprint(secret)  # the key was used
    assert all(r.headers.get("Authorization") == "***" for r in state.requests)
    assert caplog.records  # something was logged at DEBUG
    logged = "\n".join(r.getMessage() for r in caplog.records) + caplog.text
    state.default = {"status": 401, "echo_auth": True}  # every call refused: a forfeit
    result = await run_game("elicit(alice, t, 5)\n", {"alice": player}, NgramJudge())
    (forfeit,) = events_of(result, "forfeit")
    events = "\n".join(e.model_dump_json() for e in result.events)
    outputs = capfd.readouterr()
    for text in (logged, str(failure.value), repr(failure.value), repr(player),
                 repr(vars(player)), outputs.out, outputs.err, events, forfeit.reason):
        assert secret not in text
    assert "AuthenticationError" in forfeit.reason


def test_bad_specs_are_config_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_UNSET_KEY", raising=False)
    with pytest.raises(ConfigError, match="ARENA_UNSET_KEY"):
        create_llm_player(parse_spec("litellm:openai/m?api_key_env=ARENA_UNSET_KEY"),
                          PlayerContext())
    with pytest.raises(ConfigError, match="Did you mean 'temperature'"):
        create_llm_player(parse_spec("litellm:openai/m?temprature=0.1"), PlayerContext())
    with pytest.raises(ConfigError, match="names no model"):
        create_llm_player(parse_spec("litellm"), PlayerContext())


async def test_a_custom_server_never_gets_the_openai_key(
    server: tuple[ServerState, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    state, url = server
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-openai-key-0000")
    await make_player(url).move(make_request())
    assert state.requests[0].key_fingerprint == key_fingerprint("no-key")


def test_backoff_has_full_jitter_a_cap_and_honours_retry_after() -> None:
    import httpx
    from tenacity import RetryCallState

    class RateLimited(Exception):
        def __init__(self, wait: str) -> None:
            self.response = httpx.Response(429, headers={"Retry-After": wait})

    wait = backoff_wait(0.5, 10.0)
    for attempt, bound in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (7, 10.0), (21, 10.0)]:
        state = RetryCallState(None, None, (), {})
        state.attempt_number = attempt
        state.set_exception((ValueError, ValueError("flaky"), None))
        delays = [wait(state) for _ in range(200)]
        assert all(0 <= d <= bound for d in delays)
        assert max(delays) > bound / 2  # full jitter uses the whole range
    state = RetryCallState(None, None, (), {})
    state.set_exception((RateLimited, RateLimited("7"), None))
    assert wait(state) >= 7.0  # the server's Retry-After wins over a shorter jitter
    assert retry_after(RateLimited("Wed, 21 Oct 2026 07:28:00 GMT")) is None


def test_which_errors_are_retried() -> None:
    class Status(Exception):
        def __init__(self, status_code: int) -> None:
            self.status_code = status_code

    assert is_retryable(TimeoutError()) and is_retryable(ValueError("bad body"))
    assert all(is_retryable(Status(c)) for c in (408, 429, 500, 502, 503))
    assert not any(is_retryable(Status(c)) for c in (400, 401, 403, 404, 422))


@pytest.mark.parametrize(
    ("status", "error"),
    [(401, "AuthenticationError"), (400, "BadRequestError"), (404, "NotFoundError")],
)
async def test_permanent_provider_errors_forfeit_after_one_request(
    server: tuple[ServerState, str], status: int, error: str
) -> None:
    state, url = server
    state.default = {"status": status}  # a wrong key, a malformed request, an unknown model
    player = make_player(url, retries="4")
    result = await run_game("elicit(alice, t, 5)\n", {"alice": player}, NgramJudge())
    (forfeit,) = events_of(result, "forfeit")
    assert forfeit.player == "alice" and error in forfeit.reason
    assert "will not retry" in forfeit.reason
    assert len(state.requests) == 1  # neither the player nor the runtime asked again


async def test_rate_limits_and_server_errors_are_still_retried_in_a_match(
    server: tuple[ServerState, str],
) -> None:
    state, url = server
    state.script([{"status": 429}, {"status": 503}, {"status": 500},
                  {"reply": "<move>patience</move>"}])
    player = make_player(url, retries="4")
    result = await run_game("elicit(alice, t, 5)\n", {"alice": player}, NgramJudge())
    assert events_of(result, "forfeit") == []
    (response,) = events_of(result, "elicit_response")
    assert response.values == {"t": "patience"}
    assert len(state.requests) == 4
