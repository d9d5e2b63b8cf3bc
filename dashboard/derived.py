"""Numbers the pages derive from stored data with the arena's own pure functions (ratings,
normalisation, the static game checker): ``(reader, ...) -> DataFrame``. No bootstrap runs
here: intervals come from stored rating snapshots."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

import numpy as np
import pandas as pd

from arena.dashboard import data
from arena.dashboard.arms_table import arms_from_seats
from arena.dashboard.filters import Filters
from arena.scoring import ThresholdSpec
from arena.storage.read_model import ReadModel
from arena.tournaments.ratings import MatchRecord, comparisons_from_records, fit, to_scale
from arena.tournaments.ratings.bootstrap import expected_match_counts
from arena.tournaments.ratings.bradley_terry import ELO_PER_NATURAL
from arena.tournaments.ratings.normalisation import (
    arms_curves,
    game_scores,
    normalise_curves,
    reference_normalisation,
)
from arena.tournaments.ratings.normalisation_benchmark import benchmark_normalisation

Normalisation = Literal["catch-up", "narms", "reference"]
NORMALISATIONS: tuple[str, ...] = ("catch-up", "narms", "reference")
BOARD_COLUMNS = ["rank", "participant", "rating", "ci_low", "ci_high", "rank_low", "rank_high",
                 "n_comparisons", "provisional"]


def unit_of(payload: dict[str, Any]) -> tuple[str, float]:
    """The rating unit's name and natural-log units per rating point of a snapshot."""
    return ("log strength", 1.0) if payload.get("scale") == "log" else ("Elo", ELO_PER_NATURAL)


def snapshot_board(reader: ReadModel, snapshot_id: int) -> pd.DataFrame:
    """A snapshot's leaderboard with rank (by rating) and rank change since the tournament's
    previous snapshot (positive: moved up; NaN: new)."""
    payload = reader.snapshot_payload(snapshot_id) or {}
    board = pd.DataFrame(payload.get("rows", []), columns=BOARD_COLUMNS[1:])
    board.insert(0, "rank", range(1, len(board) + 1))
    history = reader.snapshot_history(_tournament_of(payload))
    earlier = history[history["snapshot"] < snapshot_id] if len(history) else history
    if len(earlier):
        last = earlier[earlier["snapshot"] == earlier["snapshot"].max()]
        before = {p: i + 1 for i, p in enumerate(last.sort_values("rating", ascending=False)
                                                  ["participant"])}
        board["rank_change"] = [before[p] - r if p in before else np.nan
                                for p, r in zip(board["participant"], board["rank"], strict=True)]
    else:
        board["rank_change"] = np.nan
    return board


def _tournament_of(payload: dict[str, Any]) -> str | None:
    names = payload.get("tournaments") or []
    return str(names[0]) if len(names) == 1 else None


def predicted_wins(board: pd.DataFrame, per_natural: float) -> pd.DataFrame:
    """P(row beats column) under Bradley–Terry from the ratings (a, b, p_win)."""
    rows = []
    ratings = dict(zip(board["participant"], board["rating"], strict=True))
    for a, ra in ratings.items():
        for b, rb in ratings.items():
            if a != b:
                rows.append({"a": a, "b": b,
                             "p_win": 1.0 / (1.0 + math.exp(-(ra - rb) / per_natural))})
    return pd.DataFrame(rows, columns=["a", "b", "p_win"])


def point_ratings(reader: ReadModel, filters: Filters, role: str | None = None) -> pd.DataFrame:
    """Bradley–Terry point ratings (Elo, game-weighted, no intervals) of the matches `filters`
    select; with `role`, eval matches only where the main character played `role`."""
    seats = reader.scored_seats(filters)
    if role and len(seats):
        main_role = seats[seats["main"].astype(bool)].groupby("match")["role"].first()
        keep = set(main_role[(main_role == role)].index)
        keep |= set(seats.loc[seats["mode"] != "eval", "match"])
        seats = seats[seats["match"].isin(keep)]
    records = data.match_records(seats)
    comparisons = comparisons_from_records(records)
    if not comparisons.participants:
        return pd.DataFrame(columns=["participant", "rating", "n_comparisons"])
    weights = expected_match_counts(comparisons.match_game, True)
    result = fit(comparisons, match_weights=weights)
    ratings = to_scale(result.strengths, "elo")
    frame = pd.DataFrame({
        "participant": comparisons.participants,
        "rating": [float(r) for r in ratings],
        "n_comparisons": [int(n) for n in comparisons.comparisons_per_participant()],
    })
    return frame.sort_values("rating", ascending=False, ignore_index=True)


def rank_probabilities(reader: ReadModel, snapshot_id: int) -> pd.DataFrame:
    """P(rank = k) per participant from a snapshot's stored bootstrap draws (participant,
    rank, p); empty when the snapshot stored no draws."""
    from arena.storage.snapshot_draws import decode_draws
    from arena.tournaments.ratings.rank_probabilities import rank_probabilities as probabilities

    draws = decode_draws(reader.snapshot_payload(snapshot_id) or {})
    if draws is None or not draws.participants:
        return pd.DataFrame(columns=["participant", "rank", "p"])
    matrix = probabilities(draws.ratings)
    rows = [{"participant": name, "rank": k + 1, "p": float(matrix[j, k])}
            for j, name in enumerate(draws.participants) for k in range(len(draws.participants))]
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ normalisation


def normalised_scores(
    records: Sequence[MatchRecord], base: str | None, how: str, theta: float = 1.0, m: int = 2
) -> tuple[pd.DataFrame, list[str]]:
    """participant, game, value rows of normalised scores (SCORING.md section 3), plus notes
    (unplayable cells, skipped maps). `how`: catch-up, narms (the paper's threshold version
    with `theta` bits per level and `m` levels) or reference (percent of the best per map).
    The reference computation over records; `seat_normalised_scores` is the page's."""
    if how == "reference":
        return _reference_rows(records)
    return _curve_rows(lambda: arms_curves(records), base, how, theta, m)


def seat_normalised_scores(
    seats: pd.DataFrame, base: str | None, how: str, theta: float = 1.0, m: int = 2
) -> tuple[pd.DataFrame, list[str]]:
    """`normalised_scores` of `data.match_records(seats)`, from the `ReadModel.scored_seats` table
    directly: catch-up and narms over `arms_from_seats` (vectorised); reference builds the
    records."""
    if how == "reference":
        return _reference_rows(data.match_records(seats))
    return _curve_rows(lambda: arms_from_seats(seats), base, how, theta, m)


def seat_benchmark_scores(seats: pd.DataFrame) -> dict[str, float]:
    """The published Xent benchmark's leaderboard score per participant (issue 20; as
    `arena scores --normalisation benchmark`) of the matches in `ReadModel.scored_seats`."""
    return dict(benchmark_normalisation(data.match_records(seats)).overall)


_ScoreRows = tuple[pd.DataFrame, list[str]]


def _reference_rows(records: Sequence[MatchRecord]) -> _ScoreRows:
    notes: list[str] = []
    ref = reference_normalisation(records)
    if ref.skipped_maps:
        notes.append(f"{len(ref.skipped_maps)} map(s) skipped: nobody scored there, or "
                     "the best score is 0.")
    return _score_rows({p: dict(g) for p, g in ref.per_game.items()}), notes


def _curve_rows(
    curves: Callable[[], Mapping[tuple[str, str], Mapping[str, np.ndarray]]], base: str | None,
    how: str, theta: float, m: int,
) -> _ScoreRows:
    if not base:
        return pd.DataFrame(columns=["participant", "game", "value"]), [
            "Pick a base participant: catch-up and narms scores are relative to it."]
    threshold = ThresholdSpec(theta, m) if how == "narms" else None
    cells = normalise_curves(curves(), base, threshold=threshold)
    notes = [f"{c.game} / {c.role}: {c.reason}" for c in cells.values() if not c.playable]
    return _score_rows(game_scores(cells)), notes


def _score_rows(per_game: Mapping[str, Mapping[str, float]]) -> pd.DataFrame:
    rows = [{"participant": p, "game": g, "value": v}
            for p, games in per_game.items() for g, v in games.items()]
    return pd.DataFrame(rows, columns=["participant", "game", "value"])


def histogram(values: pd.DataFrame, edges: np.ndarray) -> pd.DataFrame:
    """Per participant, the share of its games in each bin (values clipped into the end
    bins; each game an atom of mass 1/|games|, as the Xent measure of the paper)."""
    rows = []
    for name, group in values.groupby("participant", sort=True):
        clipped = np.clip(group["value"].to_numpy(dtype=float), edges[0], edges[-1])
        counts, _ = np.histogram(clipped, bins=edges)
        total = max(int(counts.sum()), 1)
        rows += [{"participant": name, "bin_low": float(lo), "bin_high": float(hi),
                  "mass": c / total} for lo, hi, c in zip(edges[:-1], edges[1:], counts,
                                                          strict=True)]
    return pd.DataFrame(rows, columns=["participant", "bin_low", "bin_high", "mass"])


def arms(records: Sequence[MatchRecord]) -> pd.DataFrame:
    """Running-max curves: game, role, participant, round, arms (mean over maps). The
    reference computation over records; `seat_arms` is the page's."""
    return _arms_rows(arms_curves(records))


def seat_arms(seats: pd.DataFrame) -> pd.DataFrame:
    """`arms` of `data.match_records(seats)`, from the `ReadModel.scored_seats` table directly."""
    return _arms_rows(arms_from_seats(seats))


def _arms_rows(curves: Mapping[tuple[str, str], Mapping[str, np.ndarray]]) -> pd.DataFrame:
    rows = [
        {"game": game, "role": role, "participant": p, "round": k + 1, "arms": float(v)}
        for (game, role), by_name in curves.items()
        for p, curve in by_name.items()
        for k, v in enumerate(curve)
    ]
    return pd.DataFrame(rows, columns=["game", "role", "participant", "round", "arms"])


# ------------------------------------------------------------------------------ games


def game_catalogue(reader: ReadModel, tournament: str | None) -> pd.DataFrame:
    """Stored games with their header and static-check status (the checker only reads
    code; nothing is run)."""
    from arena.errors import ArenaError
    from arena.lang.checker import check_program
    from arena.lang.parser import parse_source

    frame = reader.games(tournament)
    headers, checks = [], []
    for row in frame.itertuples():
        if not str(row.source or "").strip():  # imported results: a game known by name only
            headers.append("")
            checks.append("no code stored (imported results)")
            continue
        try:
            result = parse_source(str(row.source), str(row.filename or row.name),
                                  str(row.dialect))
        except ArenaError as error:  # e.g. a dialect this version does not know
            headers.append("")
            checks.append(str(error).splitlines()[0])
            continue
        problems = list(result.diagnostics) + check_program(
            result.program, unparsed_lines=result.unparsed_lines)
        headers.append(" / ".join(h.strip() for h in result.program.header))
        checks.append("ok" if not problems else "; ".join(
            f"line {d.line}: {d.message}" for d in problems[:3]))
    frame = frame.assign(header=headers, check=checks)
    return frame


def role_advantage(scores: pd.DataFrame) -> pd.DataFrame:
    """Per game and role: matches, mean and spread of match scores, and the role's mean
    minus the game's mean over roles (its advantage, in bits)."""
    if scores.empty:
        return pd.DataFrame(columns=["game", "role", "matches", "mean", "std", "advantage"])
    table = scores.groupby(["game", "role"])["best"].agg(["count", "mean", "std"]).reset_index()
    table = table.rename(columns={"count": "matches"})
    table["advantage"] = table["mean"] - table.groupby("game")["mean"].transform("mean")
    return table


# ------------------------------------------------------------------------------ schedules

OVERDUE_GRACE_S = 90.0  # the scheduler re-reads schedules every 30 s by default


def overdue_schedules(schedules: pd.DataFrame, now: datetime,
                      grace_s: float = OVERDUE_GRACE_S) -> pd.DataFrame:
    """Enabled schedules whose next fire time passed more than `grace_s` ago and that no
    process is running now (no live lease): the scheduler is probably not running. Columns
    of `ReadModel.schedules` plus ``late_s``."""
    if not len(schedules):
        return schedules.assign(late_s=pd.Series(dtype=float))
    nxt = pd.to_datetime(schedules["next_run_at"], utc=True, format="mixed")
    until = pd.to_datetime(schedules["lease_until"], utc=True, format="mixed")
    at = pd.Timestamp(now).tz_convert("UTC") if pd.Timestamp(now).tzinfo \
        else pd.Timestamp(now).tz_localize("UTC")
    late = (at - nxt).dt.total_seconds()
    leased = schedules["lease_owner"].notna() & (until > at)
    keep = schedules["enabled"].astype(bool) & nxt.notna() & (late > grace_s) & ~leased
    return schedules[keep].assign(late_s=late[keep])


# ------------------------------------------------------------------------------ pairwise


PAIR_COLUMNS = ["a", "b", "wins", "comparisons", "win_rate"]


def observed_wins(seats: pd.DataFrame) -> pd.DataFrame:
    """Observed P(row beats column) over the comparisons the ratings are fitted on
    (SCORING.md section 4, as `arena.tournaments.ratings.pairwise_outcomes` makes them): the
    rated seats of one head-to-head match; the matches of two participants in one group
    of comparable eval matches (same game, main role, map and rounds), each pair of
    matches weighted 1 / (n_a n_b) so a group counts once; a tie (1e-6 bits) or two
    forfeits count half, a forfeit loses. Columns a, b, wins, comparisons (summed
    weights), win_rate, both ways. Vectorised over `ReadModel.scored_seats` rows (a loop over
    outcomes took minutes at 100 000 matches); `observed_wins_reference` is the
    records computation it must equal."""
    if not len(seats):
        return pd.DataFrame(columns=PAIR_COLUMNS)
    from arena.tournaments.ratings import TIE_TOLERANCE_BITS as tol

    rated = seats[seats["main"].astype(bool)]
    best = pd.to_numeric(rated["best"], errors="coerce").astype(float)
    lost = rated["forfeit"].astype(bool) | best.isna()
    rated = rated.assign(score=best.where(~lost, -np.inf))
    wins: dict[tuple[str, str], float] = {}
    total: dict[tuple[str, str], float] = {}

    def add(a: str, b: str, share: float, weight: float) -> None:
        for x, y, s in ((a, b, share), (b, a, weight - share)):
            wins[x, y] = wins.get((x, y), 0.0) + s
            total[x, y] = total.get((x, y), 0.0) + weight

    h2h = rated[rated["mode"] != "eval"][["match", "participant", "score"]]
    pairs = h2h.merge(h2h, on="match", suffixes=("_a", "_b"))
    pairs = pairs[pairs["participant_a"] < pairs["participant_b"]]
    with np.errstate(invalid="ignore"):  # two forfeits: -inf - -inf is NaN, a tie
        diff = pairs["score_a"].to_numpy() - pairs["score_b"].to_numpy()
    share = np.where(np.isnan(diff), 0.5, np.where(diff > tol, 1.0,
                                                    np.where(diff < -tol, 0.0, 0.5)))
    for (a, b), got in pd.Series(share).groupby(
            [pairs["participant_a"].to_numpy(), pairs["participant_b"].to_numpy()]):
        add(str(a), str(b), float(got.sum()), float(len(got)))

    evals = rated[rated["mode"] == "eval"]
    for _, group in evals.groupby(["game", "role", "map_id", "rounds"], sort=False):
        by_name = {str(n): np.sort(g.to_numpy(dtype=float))
                   for n, g in group.groupby("participant")["score"]}
        names = sorted(by_name)
        for i, a in enumerate(names):
            xs = by_name[a]
            for b in names[i + 1:]:
                ys = by_name[b]
                below = np.searchsorted(ys, xs - tol, side="left")  # y < x - tol: a wins
                above = len(ys) - np.searchsorted(ys, xs + tol, side="right")  # b wins
                won = below.sum() + 0.5 * (len(ys) * len(xs) - below.sum() - above.sum())
                add(a, b, float(won) / (len(xs) * len(ys)), 1.0)
    rows = [{"a": a, "b": b, "wins": wins[a, b], "comparisons": n, "win_rate": wins[a, b] / n}
            for (a, b), n in sorted(total.items()) if n > 0]
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def observed_wins_reference(seats: pd.DataFrame) -> pd.DataFrame:
    """`observed_wins` computed outcome by outcome from the rating records (slow; the
    reference the tests hold the vectorised one to)."""
    from arena.tournaments.ratings import pairwise_outcomes

    wins: dict[tuple[str, str], float] = {}
    total: dict[tuple[str, str], float] = {}
    for o in pairwise_outcomes(data.match_records(seats)):
        for a, b, share in ((o.a, o.b, o.score_a), (o.b, o.a, 1.0 - o.score_a)):
            wins[a, b] = wins.get((a, b), 0.0) + o.weight * share
            total[a, b] = total.get((a, b), 0.0) + o.weight
    rows = [{"a": a, "b": b, "wins": wins[a, b], "comparisons": n, "win_rate": wins[a, b] / n}
            for (a, b), n in sorted(total.items()) if n > 0]
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


# ------------------------------------------------------------------------------ participant


def participant_history(reader: ReadModel, tournament: str | None, name: str) -> pd.DataFrame:
    """`name`'s rating, interval and rank (by rating, of how many) in every stored snapshot
    of the tournament, oldest first: snapshot (its number within the tournament),
    created_at, rating, ci_low, ci_high, rank, of, provisional."""
    history = reader.snapshot_history(tournament)
    if len(history):
        history = history.assign(snapshot=history["number"])
    columns = ["snapshot", "created_at", "rating", "ci_low", "ci_high", "rank", "of",
               "provisional"]
    if not len(history) or name not in set(history["participant"]):
        return pd.DataFrame(columns=columns)
    history = history.assign(
        rank=history.groupby("snapshot")["rating"].rank(ascending=False, method="min"),
        of=history.groupby("snapshot")["participant"].transform("count"))
    mine = history[history["participant"] == name].sort_values("snapshot")
    return mine.reindex(columns=columns).astype({"rank": int, "of": int}).reset_index(drop=True)


def participant_games(seats: pd.DataFrame, name: str) -> pd.DataFrame:
    """Per game, `name`'s rated matches and its mean and best match score (bits): game,
    matches, mean_score, best_score (see `with_reference_ranks` for its Xent measure)."""
    columns = ["game", "matches", "mean_score", "best_score"]
    mine = seats[(seats["participant"] == name)] if len(seats) else seats
    if not len(mine):
        return pd.DataFrame(columns=columns)
    best = pd.to_numeric(mine["best"], errors="coerce")
    return (mine.assign(best=best).groupby("game")
            .agg(matches=("match", "nunique"), mean_score=("best", "mean"),
                 best_score=("best", "max")).reset_index().reindex(columns=columns))


def with_reference_ranks(games: pd.DataFrame, values: pd.DataFrame, name: str) -> pd.DataFrame:
    """`participant_games` rows with `name`'s Xent measure value per game as percent of the
    best score on each map (`values`: reference-normalised participant, game, value rows,
    which need no base participant) and its rank on the game by that value among all
    participants (percent_of_best, game_rank, of); best game first."""
    columns = [*games.columns, "percent_of_best", "game_rank", "of"]
    if len(values):
        ranks = values.assign(
            game_rank=values.groupby("game")["value"].rank(ascending=False, method="min"),
            of=values.groupby("game")["value"].transform("count"))
        ranks = ranks[ranks["participant"] == name].rename(columns={"value": "percent_of_best"})
        table = games.merge(ranks[["game", "percent_of_best", "game_rank", "of"]], on="game",
                            how="left")
    else:
        table = games.assign(percent_of_best=np.nan, game_rank=np.nan, of=np.nan)
    return (table.sort_values(["percent_of_best", "mean_score"], ascending=False,
                              na_position="last").reindex(columns=columns)
            .reset_index(drop=True))
