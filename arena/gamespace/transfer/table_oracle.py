"""A transfer oracle that answers from a known matrix: `arena scope grow --oracle
table:FILE.json`.

Scope growth with values measured elsewhere (or a what-if matrix) costs no fine-tuning,
and the same file always grows the same scope. The file is JSON::

    {"transfer": {"G1": {"G2": 0.4, "G3": [0.4, 0.3, 0.5], "G4": null}},
     "default": 0.0, "diagonal": 1.0, "playable": {"G4": [-0.1, -0.2, 0.0]}}

Games are named by game name or by the sha256 of their text. A value is a number, a
[value, low, high] triple or null (undefined). A pair not listed takes `diagonal` when
source and target are the same game (Def. 37 gives V_G(G) = 1), else `default`; without
`default` it is undefined. `playable` gives the fine-tuning gain (default 1: playable).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.gamespace.transfer.oracle import UNDEFINED, Estimate, GameText
from arena.lang.game_file import game_sha256

ONE = Estimate(1.0, 1.0, 1.0)
EXAMPLE = '{"transfer": {"G1": {"G2": 0.4}}, "default": 0.0}'


def _estimate(value: object, where: str) -> Estimate:
    if value is None:
        return UNDEFINED
    if isinstance(value, int | float) and not isinstance(value, bool):
        return Estimate(float(value), float(value), float(value))
    if (isinstance(value, list) and len(value) == 3
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)):
        return Estimate(float(value[0]), float(value[1]), float(value[2]))
    raise ConfigError(
        f"The transfer table's value at {where} is {json.dumps(value)}: give a number, a "
        f"[value, low, high] triple or null, e.g. {EXAMPLE}."
    )


class TableOracle:
    """`TransferOracle` over a known matrix (see the module doc for the file format)."""

    def __init__(
        self, transfer: Mapping[str, Mapping[str, Estimate]], *,
        default: Estimate = UNDEFINED, diagonal: Estimate = ONE,
        playable: Mapping[str, Estimate] | None = None,
    ) -> None:
        self.table = transfer
        self.default = default
        self.diagonal = diagonal
        self.gains = dict(playable or {})

    @classmethod
    def from_document(cls, doc: Any, where: str = "the transfer table") -> TableOracle:
        if not isinstance(doc, dict) or not isinstance(doc.get("transfer", {}), dict):
            raise ConfigError(
                f"{where} is not a JSON object with a \"transfer\" object: write it like "
                f"{EXAMPLE}."
            )
        rows: dict[str, dict[str, Estimate]] = {}
        for source, row in doc.get("transfer", {}).items():
            if not isinstance(row, dict):
                raise ConfigError(
                    f"The transfer table's row {source!r} is not an object of target games "
                    f"to values: write it like {EXAMPLE}."
                )
            rows[source] = {t: _estimate(v, f"{source} -> {t}") for t, v in row.items()}
        playable = {g: _estimate(v, f"playable {g}") for g, v in doc.get("playable", {}).items()}
        return cls(
            rows, default=_estimate(doc.get("default"), "default"),
            diagonal=_estimate(doc.get("diagonal", 1.0), "diagonal"), playable=playable,
        )

    @classmethod
    def from_file(cls, path: Path) -> TableOracle:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except OSError as error:
            raise ConfigError(
                f"Cannot read the transfer table {path}: {error.strerror}. Give an existing "
                "JSON file with --oracle table:FILE."
            ) from None
        except ValueError as error:
            raise ConfigError(
                f"The transfer table {path} is not valid JSON ({error}); write it like "
                f"{EXAMPLE}."
            ) from None
        return cls.from_document(doc, str(path))

    @staticmethod
    def _keys(game: GameText) -> tuple[str, str]:
        return game.name, game_sha256(game.source)

    async def transfer(self, source: GameText, target: GameText) -> Estimate:
        """V_source(target) from the table (see the module doc for missing pairs)."""
        targets = self._keys(target)
        for key in self._keys(source):
            row = self.table.get(key, {})
            for t in targets:
                if t in row:
                    return row[t]
        return self.diagonal if source.source == target.source else self.default

    async def playable(self, game: GameText) -> Estimate:
        """The listed fine-tuning gain, else 1 (playable)."""
        for key in self._keys(game):
            if key in self.gains:
                return self.gains[key]
        return ONE


__all__ = ["TableOracle"]
