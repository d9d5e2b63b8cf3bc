"""`human:web?name=...`: requests wait on the desk under the person's name until answered;
only that person can answer, with one text per register; a timeout takes the request off
the queue; bad specs are one sentence each."""

from __future__ import annotations

import asyncio

import pytest

from arena.errors import ConfigError, PlayerError
from arena.human_desk import get_desk
from arena.players.people.web import WebHumanPlayer
from arena.plugins.plugin_types import PlayerContext
from arena.plugins.registry import Registry
from arena.protocols.player import GameView, MoveRequest


def request(registers: tuple[str, ...] = ("t",)) -> MoveRequest:
    return MoveRequest(
        game=GameView(name="g", code="elicit(t, 5)", dialect="xgl"), role="black", round=1,
        rounds=1, line=1, registers=registers, max_len=5, visible={}, reveals=(), history=(),
    )


def test_the_person_answers_their_waiting_move() -> None:
    async def scenario() -> dict[str, str]:
        desk = get_desk()
        changes: list[str] = []
        desk.listen(changes.append)
        player = WebHumanPlayer("ada", "human:web?name=ada")
        move = asyncio.create_task(player.move(request(("t", "t1"))))
        await asyncio.sleep(0)
        (waiting,) = desk.waiting("ada")
        assert desk.waiting("bea") == []
        with pytest.raises(PlayerError):
            desk.answer("bea", waiting.id, {"t": "x", "t1": "y"})  # not bea's move
        with pytest.raises(PlayerError, match="t, t1"):
            desk.answer("ada", waiting.id, {"t": "x"})  # a register missing
        desk.answer("ada", waiting.id, {"t": "x", "t1": "y"})
        moves = dict(await move)
        assert desk.waiting("ada") == [] and changes == ["ada", "ada"]
        return moves

    assert asyncio.run(scenario()) == {"t": "x", "t1": "y"}


def test_a_timeout_takes_the_move_off_the_queue() -> None:
    async def scenario() -> None:
        desk = get_desk()
        player = WebHumanPlayer("ada", "human:web?name=ada")
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05):
                await player.move(request())
        assert desk.waiting("ada") == []

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("spec", "says"),
    [("human:web", "needs the person's name"), ("human:web?name=a b", "needs the person's name"),
     ("human:web?name=" + "a" * 33, "up to 32 letters"),  # a name the page could not take
     ("human:tty", "takes no ':' argument but 'web'"), ("human?name=ada", "goes with the browser")],
)
def test_bad_specs_say_what_to_write(spec: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        Registry.load().create_player(spec, PlayerContext())


def test_the_web_seat_is_registered_through_the_plugin_hook() -> None:
    player = Registry.load().create_player("human:web?name=ada", PlayerContext())
    assert isinstance(player, WebHumanPlayer) and player.person == "ada"
