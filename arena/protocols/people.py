"""The contract between a seat played by a person and whoever asks the person for moves.

A `human:web?name=<person>` player (`arena.players.people.web`) hands each `MoveRequest` (its
seat's information set, nothing more) to the `PeopleDesk` it was given in its
`PlayerContext` and waits for the person's answer. The play server
(`arena.tournaments.play`) keeps the desk and lends it to the players of the runs it starts
(`Registry.with_desk`); outside a play server a person's seat has no desk and forfeits.

A person's name is what the desk and the play page key on: `person_name_problem` is its
one rule (the page, `human:web?name=`, invites).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from arena.protocols.judge import Judge
from arena.protocols.player import MoveRequest
from arena.specs import NAME_RE

MAX_NAME_CHARS = 32


def person_name_problem(name: str) -> str | None:
    """Why `name` cannot be a person's name (on the page, in `human:web?name=`), or None."""
    if not name:
        return "Enter a name, e.g. ada."
    if len(name) > MAX_NAME_CHARS or not NAME_RE.fullmatch(name):
        shown = name[:MAX_NAME_CHARS] + ("…" if len(name) > MAX_NAME_CHARS else "")
        return (f"The name {shown!r} is not allowed: use up to {MAX_NAME_CHARS} letters, "
                "digits, '_', '-' and '.', e.g. ada.")
    return None


@runtime_checkable
class PeopleDesk(Protocol):
    """Where people's seats ask for their moves."""

    async def ask(
        self, person: str, request: MoveRequest, judge: Judge | None = None
    ) -> Mapping[str, str]:
        """Queue `request` for `person` and wait for their answer, one text per register
        (cancellable: the runtime's move timeout takes it off the queue). `judge` is the
        match's, so the page counts tokens as the runtime will cut the move."""
        ...
