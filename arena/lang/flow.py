"""Information flow: which hidden sources each value of a round was computed from.

What a seat may learn is decided by where values come from, never by whether their text
can be spelled from pieces the seat has seen (a seat whose own moves cover the alphabet of
a story can spell the story, yet has not seen it). Every value the evaluator builds carries
an `Origin`: the *labels* of the values it was computed from. A label names one value:

- atomic labels, for values no seat can compute: a map text (`story()` at one call site),
  a player's move, a random draw (`sample`, `shuffle`). A seat knows one only when it was
  given it: its own move, a public register it was shown, a bare register or `story()`
  revealed to it;
- derived labels, minted when a computed value is stored in a register, defined as the
  labels it was computed from. A seat knows one when it was given it (a bare register
  revealed), or when it knows every label of its definition (it could compute the value
  itself: game code and judge are public; randomness is an atomic draw).

Literals and empty registers have no labels: public. Operators and built-ins union the
labels of their inputs, so a value equal by text to one the seat has seen, but computed
from a hidden source, stays hidden.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

Sources = frozenset[str]
PUBLIC: Sources = frozenset()


@dataclass(frozen=True)
class Origin:
    """Where one value came from. `exact`: the value *is* the one labelled value (a bare
    register, a `story()` call, a draw), so showing it shows that label's value whole;
    otherwise it was computed from `sources` and showing it gives none of them away."""

    sources: Sources = PUBLIC
    exact: bool = False

    @property
    def public(self) -> bool:
        return not self.sources


PUBLIC_ORIGIN = Origin()


def union(origins: Iterable[Origin]) -> Origin:
    """The origin of a value computed from values of these origins."""
    sources: set[str] = set()
    for origin in origins:
        sources.update(origin.sources)
    return Origin(frozenset(sources)) if sources else PUBLIC_ORIGIN


@dataclass
class _Closure:
    """What one seat knows: the labels it was given, closed under derivation."""

    given: set[str] = field(default_factory=set)  # the grants taken into account
    known: set[str] = field(default_factory=set)
    synced: int = 0  # derived labels (in minting order) checked so far


@dataclass
class Flow:
    """One round's ledger: each register's current origin and each derived label's
    definition. A register it does not list counts as holding an unknown hidden value."""

    registers: dict[str, Origin] = field(default_factory=dict)
    definitions: dict[str, Sources] = field(default_factory=dict)
    minted: int = 0
    _derived: list[str] = field(default_factory=list)  # minting order: a topological order
    _dependents: dict[str, list[str]] = field(default_factory=dict)
    _closures: dict[str, _Closure] = field(default_factory=dict)

    @classmethod
    def public(cls, registers: Iterable[str]) -> Flow:
        """A ledger where every listed register holds a public value (a fresh round)."""
        return cls(registers=dict.fromkeys(registers, PUBLIC_ORIGIN))

    def mint(self, name: str, definition: Sources = PUBLIC) -> str:
        """A new label (unique within the round); atomic unless `definition` is given."""
        self.minted += 1
        label = f"{name}#{self.minted}"
        if definition:
            self.definitions[label] = definition
            self._derived.append(label)
            for part in definition:
                self._dependents.setdefault(part, []).append(label)
        return label

    def atomic(self, name: str) -> Origin:
        """A fresh value no seat can compute (a move, a draw)."""
        return Origin(frozenset({self.mint(name)}), exact=True)

    def register(self, name: str) -> Origin:
        default = Origin(frozenset({f"register {name}"}), exact=True)
        return self.registers.get(name, default)

    def store(self, register: str, origin: Origin, line: int) -> None:
        """`register` now holds a value of this origin; a computed one gets its own label,
        so revealing the register later shows that value (not what it was computed from)."""
        if not origin.public and not origin.exact:
            label = self.mint(f"{register}@{line}", origin.sources)
            origin = Origin(frozenset({label}), exact=True)
        self.registers[register] = origin

    def knows(self, seat: str, given: Collection[str], sources: Sources) -> bool:
        """Does `seat`, given the labels `given` (only ever growing within the round),
        know every label of `sources`? Kept incrementally per seat: each label becomes
        known at most once, so a loop's long chain of stores is not walked again."""
        closure = self._closures.get(seat)
        if closure is None or not closure.given <= set(given):
            closure = self._closures[seat] = _Closure()
        for label in self._derived[closure.synced :]:  # minted since: in topological order
            if self.definitions[label] <= closure.known:
                closure.known.add(label)
        closure.synced = len(self._derived)
        fresh = [label for label in given if label not in closure.given]
        closure.given.update(fresh)
        self._learn(closure, fresh)
        return sources <= closure.known

    def _learn(self, closure: _Closure, labels: Iterable[str]) -> None:
        """Add given labels and every derived label they complete."""
        queue = list(labels)
        while queue:
            label = queue.pop()
            if label in closure.known:
                continue
            closure.known.add(label)
            for dependent in self._dependents.get(label, ()):
                if dependent not in closure.known and self.definitions[dependent] <= closure.known:
                    queue.append(dependent)
