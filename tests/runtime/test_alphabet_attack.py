"""Issue 24, High 1: a seat must not rebuild a hidden story from its own reward feedback.

In `alternating_guessing` alice never sees the story `s` but is rewarded on `xed(s | t)`
after every move `t`. The old rule showed a term's per-token values once its texts could be
joined from texts the seat had seen, its own moves included: moves covering the story's
alphabet (characters, word pieces, whole words) made every term over `s` arrive in full,
tokens and bits. Feedback now follows where values come from (`arena.lang.flow`): `s` is a
map text never shown to alice, so those terms stay one rounded total, whatever she plays.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict
from pathlib import Path

import pytest

from arena.lang.loader import load_game
from arena.protocols.judge import Judge
from arena.protocols.player import HistoryItem, MoveRequest
from arena.runtime.maps import GameMap, story_requests
from judges.bundled_judge import create_bundled_judge
from judges.ngram import NgramJudge
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

