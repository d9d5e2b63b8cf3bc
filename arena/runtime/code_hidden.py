"""A move request without the program's text: the player's information set alone.

XGL.md section 4 lets every player read the game's code, and a tournament shows it. A
measurement that must depend on the game and not on how it is spelled (the game space's
Def. 35 and 37, `TransferSetting.view = "infoset"`) hides it instead: two programs that
play the same game then put the same request before the player, so the untuned model moves
alike at both (issue 36: with the code shown it played an unrecognised copy up to 11 bits
worse, and V between copies measured the spelling, not the game).

What goes, besides the code: everything that only spells the program. Line numbers (a dead
line moves the elicit to another line), the header, the sources of reward terms (`nex(t)`
and `-xent(t)` score alike) and of a failed condition, any reveal label that is not a
register's name, and the registers a player sees that add no value: an empty one (it reads
as a register the program never mentions) and one holding the same text as a register
shown before it (an omniscient seat sees `x` after `assign(x=s)`, a dead copy of `s`).
Register names are spelling too: the request's registers are renamed within their class
(`names.REGISTER_CLASSES`) in the order the request first shows them (its history first,
then the registers it sees in the order of their values), and the player's
reply is read back through the same names (`HiddenRequest.moves`). What stays is every value
the information set holds, each once: the registers the player may see, revealed values,
its own moves, rewards and per-token feedback.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace

from arena.lang import names
from arena.protocols.player import (
    GameView,
    HistoryItem,
    MoveRequest,
    RevealedValue,
    RoundMemory,
)

NO_LINE = 0  # what every line number reads when the code is hidden
HIDDEN_CONDITION = "(a condition of the game)"  # a failed ensure, without its source
UNNAMED_REVEAL = "(a value)"  # the label of a revealed expression that is not one register


@dataclass(frozen=True)
class HiddenRequest:
    """A request as the player sees it with the code hidden, and how to read its reply."""

    request: MoveRequest
    real_names: Mapping[str, str]  # shown register name -> the program's

    def moves(self, reply: Mapping[str, str]) -> dict[str, str]:
        """The player's moves (keyed by the shown names) under the program's names."""
        return {self.real_names[r]: text for r, text in reply.items()}


def without_code(request: MoveRequest) -> HiddenRequest:
    """`request` with the program's text and everything that spells it left out (see the
    module docstring); every value of the information set is kept."""
    view = request.game
    visible = _distinct_values(request.visible)
    shown = _shown_names(request, visible)
    rename = _Renamer(shown)
    hidden = replace(
        request,
        game=GameView(name=view.name, code="", dialect=view.dialect),
        line=NO_LINE,
        registers=tuple(shown[r] for r in request.registers),
        visible={shown[r]: v for r, v in visible.items()},
        reveals=tuple(rename.reveal(r) for r in request.reveals),
        history=tuple(rename.item(i) for i in request.history),
        previous_rounds=tuple(rename.memory(m) for m in request.previous_rounds),
        failed_condition=HIDDEN_CONDITION if request.failed_condition else "",
    )
    return HiddenRequest(hidden, {new: old for old, new in shown.items()})


def code_is_hidden(view: GameView) -> bool:
    """Whether a request's game view comes without its code (prompts then leave out the
    code and every line number)."""
    return not view.code


def _distinct_values(visible: Mapping[str, str]) -> dict[str, str]:
    """The non-empty values of `visible`, each once, in the order of the values (not of the
    names: the registers are renamed in this order)."""
    kept: dict[str, str] = {}
    for register, value in sorted(visible.items(), key=lambda item: (item[1], item[0])):
        if value and value not in kept.values():
            kept[register] = value
    return kept


def _registers_in_order(request: MoveRequest, visible: Mapping[str, str]) -> Iterator[str]:
    """Every register name the request shows, in the order the player meets them: earlier
    rounds, this round's history, the registers it sees, the registers to fill."""
    items = [i for m in request.previous_rounds for i in m.history] + list(request.history)
    for item in items:
        if item.reveal is not None:
            yield item.reveal.label
        yield from item.moves
    for revealed in request.reveals:
        yield revealed.label
    yield from visible
    yield from request.registers


def _shown_names(request: MoveRequest, visible: Mapping[str, str]) -> dict[str, str]:
    """Program name -> shown name: within each register class, the class's names in the
    order the request first shows its registers."""
    shown: dict[str, str] = {}
    taken: dict[str, int] = {}
    for register in _registers_in_order(request, visible):
        if register in shown or register not in names.ALL_REGISTERS:
            continue
        cls = names.register_class(register)
        pool = [r for r in names.ALL_REGISTERS if names.register_class(r) == cls]
        shown[register] = pool[taken.get(cls, 0)]
        taken[cls] = taken.get(cls, 0) + 1
    return shown


class _Renamer:
    """Rewrites history entries under the shown names, without lines or sources."""

    def __init__(self, shown: Mapping[str, str]) -> None:
        self.shown = shown

    def names(self, registers: Iterable[str]) -> tuple[str, ...]:
        return tuple(self.shown.get(r, r) for r in registers)

    def reveal(self, revealed: RevealedValue) -> RevealedValue:
        label = self.shown.get(revealed.label, UNNAMED_REVEAL)
        return RevealedValue(label=label, value=revealed.value, line=NO_LINE)

    def item(self, item: HistoryItem) -> HistoryItem:
        return replace(
            item,
            line=NO_LINE,
            moves={self.shown.get(r, r): text for r, text in item.moves.items()},
            cut=self.names(item.cut),
            terms=tuple(replace(t, source="") for t in item.terms),
            condition=HIDDEN_CONDITION if item.condition else "",
            reveal=None if item.reveal is None else self.reveal(item.reveal),
        )

    def memory(self, memory: RoundMemory) -> RoundMemory:
        return replace(memory, history=tuple(self.item(i) for i in memory.history))
