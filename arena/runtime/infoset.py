"""Information sets: what each player may see (XGL.md section 4).

The runtime records, per player, every reveal (as valued at the time), its own moves, its
own rewards and its failed ensures. A `MoveRequest` is assembled only from that record and
the public registers; omniscient players additionally see every register.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from arena.lang import names
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

    def known_texts(
        self,
        registers: Mapping[str, Text | list[str]],
        referenced: Collection[str],
        literals: Collection[str] = (),
    ) -> set[str]:
        """Every string this player has legitimately seen so far (the game code's string
        literals are public)."""
        known = set(literals)
        known.update(r.value for r in self.reveals)
        for item in self.history:
            known.update(item.moves.values())
        known.update(self.visible(registers, referenced).values())
        return known

    def visible(
        self, registers: Mapping[str, Text | list[str]], referenced: Collection[str]
    ) -> dict[str, str]:
        """Register values this player may see among the program's registers: all of them
        for omniscient players, the public ones for the others."""
        chosen = referenced if self.omniscient else names.PUBLIC_REGISTERS.intersection(referenced)
        return {r: render_register(registers[r]) for r in sorted(chosen)}

    def add_reveal(self, label: str, value: str, line: int) -> None:
        revealed = RevealedValue(label=label, value=value, line=line)
        self.reveals.append(revealed)
        self.history.append(HistoryItem(kind="reveal", line=line, reveal=revealed))

    def add_move(self, line: int, moves: Mapping[str, str], cut: tuple[str, ...]) -> None:
        self.history.append(HistoryItem(kind="move", line=line, moves=dict(moves), cut=cut))

    def add_failed_ensure(self, line: int, condition: str) -> None:
        self.history.append(HistoryItem(kind="failed_ensure", line=line, condition=condition))

    def add_reward(
        self,
        line: int,
        amount: XentSum,
        registers: Mapping[str, Text | list[str]],
        referenced: Collection[str],
        literals: Collection[str] = (),
    ) -> None:
        """Record a reward as this player may see it (`arena.runtime.feedback`): terms
        over hidden text as one rounded total, per-token values only over seen text."""
        known = None if self.omniscient else self.known_texts(registers, referenced, literals)
        total, terms = reward_feedback(amount, known)
        self.history.append(HistoryItem(kind="reward", line=line, reward=total, terms=terms))

    def round_score(self) -> float:
        """This player's round score as it can know it: the sum of its rewards as shown
        (exactly the score for omniscient players, rounded where text was hidden)."""
        return float(sum(item.reward for item in self.history if item.kind == "reward"))
