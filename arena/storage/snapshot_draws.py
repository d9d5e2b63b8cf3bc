"""Bootstrap draws kept in a rating snapshot, compactly: the resampled ratings (on the
snapshot's scale) as little-endian float32, base64 in the snapshot's JSON payload.

A viewer derives anything about uncertainty from them (P(rank = k), P(A above B)) without
refitting: the dashboard never bootstraps on a page load. 1000 draws of 20 participants
take about 107 kB.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

DRAWS_KEY = "draws"
_DTYPE = "<f4"


@dataclass(frozen=True, eq=False)
class SnapshotDraws:
    """`ratings[i, j]`: participant `participants[j]`'s rating in draw `i`."""

    participants: tuple[str, ...]
    ratings: npt.NDArray[np.float64]


def encode_draws(participants: Sequence[str], ratings: npt.ArrayLike) -> dict[str, Any]:
    """The JSON-ready form of draws (rows: resamples, columns: `participants`)."""
    matrix = np.asarray(ratings, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[1] != len(participants):
        raise ValueError(f"draws of shape {matrix.shape} for {len(participants)} participants")
    data = np.ascontiguousarray(matrix, dtype=_DTYPE).tobytes()
    return {
        "participants": list(participants),
        "shape": list(matrix.shape),
        "dtype": "float32",
        "data": base64.b64encode(data).decode("ascii"),
    }


def decode_draws(payload: Mapping[str, Any]) -> SnapshotDraws | None:
    """The draws stored in a snapshot payload, or None for a snapshot without them (taken
    before draws were stored)."""
    found = payload.get(DRAWS_KEY)
    if not isinstance(found, Mapping):
        return None
    rows, cols = (int(n) for n in found["shape"])
    flat = np.frombuffer(base64.b64decode(found["data"]), dtype=_DTYPE)
    return SnapshotDraws(
        tuple(found["participants"]), flat.reshape(rows, cols).astype(np.float64)
    )
