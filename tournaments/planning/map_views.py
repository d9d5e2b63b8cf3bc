"""What each role of a game sees of a map, so a plan never seats an entrant on one map in
two seats that see different things (issue 24: a seat that saw the hidden story must not
come back to the map as the seat that guesses it).

A role's *view* is a label: two roles with the same view see the same of every map, so an
entrant may play both on one map (the head-to-head seat swap on the same map, a fairness
device, is kept for them); any other pair of roles gets maps apart. Views are decided
conservatively from the program:

- every non-omniscient role (alice, bob, ...) has a view of its own: what reaches it is
  decided at run time by `reveal`, rewards and moves;
- the omniscient roles (black, white, env) share one view when the whole map is in the
  registers before anyone moves: every `story()`, `sample()` and `shuffle()` call comes
  before the first `elicit` and no `replay` does. Omniscient seats see every register at
  each move, so each of them has seen every map text, and the draws of the map's play
  seed, by its first move. Otherwise each has a view of its own.
"""

from __future__ import annotations

from collections.abc import Iterable

from arena.lang import ast
from arena.lang.evaluator import iter_calls
from arena.lang.names import OMNISCIENT

SHARED_OMNISCIENT = "omniscient"  # the view omniscient roles share when the map is set first
_MAP_DRAWS = frozenset({"story", "sample", "shuffle"})  # values fixed by the map's seeds


def map_set_before_first_move(program: ast.Program) -> bool:
    """True when every map text and seeded draw is made before the first elicit, on a
    straight path (no replay before it)."""
    moved = False
    for instruction in program.instructions:
        if instruction.name == "elicit":
            moved = True
        elif instruction.name == "replay" and not moved:
            return False
        if moved and any(c.func in _MAP_DRAWS for c in iter_calls(instruction.call)):
            return False
    return True


def map_views(program: ast.Program, roles: Iterable[str]) -> dict[str, str]:
    """role -> view (module docstring): roles sharing a view may share a map."""
    shared = map_set_before_first_move(program)
    return {r: SHARED_OMNISCIENT if shared and r in OMNISCIENT else r for r in roles}
