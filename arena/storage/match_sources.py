"""What a stored tournament's matches were played with, to play them again elsewhere (`arena
rescore`): each match's game row (its text included) and the participant rows of its seats,
so a copy of the tournament points at the same games, maps and participants."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import Engine, select
from sqlmodel import col

from arena.storage.records import GameInfo
from arena.storage.tables import Game, Match, Participant, Seat, Tournament


@dataclass(frozen=True)
class MatchSources:
    """``game_of``: match key -> game id; ``games``: game id -> the stored game;
    ``participants``: (name, spec) -> participant id, for every seat of the matches."""

    game_of: Mapping[str, int]
    games: Mapping[int, GameInfo]
    participants: Mapping[tuple[str, str], int]


def match_sources(engine: Engine, tournament: str) -> MatchSources:
    """The games and participants of every stored match of `tournament`."""
    matches = (
        select(col(Match.key), col(Match.game_id))
        .join(Tournament, col(Tournament.id) == col(Match.tournament_id))
        .where(col(Tournament.name) == tournament)
    )
    games = (
        select(Game)
        .where(col(Game.id).in_(
            select(col(Match.game_id))
            .join(Tournament, col(Tournament.id) == col(Match.tournament_id))
            .where(col(Tournament.name) == tournament)
        ))
    )
    people = (
        select(col(Participant.name), col(Participant.spec), col(Participant.id))
        .join(Seat, col(Seat.participant_id) == col(Participant.id))
        .join(Match, col(Match.id) == col(Seat.match_id))
        .join(Tournament, col(Tournament.id) == col(Match.tournament_id))
        .where(col(Tournament.name) == tournament)
        .distinct()
    )
    with engine.connect() as conn:
        game_of = {str(key): int(game) for key, game in conn.execute(matches)}
        found = {
            int(r["id"]): GameInfo(
                r["name"], r["version"], r["dialect"], r["code_sha256"], r["source"],
                r["filename"],
            )
            for r in conn.execute(games).mappings()
        }
        ids: dict[tuple[str, str], int] = {}
        for name, spec, ident in conn.execute(people):
            if ident is not None:
                ids.setdefault((str(name), str(spec)), int(ident))  # a name's first row
    return MatchSources(game_of, found, ids)
