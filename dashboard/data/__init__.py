"""What the dashboard makes of the read model's rows with the higher wings it may import:
rating records (`records`) and a scope's covers (`scopes`). The queries themselves are
declared in `arena.storage.read_model`; the cached layer (`arena.dashboard.cache`) calls a
read-model method, or a function here with the read model first (`compute`), typed.
"""

from __future__ import annotations

from arena.dashboard.data.records import match_records
from arena.dashboard.data.scopes import scope_view

__all__ = ["match_records", "scope_view"]
