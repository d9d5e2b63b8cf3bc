"""Running-max (arms_k) curves straight from the `arena.dashboard.data.scored_seats` table, with
numpy and pandas: the same numbers as `arena.tournaments.ratings.normalisation.arms_curves` over
`arena.dashboard.data.match_records` of that table, without building 100 000 record objects and
looping over them in Python (the Xent-measure and Playability pages' cold cost).

The conventions are the records version's (its module docstring): only rated (main) seats
count; a seat without per-round scores is one round scored with its match score; the forfeit
value of a (game, role, map) is the worst round score anyone got there minus one bit, and maps
without any numeric round score are left out; missing rounds and maps a participant did not
play count as that value; several matches on one map are averaged first."""

from __future__ import annotations

import numpy as np
import pandas as pd

from arena.scoring import FORFEIT_PENALTY_BITS, FloatArray

Cell = tuple[str, str]  # (game, role)
_KEYS = ["game", "role", "map"]


def arms_from_seats(
    seats: pd.DataFrame, horizon: int | None = None
) -> dict[Cell, dict[str, FloatArray]]:
    """``arms_k`` for k = 1..K per (game, role) and participant, as `arms_curves` computes
    it; ``horizon`` K defaults to the most rounds recorded in the cell."""
    rated = seats[seats["main"].astype(bool)] if len(seats) else seats
    if rated.empty:
        return {}
    rounds, lengths = _round_matrix(rated)
    # Forfeit value per map: worst numeric round score there (over every recorded round, as
    # the records version) minus one bit; NaN marks forfeited and missing rounds alike.
    worst = pd.Series(np.where(np.isnan(rounds), np.inf, rounds).min(axis=1))
    width = rounds.shape[1] if horizon is None else horizon
    if rounds.shape[1] < width:
        rounds = np.pad(rounds, ((0, 0), (0, width - rounds.shape[1])), constant_values=np.nan)
    rounds = rounds[:, :width]
    keys = pd.DataFrame({
        "game": rated["game"].to_numpy(), "role": rated["role"].to_numpy(),
        "map": rated["map_id"].astype(str).to_numpy(),
        "participant": rated["participant"].to_numpy(),
    })
    floors = worst.groupby([keys[k] for k in _KEYS]).min() - FORFEIT_PENALTY_BITS
    floors = floors[np.isfinite(floors)]
    floor_of_row = floors.reindex(pd.MultiIndex.from_frame(keys[_KEYS])).to_numpy()
    kept = ~np.isnan(floor_of_row)
    if not kept.any():
        return {}
    keys, rounds, lengths = keys[kept].reset_index(drop=True), rounds[kept], lengths[kept]
    floor_of_row = floor_of_row[kept]
    filled = np.where(np.isnan(rounds), floor_of_row[:, None], rounds)
    running = np.maximum.accumulate(filled, axis=1)
    per_map = pd.DataFrame(running).groupby(
        [keys["game"], keys["role"], keys["participant"], keys["map"]], sort=True).mean()
    k_of_cell = pd.Series(lengths if horizon is None else np.full(len(lengths), horizon))
    k_of_cell = k_of_cell.groupby([keys["game"], keys["role"]]).max()
    out: dict[Cell, dict[str, FloatArray]] = {}
    for (game, role), k_max in k_of_cell.sort_index().items():
        cell = per_map.loc[(game, role)]
        names = sorted(cell.index.get_level_values(0).unique())
        maps = sorted(cell.index.get_level_values(1).unique())
        grid = cell.reindex(pd.MultiIndex.from_product([names, maps])).to_numpy()
        grid = grid.reshape(len(names), len(maps), width)[:, :, : int(k_max)]
        map_floor = floors.loc[(game, role)].reindex(maps).to_numpy()
        grid = np.where(np.isnan(grid), map_floor[None, :, None], grid)
        means = grid.mean(axis=1)
        out[(str(game), str(role))] = {str(n): means[i] for i, n in enumerate(names)}
    return out


def _round_matrix(rated: pd.DataFrame) -> tuple[FloatArray, np.ndarray]:
    """Seats x rounds (NaN where a round was forfeited or not played) and each seat's number
    of rounds; a seat without per-round scores is one round scored with its match score (NaN
    when it has none). The stored JSON lists of numbers are read as one comma-separated
    text by numpy: a JSON parse per seat is the slow part at 100 000 seats."""
    texts = [text or "[]" for text in rated["round_scores_json"].tolist()]
    best = pd.to_numeric(rated["best"], errors="coerce").to_numpy(dtype=np.float64)
    inner = [text.strip()[1:-1].strip() for text in texts]
    lengths = np.array([text.count(",") + 1 if text else 0 for text in inner], dtype=np.int64)
    joined = ",".join(text for text in inner if text)
    values = (np.array(joined.replace("null", "nan").split(","), dtype=np.float64)
              if joined else np.empty(0))
    width = max(int(lengths.max()), 1)
    matrix = np.full((len(texts), width), np.nan)
    rows = np.repeat(np.arange(len(texts)), lengths)
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    matrix[rows, np.arange(len(values)) - starts] = values
    empty = lengths == 0
    matrix[empty, 0] = best[empty]
    return matrix, np.maximum(lengths, 1)
