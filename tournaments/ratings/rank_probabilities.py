"""P(rank = k) from bootstrap draws: in each draw participants are ranked by rating (1 =
best; ties share the better rank), and the shares of draws give the probabilities."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def rank_probabilities(ratings: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """`out[j, k - 1]` = P(participant j has rank k) over the draws `ratings` (draws x
    participants). Each row sums to 1."""
    matrix = np.asarray(ratings, dtype=np.float64)
    draws, people = matrix.shape
    out = np.zeros((people, people))
    if draws == 0:
        return out
    # rank = 1 + number of participants strictly better in that draw
    better = (matrix[:, None, :] > matrix[:, :, None]).sum(axis=2)
    for j in range(people):
        out[j] = np.bincount(better[:, j], minlength=people)[:people] / draws
    return out
