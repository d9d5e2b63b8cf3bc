"""Issue 24, High 1: a seat must not rebuild a hidden story from its own reward feedback.

In `alternating_guessing` alice never sees the story `s` but is rewarded on `xed(s | t)`
after every move `t`. The old rule showed a term's per-token values once its texts could be
joined from texts the seat had seen, its own moves included: moves covering the story's
alphabet (characters, word pieces, whole words) made every term over `s` arrive in full,
tokens and bits. Feedback now follows where values come from (`arena.lang.flow`): `s` is a
map text never shown to alice, so those terms stay one rounded total, whatever she plays.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import asdict
from pathlib import Path

import aiohttp
import pytest

from arena.judges.hf.bundled_judge import create_bundled_judge
from arena.judges.ngram import NgramJudge
from arena.lang.loader import load_game
from arena.players.remote.player import create_remote_player
from arena.players.remote.server import shutdown_servers
from arena.plugins.plugin_types import PlayerContext
from arena.protocols.judge import Judge
from arena.protocols.player import HistoryItem, MoveRequest
from arena.runtime.maps import GameMap, story_requests
from arena.specs import parse_spec
from tests.runtime.helpers import ListPlayer, run_game

GAME = Path(__file__).resolve().parents[2] / "arena" / "games" / "alternating_guessing.xgl"
STORY = "the old miller walked to the river at dawn"
SECOND = "a small dog barked"  # s0, the second hidden text


def pieces(text: str, width: int) -> list[str]:
    """Every word of `text` cut into pieces of at most `width` characters, each once."""
    found = [w[i : i + width] for w in text.split() for i in range(0, len(w), width)]
    return list(dict.fromkeys(found))


ALPHABETS = {
    "characters": list("abcdefghijklmnopqrstuvwxyz"),
    "word pieces": pieces(STORY, 2),
    "whole words": list(dict.fromkeys(STORY.split())),
}


@pytest.fixture(scope="module")
def bundled() -> Judge:
    return create_bundled_judge({})


def game_source(moves: int) -> str:
    """The bundled game with its loop as long as the attacker's list of moves."""
    return GAME.read_text().replace("replay(flag_1, 100)", f"replay(flag_1, {moves - 1})")


def game_map(source: str) -> GameMap:
    sites = [r.site for r in story_requests(load_game(source, filename=GAME.name), 0)]
    return GameMap(0, dict(zip(sites, (STORY, SECOND), strict=True)))


def received(requests: Iterable[MoveRequest]) -> list[HistoryItem]:
    """Every history item alice was sent, the earlier round's (her memory) included."""
    items: list[HistoryItem] = []
    for request in requests:
        items.extend(request.history)
        for memory in request.previous_rounds:
            items.extend(memory.history)
    return items


async def play(moves: Sequence[str], judge: Judge) -> ListPlayer:
    source = game_source(len(moves))
    alice = ListPlayer(list(moves))
    # Two rounds: the second round's requests carry the first as alice's memory, the
    # rewards after her last move included.
    result = await run_game(source, {"alice": alice}, judge, rounds=2, game_map=game_map(source))
    assert result.error is None, result.error
    return alice


def assert_story_stays_hidden(alice: ListPlayer, moves: Sequence[str]) -> None:
    covered = set("".join(moves)) | {" "}
    assert set(STORY) <= covered  # the moves do cover the story's alphabet
    rewards = [item for item in received(alice.requests) if item.kind == "reward"]
    assert len(rewards) >= 2 * len(moves) + 1  # every reward of round 1 reached alice
    for reward in rewards:
        for term in reward.terms:
            # one rounded total per reward: no tokens, no per-token value of s or s0
            assert term.hidden and not term.bits and not term.tokens, term
            assert term.total == round(term.total, 2)
    everything = "\n".join(repr(asdict(r)) for r in alice.requests)
    assert STORY not in everything and SECOND not in everything


@pytest.mark.parametrize("alphabet", list(ALPHABETS), ids=str)
async def test_covering_the_alphabet_reveals_nothing_with_the_ngram_judge(alphabet: str) -> None:
    moves = ALPHABETS[alphabet]
    alice = await play(moves, NgramJudge())
    assert_story_stays_hidden(alice, moves)


@pytest.mark.parametrize("alphabet", list(ALPHABETS), ids=str)
async def test_covering_the_alphabet_reveals_nothing_with_the_bundled_judge(
    alphabet: str, bundled: Judge
) -> None:
    moves = ALPHABETS[alphabet]
    alice = await play(moves, bundled)
    assert_story_stays_hidden(alice, moves)


TOKEN = "alphabet-attack-agent-token"


@pytest.fixture
async def servers() -> AsyncIterator[None]:
    yield
    await shutdown_servers()


async def remote_agent(url: str, moves: Sequence[str], frames: list[str]) -> None:
    """alice as a remote agent: keeps every frame the arena sends, plays `moves` in turn."""
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with aiohttp.ClientSession() as session, session.ws_connect(url, headers=headers) as ws:
        turn = 0
        async for message in ws:
            frames.append(message.data)
            data = json.loads(message.data)
            if data["type"] == "observation":
                registers = data["request"]["registers"]
                reply = {r: moves[(turn + i) % len(moves)] for i, r in enumerate(registers)}
                turn += len(registers)
                await ws.send_json(
                    {"type": "move", "request_id": data["request_id"], "moves": reply}
                )


async def test_covering_the_alphabet_reveals_nothing_over_the_remote_protocol(
    monkeypatch: pytest.MonkeyPatch, servers: None
) -> None:
    moves = ALPHABETS["characters"]
    monkeypatch.setenv("ALPHABET_AGENT_TOKEN", TOKEN)
    spec = parse_spec("remote:alice?port=0&timeout=20&token_env=ALPHABET_AGENT_TOKEN")
    player = create_remote_player(spec, PlayerContext(role="alice"))
    url = await player.start()
    frames: list[str] = []
    agent = asyncio.create_task(remote_agent(url, moves, frames))
    source = game_source(len(moves))
    result = await run_game(
        source, {"alice": player}, NgramJudge(), rounds=2, game_map=game_map(source)
    )
    await shutdown_servers()  # closes the connection: the agent's loop ends
    await asyncio.wait_for(agent, 10)
    assert result.error is None, result.error
    observations = [json.loads(f) for f in frames if '"observation"' in f]
    assert len(observations) == 2 * len(moves)
    terms = [
        term
        for o in observations
        for item in [
            *o["request"]["history"],
            *(i for m in o["request"]["previous_rounds"] for i in m["history"]),
        ]
        if item["kind"] == "reward"
        for term in item["terms"]
    ]
    assert len(terms) >= 2 * len(moves) + 1
    assert all(t["hidden"] and not t["bits"] and not t["tokens"] for t in terms)
    wire = "\n".join(frames)
    assert STORY not in wire and SECOND not in wire
    assert not any(word in wire for word in ("miller", "walked", "river", "dawn"))
