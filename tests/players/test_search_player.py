"""The judge-guided search player: beats random, respects ensures, budget and seeds."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

import pytest

from arena.errors import ConfigError
from arena.judges.ngram import NgramJudge
from arena.lang.loader import load_game
from arena.players.local.random_words import create_random_player
from arena.players.local.search_player import SearchPlayer, create_search_player
from arena.plugins.plugin_types import PlayerContext
from arena.protocols.judge import GenerateRequest, JudgeInfo, ScoreRequest, TokenScores
from arena.protocols.player import MoveRequest
from arena.runtime.simulate import simulate_move
from arena.specs import parse_spec
from tests.runtime.helpers import ListPlayer, events_of, run_game

CONDENSE = (
    "assign(s=story())\n"
    "elicit(x, 10)\n"
    "assign(x1=remove_common_words(x, s))\n"
    "reward(xed(s | x1))\n"
)
SHORT_CLUE = (
    'assign(s="the old miller walked to the river at dawn and sang to the geese")\n'
    "elicit(t, 10)\n"
    "ensure(num_words(t) <= 3)\n"
    "reward(xed(s | t))\n"
)
TWO_REGISTERS = (
    'assign(s="a red fox jumps over the lazy brown dog near the barn")\n'
    "elicit(t1, t2, 4)\n"
    "ensure(t1 != t2)\n"
    "reward(xed(s | t1 + t2))\n"
)


@pytest.fixture
def judge() -> NgramJudge:
    return NgramJudge()


class CountingJudge:
    """A real NgramJudge that counts how often `score` is called."""

    def __init__(self) -> None:
        self.inner = NgramJudge()
        self.score_calls = 0

    @property
    def info(self) -> JudgeInfo:
        return self.inner.info

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        self.score_calls += 1
        return await self.inner.score(requests)

    async def tokenize(self, texts: Sequence[str], dialect: str = "xgl") -> list[list[str]]:
        return await self.inner.tokenize(texts, dialect)

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        return await self.inner.generate(requests)

    async def aclose(self) -> None:
        await self.inner.aclose()


def search(judge: object, spec: str = "search", seed: int = 0) -> SearchPlayer:
    return create_search_player(
        parse_spec(spec), PlayerContext(judge=judge, seed=seed, role="black")  # type: ignore[arg-type]
    )


async def first_request(source: str, judge: NgramJudge, seed: int = 0) -> MoveRequest:
    """The real request the runtime builds at the game's first elicit."""
    recorder = ListPlayer(["a"])
    await run_game(source, {"black": recorder}, judge, seed=seed)
    return recorder.requests[0]


async def test_search_beats_random_on_condense(judge: NgramJudge) -> None:
    searched, randomised = [], []
    for seed in range(5):
        player = search(judge, "search?budget=48&beam=4")
        result = await run_game(CONDENSE, {"black": player}, judge, seed=seed)
        searched.append(result.scores["black"].best)
        baseline = create_random_player(parse_spec("random"), PlayerContext(seed=0, role="black"))
        result = await run_game(CONDENSE, {"black": baseline}, judge, seed=seed)
        randomised.append(result.scores["black"].best)
    assert statistics.mean(searched) > statistics.mean(randomised)
    assert min(searched) >= 0.0  # it can always keep x1 empty, and finds that out


async def test_search_never_plays_a_move_that_fails_an_ensure(judge: NgramJudge) -> None:
    # The ensure is live: a long move does fail it.
    long_move = ListPlayer(["one two three four five", "ok"])
    assert events_of(await run_game(SHORT_CLUE, {"black": long_move}, judge), "failed_ensure")
    for seed in range(4):
        player = search(judge, f"search?budget=24&seed={seed}")
        result = await run_game(SHORT_CLUE, {"black": player}, judge, seed=seed)
        assert not events_of(result, "failed_ensure")
        (move,) = events_of(result, "elicit_response")
        assert 1 <= len(move.values["t"].split()) <= 3
        assert result.scores["black"].best is not None


async def test_search_respects_its_judge_call_budget(judge: NgramJudge) -> None:
    request = await first_request(CONDENSE, judge, seed=3)
    counting = CountingJudge()
    program = load_game(CONDENSE)
    await simulate_move(program, request, {"x": "hello"}, counting)
    assert counting.score_calls == 1  # so one evaluation is one score call in this game
    for budget in (1, 7, 30):
        counting.score_calls = 0
        await search(counting, f"search?budget={budget}&beam=3").move(request)
        assert 0 < counting.score_calls <= budget
    assert counting.score_calls > 7  # a larger budget is actually used


async def test_search_is_deterministic_for_a_seed(judge: NgramJudge) -> None:
    request = await first_request(CONDENSE, judge, seed=4)
    first = await search(judge, "search?budget=20&seed=5").move(request)
    again = await search(NgramJudge(), "search?budget=20&seed=5").move(request)
    assert first == again
    others = [await search(judge, f"search?budget=20&seed={s}").move(request) for s in range(4)]
    assert any(move != first for move in others)  # the seed does steer the search


async def test_search_cuts_moves_to_max_len_tokens(judge: NgramJudge) -> None:
    source = 'assign(s="walking by the river in spring")\nelicit(t, 2)\nreward(xed(s | t))\n'
    request = await first_request(source, judge)
    move = await search(judge, "search?budget=16").move(request)
    (tokens,) = await judge.tokenize([move["t"]])
    assert 1 <= len(tokens) <= 2


async def test_search_optimises_every_register_of_an_elicit(judge: NgramJudge) -> None:
    counting = CountingJudge()
    player = search(counting, "search?budget=20")
    result = await run_game(TWO_REGISTERS, {"black": player}, counting)
    (move,) = events_of(result, "elicit_response")
    assert set(move.values) == {"t1", "t2"}
    assert move.values["t1"] and move.values["t2"] and move.values["t1"] != move.values["t2"]
    assert not events_of(result, "failed_ensure")


async def test_extra_vocabulary_is_used(judge: NgramJudge) -> None:
    # Only a one-token move of 12+ characters passes; alice sees no text, the common words
    # are shorter, so only the `vocab` parameter can supply one.
    source = "elicit(alice, t, 1)\nensure(len(t) >= 12)\nreward(alice, nex(t))\n"
    recorder = ListPlayer(["extraordinary"])
    await run_game(source, {"alice": recorder}, judge)
    request = recorder.requests[0]
    assert request.visible == {}

    def player(spec: str) -> SearchPlayer:
        return create_search_player(
            parse_spec(spec), PlayerContext(judge=judge, seed=0, role="alice")
        )

    plain = await player("search?budget=40").move(request)
    assert len(plain["t"]) < 12
    extra = await player("search?budget=40&vocab=extraordinary,quux").move(request)
    assert extra == {"t": "extraordinary"}


def test_search_without_a_judge_says_how_to_fix_it() -> None:
    with pytest.raises(ConfigError, match="judge") as info:
        create_search_player(parse_spec("search"), PlayerContext(role="black"))
    assert "PlayerContext(judge=" in str(info.value)


def test_bad_search_specs_are_rejected(judge: NgramJudge) -> None:
    with pytest.raises(ConfigError, match="Did you mean 'budget'"):
        search(judge, "search?budjet=3")
    with pytest.raises(ConfigError, match=">= 1"):
        search(judge, "search?beam=0")
    with pytest.raises(ConfigError, match="no ':' argument"):
        search(judge, "search:gpt")


async def test_search_caps_a_huge_max_len_and_keeps_the_loop_free(judge: NgramJudge) -> None:
    # issue 24 item 4: a max_len of 10^18 made search build candidates of that many words
    # synchronously; the move timeout never fired.
    import asyncio
    import dataclasses

    request = dataclasses.replace(
        await first_request(CONDENSE, judge, seed=1), max_len=999_999_999_999_999_999
    )
    ticks = 0
    done = asyncio.Event()

    async def heartbeat() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            await asyncio.sleep(0)

    beat = asyncio.create_task(heartbeat())
    async with asyncio.timeout(60):
        move = await search(judge, "search?budget=4&beam=2").move(request)
    done.set()
    await beat
    assert len(move["x"].split()) <= 100_000
    assert ticks > 3


def test_search_refuses_huge_budget_and_beam_naming_the_maximum(judge: NgramJudge) -> None:
    with pytest.raises(ConfigError, match=r"'beam' .* must be <= 1000, got 999999999999"):
        search(judge, "search?beam=999999999999")
    with pytest.raises(ConfigError, match=r"'budget' .* must be <= 100000"):
        search(judge, "search?budget=99999999999999999999")
