"""Information sets: what each player may see (XGL.md section 4).

The runtime records, per player, every reveal (as valued at the time), its own moves, its
own rewards and its failed ensures. A `MoveRequest` is assembled only from that record and
the public registers; omniscient players additionally see every register.

Beside the texts, each player holds the labels of the values it was given (`arena.lang.
flow`): its moves, the public registers it was shown, bare registers revealed to it. Its
reward feedback is decided by those labels, not by the texts it could spell.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from arena.lang import names
from arena.lang.flow import Flow, Origin
from arena.lang.values import Text, XentSum
from arena.protocols.player import HistoryItem, RevealedValue
from arena.runtime.feedback import reward_feedback


def render_register(value: Text | list[str]) -> str:
    """How a register's value is shown to players (lists as JSON arrays)."""
    return json.dumps(value) if isinstance(value, list) else value.text


@dataclass
class InfoSet:
    """One player's information within one round."""

    player: str
    history: list[HistoryItem] = field(default_factory=list)
    reveals: list[RevealedValue] = field(default_factory=list)

    @property
    def omniscient(self) -> bool:
        return self.player in names.OMNISCIENT

    given: set[str] = field(default_factory=set)  # labels of values it was given

    def see(self, origin: Origin) -> None:
        """The player was shown this value whole: it knows the value's label from now on.
        A value computed from others (`s // t`) gives none of them away."""
        if origin.exact:
            self.given.update(origin.sources)

    def visible(
        self, registers: Mapping[str, Text | list[str]], referenced: Collection[str]
    ) -> dict[str, str]:
        """Register values this player may see among the program's registers: all of them
        for omniscient players, the public ones for the others."""
        chosen = referenced if self.omniscient else names.PUBLIC_REGISTERS.intersection(referenced)
        return {r: render_register(registers[r]) for r in sorted(chosen)}

    def add_reveal(self, label: str, value: str, line: int, origin: Origin) -> None:
        self.see(origin)
        revealed = RevealedValue(label=label, value=value, line=line)
        self.reveals.append(revealed)
        self.history.append(HistoryItem(kind="reveal", line=line, reveal=revealed))

    def add_move(
        self, line: int, moves: Mapping[str, str], cut: tuple[str, ...], origins: list[Origin]
    ) -> None:
        for origin in origins:
            self.see(origin)
        self.history.append(HistoryItem(kind="move", line=line, moves=dict(moves), cut=cut))

    def add_failed_ensure(self, line: int, condition: str) -> None:
        self.history.append(HistoryItem(kind="failed_ensure", line=line, condition=condition))

    def add_reward(
        self, line: int, amount: XentSum, flow: Flow, public: Collection[Origin]
    ) -> None:
        """Record a reward as this player may see it (`arena.runtime.feedback`): terms
        over hidden values as one rounded total, per-token values only over values it
        knows. `public`: the origins of the public registers' current values."""
        for origin in public:
            self.see(origin)
        given = None if self.omniscient else self.given
        total, terms = reward_feedback(amount, flow, self.player, given)
        self.history.append(HistoryItem(kind="reward", line=line, reward=total, terms=terms))

    def round_score(self) -> float:
        """This player's round score as it can know it: the sum of its rewards as shown
        (exactly the score for omniscient players, rounded where text was hidden)."""
        return float(sum(item.reward for item in self.history if item.kind == "reward"))
