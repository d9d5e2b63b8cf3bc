"""Roles that measure nothing (fault found in `describe_to_partner` with a random NPC).

In eval mode a (game, role) is compared across entrants who played it against the same NPCs
on the same maps (SCORING.md section 2). When every entrant gets the same score on every map
— the NPC ignores what the main character does, say — the role cannot tell entrants apart:
its comparisons would all be ties that pull every rating towards the others. Such a role is
flagged at the end of a run and left out of the ratings, with a note naming the NPC.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from arena.tournaments.ratings.outcomes import TIE_TOLERANCE_BITS
from arena.tournaments.ratings.records import MatchRecord, SeatRecord

CellKey = tuple[object, ...]  # MatchRecord.comparability_key() without the map


@dataclass(frozen=True)
class UninformativeRole:
    """A (game, role) whose entrants all scored alike on every map they shared."""

    game: str
    role: str
    npcs: tuple[tuple[str, str], ...]  # (role, participant) of the NPC seats
    entrants: tuple[str, ...]
    maps: int  # maps played by at least two entrants
    key: CellKey

    @property
    def note(self) -> str:
        npcs = ", ".join(f"{role}={who}" for role, who in self.npcs) or "none"
        return (
            f"{self.game} role {self.role} measures nothing with NPC(s) {npcs}: all "
            f"{len(self.entrants)} entrants scored the same on each of {self.maps} map(s); "
            "left out of the ratings. Use an NPC that reacts to this role's moves."
        )


def _cell(record: MatchRecord) -> CellKey:
    game, version, role, _map, npcs, rounds = record.comparability_key()
    return (game, version, role, npcs, rounds)


def _all_tie(seats: list[SeatRecord]) -> bool:
    """Every pair of the seats ties (`compare_seats` gives 0.5): all forfeits, or no
    forfeit and every score within the tie tolerance of every other (max - min <= it)."""
    gone = [s.forfeit for s in seats]
    if all(gone):
        return True
    if any(gone):
        return False
    scores = [float(s.score) for s in seats if s.score is not None]
    return max(scores) - min(scores) <= TIE_TOLERANCE_BITS


def uninformative_roles(records: Iterable[MatchRecord]) -> tuple[UninformativeRole, ...]:
    """The eval-mode roles where every map played by two or more entrants is a tie between
    all of them (forfeits included), in (game, role) order."""
    by_cell: dict[CellKey, dict[str, list[MatchRecord]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        if record.mode == "eval":
            by_cell[_cell(record)][record.map_id].append(record)
    found = []
    for key, maps in by_cell.items():
        shared = [
            recs for recs in maps.values() if len({r.main.participant for r in recs}) >= 2
        ]
        if not shared:
            continue
        tied = all(_all_tie([r.main for r in recs]) for recs in shared)
        if tied:
            first = shared[0][0]
            npcs = tuple(sorted((s.role, s.participant) for s in first.seats if s.npc))
            entrants = sorted({r.main.participant for recs in maps.values() for r in recs})
            found.append(
                UninformativeRole(
                    first.game, first.main.role, npcs, tuple(entrants), len(shared), key
                )
            )
    return tuple(sorted(found, key=lambda u: (u.game, u.role, str(u.key))))


def without_uninformative(
    records: Iterable[MatchRecord],
) -> tuple[list[MatchRecord], tuple[UninformativeRole, ...]]:
    """The records minus those of uninformative roles, and those roles."""
    kept = list(records)
    flagged = uninformative_roles(kept)
    dropped = {u.key for u in flagged}
    return [r for r in kept if r.mode != "eval" or _cell(r) not in dropped], flagged
