"""One scope grown by Algorithm 1 (`arena scope grow`), as frames for the Scopes page: its
archive, rounds and transfer covers. Its rows are read through the read model
(`ReadModel.scope`, `scope_archive`, `transfers`); the covers are computed by
`arena.gamespace.scope.report`, as `arena scope show` does."""

from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd

from arena.gamespace.scope.report import (
    ScopeReport,
    archive_values,
    scope_cover,
    scope_report,
)
from arena.storage.read_model import ReadModel

ARCHIVE_COLUMNS = ["game", "round", "parent", "in scope", "gamma", "decision", "operator",
                   "sha256"]


def _number(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


ETAS = (0.25, 0.5, 0.75)  # the eta-covers the Scopes page shows


def scope_view(reader: ReadModel, name: str) -> dict[str, Any] | None:
    """One scope: `params` (dict), `archive`, `rounds` and `covers` (frames) and `sources`
    (game -> text, for showing a game's code); None when there is no such scope."""
    found = reader.scope(name)
    if found is None:
        return None
    rows = reader.scope_archive(found.id)
    report: ScopeReport = scope_report(
        rows, archive_values(rows, reader.transfers(found.setting_sha256))
    )
    archive = pd.DataFrame(
        [
            {"game": g.name, "round": g.round, "parent": g.parent or "",
             "in scope": g.accepted, "gamma": _number(g.gamma),
             "decision": str(g.verdicts.get("decision", "")),
             "operator": str(g.lineage.get("operator", "")), "sha256": g.sha256[:12]}
            for g in rows
        ],
        columns=ARCHIVE_COLUMNS,
    )
    rounds = pd.DataFrame(
        [
            {"step": "Σ_0" if k == 0 else f"Ω_{k - 1}", "games added": len(added),
             "names": ", ".join(added)}
            for k, added in enumerate(report.rounds)
        ],
        columns=["step", "games added", "names"],
    )
    covers = pd.DataFrame(
        [
            {"cover": label, "value": _number(c.value), "pairs measured": c.measured,
             "pairs": c.pairs, "games with no measured value": len(c.uncovered)}
            for label, c in report.covers.items()
        ],
        columns=["cover", "value", "pairs measured", "pairs", "games with no measured value"],
    )
    values = archive_values(rows, reader.transfers(found.setting_sha256))
    eta_rows = []
    for eta in ETAS:  # Def. 45's optimal eta-covers: what scope:NAME?cover=ETA plays
        gamma, names = scope_cover(rows, values, eta)
        eta_rows.append({"eta": eta, "games": len(names), "cover": ", ".join(names),
                         "transfer cover": _number(gamma.cover.value),
                         "optimal": "yes" if gamma.exact else f"greedy (<= {gamma.bound:.2f}x)"})
    eta_covers = pd.DataFrame(
        eta_rows, columns=["eta", "games", "cover", "transfer cover", "optimal"]
    )
    return {
        "eta_covers": eta_covers,
        "params": json.loads(found.params_json or "{}"), "status": found.status,
        "round": found.round, "candidates": report.candidates, "weighed": report.weighed,
        "archive": archive, "rounds": rounds, "covers": covers,
        "sources": {g.name: g.source for g in rows},
    }
