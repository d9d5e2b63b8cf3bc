"""One leaderboard format everywhere: what was rated, how, a header row, rank ranges, the
provisional mark and a footer explaining every column; names shown as plain text."""

from __future__ import annotations

import re

from arena.tournaments.ratings.leaderboard_text import HEADER, render_leaderboard
from arena.tournaments.ratings.records import MatchRecord, SeatRecord
from arena.tournaments.ratings.service import RatingInputs, RatingOptions, compute_ratings

EVIL = "mallory\x1b[2J\x1b[31m\u202e"


def duel(i: int, winner: str, loser: str) -> MatchRecord:
    return MatchRecord(
        match_id=f"m{i}", game="duel", map_id=f"map{i % 3}",
        seats=(SeatRecord("a", winner, 2.0), SeatRecord("b", loser, 1.0)),
    )


def board_text(options: RatingOptions) -> str:
    records = [duel(i, "strong", "weak") for i in range(12)]
    records += [duel(100 + i, "strong", EVIL) for i in range(3)]
    records += [duel(200, EVIL, "weak")]
    inputs = RatingInputs(tournaments=("t1",), records=tuple(records))
    return render_leaderboard(inputs, options, compute_ratings(inputs, options))


def test_the_leaderboard_has_a_header_row_rank_ranges_and_explains_every_column() -> None:
    text = board_text(RatingOptions(n_resamples=200, min_comparisons=10))
    lines = text.splitlines()
    assert lines[0] == "Leaderboard of t1: 16 matches, 16 comparisons, 3 participants"
    assert lines[1].startswith("Bradley–Terry (Elo scale, mean 1000), point = mle; 95% intervals")
    header = lines[3].split()
    assert header == list(HEADER)
    rows = [line.split() for line in lines[4:7]]
    assert [r[1] for r in rows] == ["strong", "mallory[2J[31m", "weak"]
    assert rows[0][0].startswith("1") and all(re.fullmatch(r"\d+(-\d+)?", r[0]) for r in rows)
    assert rows[1][0] == "1-3"  # a provisional row may rank anywhere
    assert rows[1][-1] == "*" and rows[0][-1] != "*"  # 4 comparisons < 10: provisional
    footer = "\n".join(lines[7:])
    assert "rank: every rank the 95% intervals allow" in footer
    assert "provisional row may rank anywhere" in footer
    assert "interval: 95% bootstrap interval" in footer
    assert "* provisional: fewer than 10" in footer and "comparisons: pairwise results" in footer
    assert "\x1b" not in text and "\u202e" not in text


def test_the_log_scale_and_an_empty_board() -> None:
    text = board_text(RatingOptions(scale="log", n_resamples=50))
    assert "natural-log scale, mean 0" in text and "+" in text.splitlines()[4]
    empty = RatingInputs(tournaments=("t\x07",), records=())
    assert render_leaderboard(empty, RatingOptions(), compute_ratings(empty)) == (
        "t: no finished match to rate yet."
    )
