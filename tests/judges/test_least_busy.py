"""Several remote judge URLs are replicas: each call goes to the least busy server (two real
judge servers on 127.0.0.1, one of them slow)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest
from aiohttp.test_utils import TestServer

from arena.errors import ConfigError
from arena.judges.ngram import NgramJudge
from arena.judges.remote.client import create_remote_judge
from arena.judges.remote.least_busy import LeastBusyJudge
from arena.judges.remote.server import create_app
from arena.protocols.judge import ScoreRequest, TokenScores
from arena.specs import parse_spec

REQUESTS = [ScoreRequest("the cat sat on the mat", "a story:"), ScoreRequest("red bird", "")]


class CountingJudge(NgramJudge):
    """The n-gram judge, counting the score calls it serves and taking `delay_s` for each."""

    def __init__(self, delay_s: float) -> None:
        super().__init__()
        self.delay_s = delay_s
        self.served = 0

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        self.served += 1
        await asyncio.sleep(self.delay_s)
        return await super().score(requests)


@pytest.fixture
async def servers() -> AsyncIterator[tuple[list[str], list[CountingJudge]]]:
    judges = [CountingJudge(0.0), CountingJudge(0.4)]  # the second server is slow
    started = [TestServer(create_app(j, None), host="127.0.0.1") for j in judges]
    for server in started:
        await server.start_server()
    yield [str(s.make_url("")).rstrip("/") for s in started], judges
    for server in started:
        await server.close()


async def test_calls_go_to_the_least_busy_server(
    servers: tuple[list[str], list[CountingJudge]],
) -> None:
    urls, judges = servers
    judge: Any = create_remote_judge(parse_spec(f"remote:{urls[0]},{urls[1]}"))
    assert isinstance(judge, LeastBusyJudge)
    reference = await NgramJudge().score(REQUESTS)
    try:
        # 4 callers, 10 calls each: the fast server finishes its calls and takes the next
        # ones while the slow one is still busy.
        async def caller() -> None:
            for _ in range(10):
                assert await judge.score(REQUESTS) == reference  # replicas agree

        await asyncio.gather(*(caller() for _ in range(4)))
    finally:
        await judge.aclose()
    fast, slow = judges[0].served, judges[1].served
    assert fast + slow == 40
    assert slow >= 1  # both servers receive work
    assert fast > 2 * slow  # the slow one receives less
    assert judge.selector.in_flight == [0, 0]


async def test_idle_replicas_take_turns(servers: tuple[list[str], list[CountingJudge]]) -> None:
    urls, judges = servers
    judge: Any = create_remote_judge(parse_spec(f"remote:{urls[0]},{urls[1]}"))
    try:
        for _ in range(4):
            await judge.score(REQUESTS)  # one at a time: nothing is ever in flight
    finally:
        await judge.aclose()
    assert [j.served for j in judges] == [2, 2]


def test_a_bad_url_in_the_list_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="must start with http://"):
        create_remote_judge(parse_spec("remote:http://127.0.0.1:1,ftp://127.0.0.1:2"))
