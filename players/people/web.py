"""`human:web?name=<person>` — a person plays this seat from the browser (the play server).

The player hands each `MoveRequest` (the seat's information set, nothing more) to the
`PeopleDesk` in its `PlayerContext` under the person's name and waits for the browser to
answer it. The desk is the play server's (`arena.tournaments.play`), lent to the players of
the runs it starts (`Registry.with_desk`); it shows a person the moves waiting for them only
on a connection that proved it is that person with their own secret (a name alone gets
nothing, `arena.tournaments.play.people`). A move nobody answers is bounded by the runtime's
move timeout (a tournament's `move_timeout`): the wait is cancelled, the request leaves the
queue, and the seat fails that attempt and then forfeits like any player that times out.

Outside a play server (`arena run` of a file with `human:web` entrants) the seat has no desk:
nobody could answer, so it forfeits at once rather than waiting out its timeout.
"""

from __future__ import annotations

from collections.abc import Mapping

from arena.errors import ConfigError, PermanentPlayerError
from arena.plugins.plugin_types import PlayerContext
from arena.protocols.judge import Judge
from arena.protocols.people import MAX_NAME_CHARS, PeopleDesk, person_name_problem
from arena.protocols.player import MoveRequest, Player
from arena.spec_params import Param
from arena.specs import Spec, shorten

WEB = "web"
PARAMS = (
    Param("name", "str", None, "human:web only: the person's name on the play page"),
)


NO_DESK = ("plays in the browser (human:web) and no play server runs this match, so nobody "
           "can answer; run the tournament with `arena play-server --tournament FILE`")


class WebHumanPlayer:
    """A seat whose moves come from a person's browser, through the desk."""

    def __init__(self, person: str, name: str, judge: Judge | None = None,
                 desk: PeopleDesk | None = None) -> None:
        self.person = person
        self._name = name
        self._judge = judge  # counts tokens on the page as the runtime will cut the move
        self._desk = desk

    @property
    def name(self) -> str:
        return self._name

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        if self._desk is None:
            raise PermanentPlayerError(f"{self.person} {NO_DESK}")
        return await self._desk.ask(self.person, request, self._judge)


def create_web_human_player(
    spec: Spec, judge: Judge | None = None, desk: PeopleDesk | None = None
) -> WebHumanPlayer:
    person = spec.params.get("name", "").strip()
    if person_name_problem(person):
        raise ConfigError(
            f"Player spec '{shorten(spec.raw)}' needs the person's name, e.g. "
            f"'human:web?name=ada' (up to {MAX_NAME_CHARS} letters, digits, '_', '-', '.'); "
            "the person plays under that name on the play page (`arena play-server`)."
        )
    return WebHumanPlayer(person, spec.raw, judge, desk)


def create_human(spec: Spec, ctx: PlayerContext) -> Player:
    """Factory of the `human` kind: `human` plays in the terminal, `human:web?name=...` in
    the browser."""
    from arena.players.people.terminal import create_human_player

    if spec.arg == WEB:
        spec.expect_params(("name",), "player")
        return create_web_human_player(spec, ctx.judge, ctx.desk)
    if spec.arg:
        raise ConfigError(
            f"Player spec '{spec.raw}': 'human' takes no ':' argument but 'web'. Write "
            "'human' (terminal) or 'human:web?name=<person>' (browser)."
        )
    if "name" in spec.params:
        raise ConfigError(
            f"Player spec '{spec.raw}': 'name' goes with the browser seat. Write "
            "'human:web?name=<person>', or 'human' for the terminal."
        )
    return create_human_player(spec, ctx)
