"""No LLM player is ever shown anything outside its information set (XGL.md section 4).

Real matches are played by litellm players talking to the local test server over HTTP,
one server per seat. Secrets are planted in map texts and in other seats' moves; for every
seat we check both the prompts the builders make from the requests the seat received
(chat and completion form, with and without the reasoning scaffold) and the bytes its
server actually received. Positive controls check that what a seat may see does arrive.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from importlib.util import find_spec
from urllib.parse import urlencode

import pytest

from arena.judges.ngram import NgramJudge
from arena.players.llm.player import create_llm_player
from arena.players.llm.prompting import PromptOptions, build_messages, build_prompt_text
from arena.plugins.plugin_types import PlayerContext
from arena.protocols.player import MoveRequest, Player
from arena.runtime.maps import GameMap
from arena.specs import parse_spec
from tests.runtime.helpers import events_of, run_game
from tests.support.openai_compat_server import ServerState, start_server

pytestmark = [
    pytest.mark.llm,
    # find_spec, not importorskip: importing litellm at collection time is slow.
    pytest.mark.skipif(find_spec("litellm") is None, reason="needs litellm (xent-arena[llm])"),
]


@dataclass
class Recorder:
    """Delegates to a real player and keeps every request the seat received."""

    inner: Player
    requests: list[MoveRequest] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.inner.name

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        self.requests.append(request)
        return await self.inner.move(request)


@dataclass
class SeatLog:
    prompts: str  # every prompt the builders make from the seat's requests
    http: str  # every request body the seat's server received
    requests: int


def prompts_for(requests: Sequence[MoveRequest]) -> str:
    texts = []
    for request in requests:
        for options in (PromptOptions(), PromptOptions(cot=True)):
            texts += [m["content"] for m in build_messages(request, options)]
            texts.append(build_prompt_text(request, options))
    return "\n".join(texts)


async def play(
    source: str, moves: Mapping[str, Sequence[str]], stories: Mapping[str, str], rounds: int = 2
) -> dict[str, SeatLog]:
    """Play `source` with one litellm player per role; each role's server replies with
    that role's moves in order."""
    recorders: dict[str, Recorder] = {}
    states: dict[str, ServerState] = {}
    async with AsyncExitStack() as stack:
        for role, texts in moves.items():
            replies = [{"reply": f"<move>{t}</move>"} for t in texts] * rounds
            state = ServerState(default=replies[-1])
            state.script(replies)
            url = await stack.enter_async_context(start_server(state=state))
            spec = parse_spec(f"litellm:openai/seat-{role}?" + urlencode({"api_base": url}))
            recorders[role] = Recorder(create_llm_player(spec, PlayerContext(role=role)))
            states[role] = state
        result = await run_game(source, recorders, NgramJudge(), rounds=rounds,
                                game_map=GameMap(0, stories))
    assert not events_of(result, "forfeit") and not events_of(result, "runtime_error")
    return {
        role: SeatLog(
            prompts=prompts_for(recorders[role].requests),
            http="\n".join(json.dumps(r.body, ensure_ascii=False) for r in states[role].requests),
            requests=len(recorders[role].requests),
        )
        for role in moves
    }


def check(logs: Mapping[str, SeatLog], hidden: Mapping[str, set[str]],
          shown: Mapping[str, set[str]]) -> None:
    for role, log in logs.items():
        assert log.requests > 0 and log.prompts and log.http
        for secret in hidden[role]:
            assert secret not in log.prompts, f"{secret!r} leaked into {role}'s prompt"
            assert secret not in log.http, f"{secret!r} reached {role}'s model over HTTP"
        for visible in shown[role]:
            assert visible in log.prompts and visible in log.http, (role, visible)


SECRET_SHARING = """\
assign(s=story(), c=story())
reveal(alice, s)
elicit(alice, s2, 10)
elicit(alice, s3, 10)
reveal(bob, s2)
reveal(carol, s3)
reveal(david, s2, s3)
elicit(david, t0, 10)
elicit(bob, t2, 10)
elicit(carol, t3, 10)
reward(bob, xed(s | t2))
reward(carol, xed(s | t3))
reward(david, xed(s | t0))
reward(alice, xed(s | t0) + xed(s | t0) - xed(s | t2) - xed(s | t3))
"""


async def test_secret_sharing_keeps_every_seat_to_its_information_set() -> None:
    stories = {"1:9": "zanzibar sailed home", "1:20": "quokka keeps the key"}
    moves = {
        "alice": ["xylophone", "yurt"],  # s2 (for bob and david), s3 (for carol and david)
        "david": ["ferret"],
        "bob": ["walrus"],
        "carol": ["narwhal"],
    }
    logs = await play(SECRET_SHARING, moves, stories)
    others = {"ferret", "walrus", "narwhal"}
    hidden = {
        "alice": {"quokka"} | others,
        "bob": {"zanzibar", "quokka", "yurt"} | others - {"walrus"},
        "carol": {"zanzibar", "quokka", "xylophone"} | others - {"narwhal"},
        "david": {"zanzibar", "quokka"} | others - {"ferret"},
    }
    shown = {
        "alice": {"zanzibar", "xylophone", "yurt"},
        "bob": {"xylophone", "walrus"},
        "carol": {"yurt", "narwhal"},
        "david": {"xylophone", "yurt", "ferret"},
    }
    check(logs, hidden, shown)


GUESSING = """\
assign(a="guess the hidden sentence", s=story())
beacon(flag_1)
elicit(bob, t, 6)
reward(bob, xed(s | t))
replay(flag_1, 2)
"""


async def test_guessing_game_never_shows_the_hidden_story() -> None:
    logs = await play(GUESSING, {"bob": ["lantern"]}, {"1:40": "marmalade under moonlight"})
    check(logs, {"bob": {"marmalade", "moonlight"}}, {"bob": {"guess the hidden", "lantern"}})
    assert "hidden from you" in logs["bob"].prompts  # reward total shown, no per-token values


RELAY = """\
assign(s=story(), s1=story())
reveal(alice, s, s1)
elicit(alice, t, 10)
reveal(carol, t)
elicit(carol, t0, 10)
assign(t=t // t0)
reveal(bob, t)
reward(alice, xed(s | t))
elicit(bob, t1, 10)
reward(bob, xed(s | t1) + xed(t1 | s))
reward(carol, xed(s | t1) - xed(s1 | t1))
"""


async def test_relay_guessing_game_hides_what_carol_cut() -> None:
    stories = {"1:9": "pelican stole bread", "1:21": "toucan never lies"}
    moves = {"alice": ["pelican hint STOP toucan leak"], "carol": ["STOP"], "bob": ["guess"]}
    logs = await play(RELAY, moves, stories)
    hidden = {
        "alice": set(),
        "carol": {"stole bread", "never lies"},
        "bob": {"stole bread", "never lies", "toucan", "STOP"},  # cut away by carol
    }
    shown = {"alice": {"pelican stole bread"}, "carol": {"toucan leak"}, "bob": {"pelican hint"}}
    check(logs, hidden, shown)
