"""Issue 36's calibration cases: copies of the tests' PLAIN game that the canonical form does
not recognise. Each must be the same game (the same score for the same move on the same
map) and must NOT share PLAIN's evaluation form; otherwise the calibration benchmark's rows
built on them (benchmarks/gamespace_calibration.py) would prove nothing."""

from __future__ import annotations

from arena.gamespace.transfer.evaluate import evaluation_form, game_scores
from arena.judges.ngram import NgramJudge
from arena.match_setup import load_game_text
from arena.plugins.registry import Registry
from tests.gamespace import transfer_games as tg

MOVES = ["a quiet harbour", "the", "zq", "the the harbour", "x y z"]


async def test_each_copy_gives_the_same_score_for_the_same_move() -> None:
    judge, registry = NgramJudge(), Registry.load()
    games = [load_game_text(tg.PLAIN, "plain.xgl"), *tg.unrecognised()]
    by_move = []
    for move in MOVES:
        measured = [
            await game_scores(f"scripted:{move}", g, judge=judge, registry=registry, maps=3,
                              seed=11)
            for g in games
        ]
        for game, scores in zip(games, measured, strict=True):
            assert scores == measured[0], (move, game.name)
        by_move.append(measured[0][0])
    assert len(set(by_move)) == len(MOVES)  # each move has its own score: a copy that
    # scored another move (or nothing) would show


def test_no_copy_shares_an_evaluation_form() -> None:
    plain = load_game_text(tg.PLAIN, "plain.xgl")
    forms = [evaluation_form(g).source for g in [plain, *tg.unrecognised()]]
    assert len(set(forms)) == len(forms), forms
    # the recognised copies still share PLAIN's, so the check above is not trivially true
    renamed, noop = tg.games()[1], load_game_text(tg.NOOP, "noop.xgl")
    assert evaluation_form(renamed).source == evaluation_form(noop).source == forms[0]
