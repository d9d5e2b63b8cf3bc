"""Storage-agnostic input records for ratings and normalisation.

The storage layer converts database rows into these plain frozen dataclasses; everything in
``arena.tournaments.ratings`` and ``arena.tournaments.ratings.normalisation`` is a pure
function of them.

A :class:`MatchRecord` is one match of one game on one map. Each :class:`SeatRecord` is one
active role (seat) in it, with the participant who played it, its match score in bits (the best
round score, SCORING.md section 1), its per-round scores and a forfeit flag.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from arena.tournaments.ratings.errors import RatingInputError

Mode = Literal["eval", "head_to_head"]
MODES: tuple[str, ...] = ("eval", "head_to_head")


@dataclass(frozen=True)
class SeatRecord:
    """One seat (active role) of a match.

    ``score`` is the match score in bits (best round score); it is ``None`` exactly when the
    participant forfeited and no round was scored. A forfeiting seat may keep the scores of the
    rounds it completed in ``round_scores``; ``None`` entries there are forfeited rounds.
    ``npc`` marks seats played by the tournament's NPC participant (never rated).
    """

    role: str
    participant: str
    score: float | None
    forfeit: bool = False
    round_scores: tuple[float | None, ...] = ()
    npc: bool = False

    def __post_init__(self) -> None:
        if self.score is None and not self.forfeit:
            raise RatingInputError(
                f"Seat '{self.role}' of participant '{self.participant}' has no score but is "
                "not marked as a forfeit. Pass forfeit=True, or give the match score in bits."
            )
        if self.score is not None and not math.isfinite(self.score):
            raise RatingInputError(
                f"Seat '{self.role}' of participant '{self.participant}' has score "
                f"{self.score!r}; match scores must be finite numbers of bits (or None with "
                "forfeit=True)."
            )


@dataclass(frozen=True)
class MatchRecord:
    """One match: a game on a map, with its seats.

    ``mode`` follows SCORING.md section 2: in ``"eval"`` mode exactly one seat is not an NPC
    (the main character) and participants are compared across matches that are comparable
    (:meth:`comparability_key`); in ``"head_to_head"`` mode the non-NPC seats of the match are
    compared with each other. ``order`` sorts matches for the online Elo view (for example a
    sequence number or a finish timestamp); ties are broken by ``match_id``. ``rounds`` is the
    configured number of rounds, which is part of comparability.
    """

    match_id: str
    game: str
    map_id: str
    seats: tuple[SeatRecord, ...]
    mode: Mode = "head_to_head"
    rounds: int = 1
    order: float = 0.0
    game_version: str = ""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise RatingInputError(
                f"Match '{self.match_id}' has unknown mode '{self.mode}'. "
                f"Valid options: {', '.join(MODES)}."
            )
        # Derived once: a frozen dataclass sets them through object.__setattr__.
        object.__setattr__(self, "_players", tuple(s for s in self.seats if not s.npc))
        object.__setattr__(self, "_key", None)
        roles = [s.role for s in self.seats]
        if len(set(roles)) != len(roles):
            raise RatingInputError(
                f"Match '{self.match_id}' lists a role twice: {roles}. Each seat needs its own "
                "role name (for example 'black' and 'white')."
            )
        if self.mode == "eval" and len(self.players) != 1:
            names = [s.participant for s in self.players]
            raise RatingInputError(
                f"Eval-mode match '{self.match_id}' has {len(names)} non-NPC seats {names}; it "
                "needs exactly one main character. Mark the other seats npc=True, or use "
                "mode='head_to_head'."
            )

    @property
    def players(self) -> tuple[SeatRecord, ...]:
        """The seats played by rated participants (not NPCs); computed once, at creation
        (normalisation and the ratings ask for it per match many times over)."""
        players: tuple[SeatRecord, ...] = getattr(self, "_players")  # noqa: B009
        return players

    @property
    def main(self) -> SeatRecord:
        """The main character's seat of an eval-mode match."""
        if self.mode != "eval":
            raise RatingInputError(
                f"Match '{self.match_id}' is a head-to-head match; only eval-mode matches have a "
                "main character. Use .players instead."
            )
        return self.players[0]

    def comparability_key(self) -> tuple[object, ...]:
        """Matches with equal keys were played on equal terms (SCORING.md section 2)."""
        key: tuple[object, ...] | None = getattr(self, "_key", None)
        if key is None:
            npcs = tuple(sorted((s.role, s.participant) for s in self.seats if s.npc))
            role = self.main.role if self.mode == "eval" else ""
            key = (self.game, self.game_version, role, self.map_id, npcs, self.rounds)
            object.__setattr__(self, "_key", key)
        return key


@dataclass(frozen=True)
class NoResultRecord:
    """A match played without a result by its game's rules (XGL.md section 9: an ensure
    line over its budget in dialect xent, a provider that could not be reached by the
    benchmark's player). It enters no score, rating or normalisation; it is counted and
    shown per participant and game (SCORING.md section 1)."""

    match_id: str
    game: str
    map_id: str
    participant: str  # the rated seat's participant (each rated seat of a multi-seat match)
    reason: str = ""

