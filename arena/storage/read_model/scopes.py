"""Scopes grown by Algorithm 1 (`arena scope grow`) for the Scopes page: the list. One
scope's archive and transfer values are `ReadModel.scope`, `scope_archive` and `transfers`
(the queries of `arena.storage.scopes` and `arena.storage.transfers`); its covers are
computed by the dashboard (`arena.dashboard.data.scopes`), as `arena scope show` does."""

from __future__ import annotations

import pandas as pd
from sqlalchemy import Engine

from arena.storage import scopes as stored


def scope_list(engine: Engine) -> pd.DataFrame:
    """Every scope, the most recently updated first: status, round, games, candidates."""
    rows = [
        {"scope": s.name, "status": s.status, "round": s.round, "games": s.games,
         "candidates": s.candidates, "updated_at": s.updated_at}
        for s in stored.summaries(engine)
    ]
    return pd.DataFrame(rows, columns=["scope", "status", "round", "games", "candidates",
                                       "updated_at"])
