"""Information safety over every bundled game: for each non-omniscient seat, a unique secret
planted in each map text never reaches that seat unless the game revealed it to the seat
(or put it in a public register)."""

from __future__ import annotations

import secrets
from dataclasses import asdict
from pathlib import Path

import pytest

from arena.judges.ngram import NgramJudge
from arena.lang import names
from arena.lang.loader import load_game
from arena.runtime.maps import GameMap, story_requests
from arena.runtime.match import active_players
from tests.runtime.helpers import ListPlayer, events_of, run_game

REPO = Path(__file__).resolve().parents[2]
GAME_FILES = sorted((REPO / "arena" / "games").glob("*.xgl")) + sorted(
    (REPO / "arena" / "games").glob("*.xent")
)


def shrink_loops(source: str) -> str:
    """Long replay loops are irrelevant to information flow; keep the test fast."""
    return "\n".join(
        line.replace(", 100)", ", 2)").replace(", 5000)", ", 2)").replace(", 20)", ", 2)")
        if line.startswith("replay(") else line
        for line in source.splitlines()
    )


def hidden_seats(path: Path) -> list[str]:
    """Active players that are not omniscient (only they can be kept from anything)."""
    program = load_game(shrink_loops(path.read_text()), filename=path.name)
    return [r for r in active_players(program) if r not in names.OMNISCIENT]


GAMES_WITH_HIDDEN_SEATS = [p for p in GAME_FILES if hidden_seats(p)]


@pytest.mark.parametrize("path", GAMES_WITH_HIDDEN_SEATS, ids=lambda p: p.name)
async def test_planted_secrets_reach_only_seats_they_were_revealed_to(path: Path) -> None:
    source = shrink_loops(path.read_text())
    program = load_game(source, filename=path.name)
    roles = active_players(program)
    sites = [r.site for r in story_requests(program, 0)]
    planted = {site: f"zq{secrets.token_hex(4)} secret text" for site in sites}
    players = {role: ListPlayer([f"plain move by {role}"]) for role in roles}
    result = await run_game(source, players, NgramJudge(), game_map=GameMap(1, planted), rounds=2)
    assert result.error is None, result.error
    for role in hidden_seats(path):
        shown = " ".join(
            v for e in events_of(result, "reveal") if e.player == role for v in e.values.values()
        ) + " ".join(
            str(v) for e in events_of(result, "assign") for r, v in e.values.items()
            if names.is_public(r)
        )
        received = "\n".join(repr(asdict(request)) for request in players[role].requests)
        for secret in planted.values():
            token = secret.split()[0]
            if token not in shown:
                assert token not in received, f"{path.name}: {role} received hidden {token}"


def test_every_bundled_game_is_covered() -> None:
    """Games left out above have only omniscient players, who may see everything."""
    assert len(GAMES_WITH_HIDDEN_SEATS) >= 6
    for path in set(GAME_FILES) - set(GAMES_WITH_HIDDEN_SEATS):
        program = load_game(shrink_loops(path.read_text()), filename=path.name)
        assert set(active_players(program)) <= names.OMNISCIENT, path.name
