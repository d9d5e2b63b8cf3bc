"""`human:web?name=...`: requests wait on the desk its context lends (the play server's)
under the person's name until answered; only that person can answer, with one text per
register; a timeout takes the request off the queue; without a desk the seat forfeits at
once; bad specs are one sentence each."""

from __future__ import annotations

import asyncio

import pytest

from arena.errors import ConfigError, PermanentPlayerError, PlayerError
from arena.players.people.web import WebHumanPlayer
from arena.plugins.plugin_types import PlayerContext
from arena.plugins.registry import Registry
from arena.protocols.player import GameView, MoveRequest
from arena.tournaments.play.desk import HumanDesk, MatchNote


def request(registers: tuple[str, ...] = ("t",)) -> MoveRequest:
    return MoveRequest(
        game=GameView(name="g", code="elicit(t, 5)", dialect="xgl"), role="black", round=1,
        rounds=1, line=1, registers=registers, max_len=5, visible={}, reveals=(), history=(),
    )


def test_the_person_answers_their_waiting_move() -> None:
    async def scenario() -> dict[str, str]:
        desk = HumanDesk()
        changes: list[str] = []
        desk.listen(changes.append)
        # the desk reaches the player through the registry and its context, as in a run
        lent = Registry.load().with_desk(desk.lend(MatchNote(7, "play")))
        player = lent.create_player("human:web?name=ada", PlayerContext())
        assert isinstance(player, WebHumanPlayer)
        move = asyncio.create_task(player.move(request(("t", "t1"))))
        await asyncio.sleep(0)
        (waiting,) = desk.waiting("ada")
        assert desk.waiting("bea") == [] and waiting.note.number == 7
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
        desk = HumanDesk()
        player = WebHumanPlayer("ada", "human:web?name=ada", desk=desk)
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05):
                await player.move(request())
        assert desk.waiting("ada") == []

    asyncio.run(scenario())


def test_without_a_desk_the_seat_forfeits_at_once() -> None:
    """`arena run` of a file with a person's seat: nobody can answer, so no hour-long wait."""
    player = Registry.load().create_player("human:web?name=ada", PlayerContext())
    with pytest.raises(PermanentPlayerError, match="no play server runs this match"):
        asyncio.run(player.move(request()))


def test_a_registry_lends_its_desk_only_to_the_players_it_builds() -> None:
    registry = Registry.load()
    desk = HumanDesk()
    lent = registry.with_desk(desk)
    assert lent.desk is desk and registry.desk is None  # the process's registry is untouched
    assert lent.player_names() == registry.player_names()


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
