"""A grown scope for the dashboard's tests: Σ_0 = {alpha}, round 0 accepts a game with a
hostile name (γ = 0.4) and stops at another candidate (γ = 0.95)."""

from __future__ import annotations

import json

from sqlalchemy import Engine

from arena.storage import scopes as stored

HOSTILE = "<b>bold</b><script>alert(1)</script>"
A, H, R = "a" * 64, "b" * 64, "c" * 64


def grow_example(engine: Engine) -> None:
    """Σ_0 = {alpha}; round 0 accepts HOSTILE (γ = 0.4) and stops at 'rejected' (γ = 0.95)."""
    scope = stored.create_scope(engine, "grown", json.dumps({"alpha1": 0.5, "alpha2": 0.2}),
                                "f" * 64)
    stored.save_games(engine, scope.id, [
        stored.ScopeGameRecord("alpha", A, "alpha.xgl", "assign(s=story())\n", None, 0, True,
                               None),
        stored.ScopeGameRecord(
            HOSTILE, H, "h.xgl", "# <img src=x onerror=alert(1)>\nassign(s=story())\n",
            "alpha", 0, True, 0.4, {"operator": "length"},
            {"decision": "accepted", "parent_sha256": A, "to_parent": 0.7,
             "from_scope": {A: 0.4}},
        ),
        stored.ScopeGameRecord(
            "rejected", R, "r.xgl", "assign(s=story())\n", "alpha", 0, False, 0.95, {},
            {"decision": "stop", "parent_sha256": A, "to_parent": 0.6,
             "from_scope": {A: 0.95, H: 0.9}},
        ),
    ])
    stored.set_progress(engine, scope.id, status=stored.DONE, round=1, state={})
