"""A stored transfer setting for the dashboard's fixture databases: three games (one with a
hostile name that must show as text), one not playable, so one row of undefined values."""

from __future__ import annotations

import json

from sqlalchemy import Engine

from arena.storage import transfers as t

HOSTILE_GAME = "<img src=x onerror=alert(1)> **bold**"
GAMES = ("condense", HOSTILE_GAME, "flat")
SETTING = json.dumps({"player": "hf:bundled", "finetuner": "reinforce", "budget_tokens": 20000,
                      "maps": 4, "seed": 0, "judge": "ngram"}, sort_keys=True)
SETTING_SHA = "5e7" + "0" * 61
VALUES = {  # (source, target) -> (value, low, high); None: undefined
    ("condense", "condense"): (1.0, 1.0, 1.0),
    ("condense", HOSTILE_GAME): (0.62, 0.31, 0.97),
    ("condense", "flat"): (0.0, 0.0, 0.0),
    (HOSTILE_GAME, "condense"): (1.08, 0.9, 1.25),
    (HOSTILE_GAME, HOSTILE_GAME): (1.0, 1.0, 1.0),
    (HOSTILE_GAME, "flat"): (0.0, 0.0, 0.0),
}


def sha(game: str) -> str:
    return f"{GAMES.index(game):064d}"


def store_example(engine: Engine) -> str:
    """Write the setting's verdicts and 9 values; returns its sha256."""
    before, after = (-4.0, -3.0, -5.0, -4.5), (-2.0, -1.5, -3.5, -2.5)
    for game in GAMES:
        flat = game == "flat"
        t.save_verdict(engine, t.VerdictRecord(
            SETTING_SHA, SETTING, game, sha(game), -4.125, -4.125 if flat else -2.375,
            0.0 if flat else 1.2, 0.0 if flat else 2.2, not flat, 20_480, None,
            before, before if flat else after,
        ))
    for source in GAMES:
        for target in GAMES:
            v, low, high = VALUES.get((source, target), (None, None, None))
            reason = "" if v is not None else (
                "undefined: the fine-tuning gain on the source game (+0, interval [0, 0]) "
                "contains 0"
            )
            t.save_transfer(engine, t.TransferRecord(
                SETTING_SHA, source, sha(source), target, sha(target), v, low, high, -4.125,
                -3.0, reason, before, after,
            ))
    return SETTING_SHA
