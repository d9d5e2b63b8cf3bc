"""Stored fine-tuning verdicts (Def. 35) and transfer values (Def. 37), as frames for the
Transfer page; read through `arena.storage.transfers` (the one home of those queries)."""

from __future__ import annotations

import json
from dataclasses import asdict

import pandas as pd
from sqlalchemy import Engine

from arena.storage import transfers as stored

SETTING_KEYS = ("player", "finetuner", "budget_tokens", "maps", "seed", "judge")


def transfer_settings(engine: Engine) -> pd.DataFrame:
    """Every setting with stored results, the latest first: its sha256, its parameters,
    how many games and values it holds."""
    rows = []
    for s in stored.settings(engine):
        params = json.loads(s.setting_json or "{}")
        rows.append({
            "setting": s.setting_sha256[:12], "setting_sha256": s.setting_sha256,
            **{k: params.get(k) for k in SETTING_KEYS},
            "games": s.games, "transfers": s.transfers, "updated_at": s.updated_at,
            "setting_json": s.setting_json,
        })
    columns = ["setting", "setting_sha256", *SETTING_KEYS, "games", "transfers",
               "updated_at", "setting_json"]
    return pd.DataFrame(rows, columns=columns)


def transfer_verdicts(engine: Engine, setting_sha256: str) -> pd.DataFrame:
    """One row per game: S_G before and after fine-tuning, the gain's interval, Def. 35."""
    rows = [
        {
            "game": v.game, "before": v.score_before, "after": v.score_after,
            "gain": v.score_after - v.score_before, "gain_low": v.gain_low,
            "gain_high": v.gain_high, "playable": v.playable, "tokens": v.tokens,
            "maps": len(v.scores_before), "game_sha256": v.game_sha256[:12],
        }
        for v in stored.verdicts(engine, setting_sha256)
    ]
    columns = ["game", "before", "after", "gain", "gain_low", "gain_high", "playable",
               "tokens", "maps", "game_sha256"]
    return pd.DataFrame(rows, columns=columns)


def transfer_values(engine: Engine, setting_sha256: str) -> pd.DataFrame:
    """One row per ordered pair: V_source(target), its interval (None when undefined), why."""
    rows = []
    for v in stored.transfers(engine, setting_sha256):
        row = asdict(v)
        for key in ("setting_sha256", "scores_before", "scores_after", "created_at"):
            row.pop(key)
        # the games' keys last and short, as on the verdicts table: the numbers come first
        row["source_sha256"], row["target_sha256"] = v.source_sha256[:12], v.target_sha256[:12]
        rows.append(row)
    columns = ["source", "target", "value", "low", "high", "target_before", "target_after",
               "reason", "source_sha256", "target_sha256"]
    return pd.DataFrame(rows, columns=columns)
