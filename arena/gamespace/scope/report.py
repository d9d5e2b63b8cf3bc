"""What `arena scope show` reports about a scope's archive: its rounds and the transfer
covers (Def. 45) of the values the growth measured.

Covers reported, with Σ the final scope and C the candidates whose γ was measured (the
kept candidates related to their parent, accepted or not):

- Δ_Σ(C ∪ Σ): how much the final scope covers everything the growth weighed;
- Δ_Σ(Σ): the final scope by itself (1 by Def. 37's V_G(G) = 1; shown for completeness);
- Δ_Σ0(Σ): how much the initial games cover the grown scope.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.gamespace.scope.cover import Cover, EtaCover, Values, eta_cover, transfer_cover
from arena.storage.scopes import ScopeGameRecord
from arena.storage.transfers import TransferRecord


@dataclass(frozen=True)
class ScopeReport:
    """The scope's games by round and its covers."""

    rounds: tuple[tuple[str, ...], ...]  # rounds[0]: Σ_0; rounds[k]: Ω_{k-1}
    candidates: int
    weighed: int
    covers: dict[str, Cover]


def archive_values(
    games: Iterable[ScopeGameRecord], stored: Iterable[TransferRecord] = ()
) -> dict[tuple[str, str], float | None]:
    """(source sha256, target sha256) -> V: what the growth saw, and stored measurements."""
    values: dict[tuple[str, str], float | None] = {}
    for row in stored:
        values[(row.source_sha256, row.target_sha256)] = row.value
    for game in games:
        doc = game.verdicts
        parent = doc.get("parent_sha256")
        if parent and "to_parent" in doc:
            values[(game.sha256, str(parent))] = doc["to_parent"]
        for source, value in dict(doc.get("from_scope", {})).items():
            values[(str(source), game.sha256)] = value
    return values


def scope_report(games: Sequence[ScopeGameRecord], values: Values) -> ScopeReport:
    members = [g for g in games if g.accepted]
    initial = [g.sha256 for g in members if g.parent is None]
    last = max((g.round for g in members if g.parent is not None), default=-1)
    rounds = [tuple(g.name for g in members if g.parent is None)]
    rounds += [
        tuple(g.name for g in members if g.parent is not None and g.round == k)
        for k in range(last + 1)
    ]
    sigma = [g.sha256 for g in members]
    weighed = [g.sha256 for g in games if g.verdicts.get("from_scope") and not g.accepted]
    covers = {
        "Δ_Σ(candidates ∪ Σ)": transfer_cover(sigma + weighed, sigma, values),
        "Δ_Σ(Σ)": transfer_cover(sigma, sigma, values),
        "Δ_Σ0(Σ)": transfer_cover(sigma, initial, values),
    }
    candidates = sum(1 for g in games if g.parent is not None)
    return ScopeReport(tuple(rounds), candidates, len(weighed), covers)


def scope_cover(
    games: Sequence[ScopeGameRecord], values: Values, eta: float
) -> tuple[EtaCover, tuple[str, ...]]:
    """The optimal η-cover Γ of the scope's games Σ (Def. 45) from the values known, and
    Γ's game names: the games whose score histogram is Def. 47's benchmark measure μ_Σ^η.
    Pairs the growth never measured count as not covering (a conservative cover)."""
    members = [g for g in games if g.accepted]
    found = eta_cover([g.sha256 for g in members], values, eta)
    names = {g.sha256: g.name for g in members}
    return found, tuple(names[k] for k in found.games)


__all__ = ["ScopeReport", "archive_values", "scope_cover", "scope_report"]
