"""Greedy scope growth: the paper's Algorithm 1 (section 6.3.2), step by step.

Σ_0 is the given games. For k = 0..N-1: Ω_k = ∅; for each G of Σ_k \\ Σ_{k-1} in a seeded
random order, repeat: draw a batch 𝒢_j of games related to G from the meta-sampler Λ, run
each through the filter pipeline, and among the kept G_* with G_* ☽_α1 G (V_G*(G) >= α1)
pick the one with the smallest γ = max over the scope of V_G~(G_*); if γ <= 1 - α2 add it to
Ω_k, else stop. Σ_{k+1} = Σ_k ∪ Ω_k; the growth stops when Ω_k = ∅ or after N rounds.

Choices where the paper is silent:

- γ is taken over Σ_k ∪ Ω_k (the games accepted earlier in the same round count). With Σ_k
  alone, accepting G_* would never change the next γ, and the repeat loop could only end by
  its budget; Remark 67 ("any new game must avoid being (1 - α)-covered by the previous
  games") reads the same way.
- A batch in which no kept candidate satisfies ☽_α1 (or no candidate survives the pipeline)
  is a miss of the sampler, not evidence that G's surroundings are covered: another batch
  is drawn. The budget ends the loop.
- Budget: `budget` is the number of candidates one repeat loop may draw from Λ (every
  proposal counts: duplicates and pipeline failures too). Each G's loop thus ends, each
  round is finite and the run ends after at most N rounds.
- Batch j of G is Λ.propose(G, batch, seed + j): reproducible, and distinct per G since
  the parent differs (each G has its repeat loop once).
- Undefined transfer values (source not playable, Def. 37) never satisfy ☽ and are left
  out of γ's max; a candidate with no defined value from the scope has γ = -inf (nothing
  covers it), stored as gamma None.
- Ties of γ go to the earliest candidate of the batch. A text already seen in this growth
  counts against the budget and is skipped (the archive keeps one row per text).

Resuming: each batch is stored whole as soon as it is drawn, and each candidate again once
measured (`arena.storage.scopes`), with its pipeline verdicts and the transfer values the
growth saw. A rerun replays the growth from the start with the same seed: stored batches
are read back (the sampler is not asked again: a model-driven one may not answer alike),
stored candidates are answered from their rows (no pipeline, no oracle), so it continues
where the killed run stopped and ends with the same scope. An empty batch leaves no row:
a rerun asks the sampler for it again.
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from arena.gamespace.sampling.pipeline import CandidateRecord, FilterPipeline
from arena.gamespace.transfer.oracle import Estimate, GameText, TransferOracle
from arena.lang.game_file import game_sha256
from arena.protocols.sampler import MetaSampler, Proposal
from arena.storage import Store, scopes
from arena.storage.scopes import ScopeGameRecord

Progress = Callable[[str], None]


@dataclass(frozen=True)
class GrowthParams:
    """Algorithm 1's parameters: thresholds, rounds N, the repeat loop's budget (candidates
    drawn from Λ per G), the batch size |𝒢_j| and the seed."""

    alpha1: float
    alpha2: float
    rounds: int
    budget: int
    batch: int = 4
    seed: int = 0


@dataclass
class Member:
    """A game of the scope Σ (initial or accepted) with its text."""

    game: GameText
    sha256: str
    round: int


@dataclass
class Measured:
    """A kept candidate of a batch with what the oracle said about it."""

    proposal: Proposal
    sha256: str
    to_parent: float | None  # V_G*(G); None: undefined
    from_scope: dict[str, float | None] = field(default_factory=dict)  # sha -> V_G~(G_*)
    gamma: float | None = None  # None: no defined value (-inf) or ☽ failed (not computed)


@dataclass(frozen=True)
class GrowthResult:
    """The scope after each round: `rounds[k]` is Σ_{k+1}'s new games (Ω_k)."""

    initial: tuple[str, ...]
    rounds: tuple[tuple[str, ...], ...]
    candidates: int

    @property
    def names(self) -> list[str]:
        return [*self.initial, *(n for r in self.rounds for n in r)]


def _value(estimate: Estimate) -> float | None:
    return estimate.value if estimate.defined else None


def gamma_of(values: Sequence[float | None]) -> float:
    """max of the defined values; -inf when none is defined (nothing covers the game)."""
    defined = [v for v in values if v is not None]
    return max(defined) if defined else -math.inf


def _proposal(row: ScopeGameRecord) -> Proposal:
    """A stored candidate as the sampler proposed it (its lineage holds every field)."""
    fields = {k: v for k, v in row.lineage.items() if k in Proposal.__dataclass_fields__}
    return Proposal(**{**fields, "source": row.source})


def _verdicts_doc(record: CandidateRecord) -> list[dict[str, Any]]:
    return [asdict(v) for v in record.verdicts]


class ScopeGrowth:
    """One growth of one stored scope (`scope_id` in `store`)."""

    def __init__(
        self, params: GrowthParams, *, sampler: MetaSampler, pipeline: FilterPipeline,
        oracle: TransferOracle, store: Store, scope_id: int, progress: Progress | None = None,
    ) -> None:
        self.params = params
        self.sampler = sampler
        self.pipeline = pipeline
        self.oracle = oracle
        self.store = store
        self.scope_id = scope_id
        self._report = progress or (lambda message: None)
        self.stored = {g.sha256: g for g in store.scope_archive(scope_id)}
        # (parent sha256, j) -> [(position, candidate sha256)]: the batches drawn before
        self.batches: dict[tuple[str, int], list[tuple[int, str]]] = {}
        for game in self.stored.values():
            for parent_sha, j, position in game.verdicts.get("draws", []):
                self.batches.setdefault((parent_sha, j), []).append((position, game.sha256))
        self.seen: set[str] = set()  # texts met in this growth (replayed ones included)
        self.scope: list[Member] = []
        self.candidates = 0

    # --- the algorithm ---------------------------------------------------------------------

    async def grow(self, initial: Sequence[GameText]) -> GrowthResult:
        """Run (or replay, then continue) Algorithm 1 from the initial games."""
        for game in initial:
            self._add_initial(game)
        new = list(self.scope)
        rounds: list[tuple[str, ...]] = []
        for k in range(self.params.rounds):
            omega: list[Member] = []
            order = list(new)
            random.Random(f"{self.params.seed}:{k}").shuffle(order)
            for position, member in enumerate(order):
                self._save_progress(scopes.GROWING, k, position, member)
                await self._repeat(k, member, omega)
            rounds.append(tuple(m.game.name for m in omega))
            if not omega:
                break
            new = omega
        self.store.set_scope_progress(self.scope_id, status=scopes.DONE,
                           round=len(rounds), state={"candidates": self.candidates})
        return GrowthResult(tuple(m.game.name for m in self.scope if m.round == 0),
                            tuple(rounds), self.candidates)

    async def _repeat(self, k: int, parent: Member, omega: list[Member]) -> None:
        """The repeat loop of G = `parent`: batches until a stop or the budget."""
        params = self.params
        drawn, j = 0, 0
        while drawn < params.budget:
            size = min(params.batch, params.budget - drawn)
            proposals = await self._draw(k, parent, size, j)
            drawn += max(len(proposals), 1)  # an empty draw still spends the budget
            batch = [m for p in proposals if (m := await self._measure(k, parent, p))]
            related = [m for m in batch if self._related(m)]
            j += 1
            if not related:
                self._decide(k, parent, batch, None, "no related candidate in the batch")
                continue
            best = min(related, key=lambda m: gamma_of(list(m.from_scope.values())))
            gamma = gamma_of(list(best.from_scope.values()))
            if gamma <= 1 - params.alpha2:
                member = Member(self._game_text(best.proposal), best.sha256, k + 1)
                omega.append(member)
                self.scope.append(member)
                self._decide(k, parent, batch, best, "accepted")
                self._report(f"round {k}: accepted {best.proposal.name} (gamma {gamma:.3g})")
            else:
                self._decide(k, parent, batch, best, "stop")
                self._report(f"round {k}: {parent.game.name} stops at {best.proposal.name} "
                             f"(gamma {gamma:.3g} > {1 - params.alpha2:.3g})")
                return

    def _related(self, measured: Measured) -> bool:
        """G_* ☽_α1 G: V_G*(G) >= α1 (an undefined value never is)."""
        return measured.to_parent is not None and measured.to_parent >= self.params.alpha1

    async def _draw(self, k: int, parent: Member, count: int, j: int) -> list[Proposal]:
        """Batch j of `parent`: read back when a previous run drew it (a model-driven
        sampler is neither asked twice nor trusted to answer alike), else drawn from Λ
        with seed + j and stored whole before anything else happens to it."""
        known = self.batches.get((parent.sha256, j))
        if known is not None:
            return [_proposal(self.stored[sha]) for _, sha in sorted(known)]
        seed = self.params.seed + j
        # A sampler may block (a model call): it runs in a worker thread, off the loop.
        proposals = await asyncio.to_thread(
            lambda: list(self.sampler.propose(parent.game, count, seed))
        )
        records: dict[str, ScopeGameRecord] = {}
        for position, proposal in enumerate(proposals):
            sha = game_sha256(proposal.source)
            draw = [parent.sha256, j, position]
            before = records.get(sha) or self.stored.get(sha)
            if before is None:
                lineage = asdict(proposal)
                lineage.pop("source")
                records[sha] = ScopeGameRecord(
                    proposal.name, sha, proposal.filename, proposal.source, proposal.parent,
                    k, False, None, lineage, {"draws": [draw], "decision": "drawn"},
                )
            else:
                draws = [*before.verdicts.get("draws", []), draw]
                records[sha] = replace(before, verdicts={**before.verdicts, "draws": draws})
        if records:
            self.store.save_scope_games(self.scope_id, list(records.values()))
            self.stored.update(records)
        return proposals

    async def _measure(self, k: int, parent: Member, proposal: Proposal) -> Measured | None:
        """Screen one proposal and ask the oracle about it (or read what a previous run
        stored); None when it does not reach the decision (dropped or seen before)."""
        self.candidates += 1
        sha = game_sha256(proposal.source)
        if sha in self.seen:
            return None
        self.seen.add(sha)
        known = self.stored.get(sha)
        if known is not None and "pipeline" in known.verdicts:
            return self._replayed(proposal, sha, known)
        record = await self.pipeline.run(proposal)
        doc: dict[str, Any] = {
            "draws": self.stored[sha].verdicts.get("draws", []),
            "pipeline": _verdicts_doc(record), "key": record.key, "kept": record.kept,
            "parent_sha256": parent.sha256,
        }
        measured = None
        if record.kept:
            measured = await self._transfers(proposal, sha, parent)
            doc |= self._transfer_doc(measured)
        doc["decision"] = "measured" if record.kept else f"dropped at {record.decided_by.stage}"
        self._store(sha, k, accepted=False, gamma=measured.gamma if measured else None,
                    verdicts=doc)
        return measured

    async def _transfers(self, proposal: Proposal, sha: str, parent: Member) -> Measured:
        game = self._game_text(proposal)
        to_parent = _value(await self.oracle.transfer(game, parent.game))
        measured = Measured(proposal, sha, to_parent)
        if not self._related(measured):
            return measured
        for member in self.scope:
            measured.from_scope[member.sha256] = _value(
                await self.oracle.transfer(member.game, game)
            )
        gamma = gamma_of(list(measured.from_scope.values()))
        measured.gamma = gamma if math.isfinite(gamma) else None
        return measured

    # --- replay and archive ----------------------------------------------------------------

    def _replayed(self, proposal: Proposal, sha: str, known: ScopeGameRecord) -> Measured | None:
        """A stored candidate: restore the pipeline's memory of it and its measurements."""
        doc = known.verdicts
        stages = [v["stage"] for v in doc["pipeline"]]
        if "dedup" in stages:
            self.pipeline.seen.setdefault(str(doc.get("key", "")), proposal)
        if not doc.get("kept"):
            return None
        measured = Measured(proposal, sha, doc.get("to_parent"))
        measured.from_scope = dict(doc.get("from_scope", {}))
        measured.gamma = known.gamma
        return measured

    @staticmethod
    def _transfer_doc(measured: Measured) -> dict[str, Any]:
        return {"to_parent": measured.to_parent, "from_scope": measured.from_scope}

    def _decide(
        self, k: int, parent: Member, batch: list[Measured], best: Measured | None,
        outcome: str,
    ) -> None:
        """Record the batch's decision on each of its kept candidates."""
        for m in batch:
            if m is best:
                decision = outcome
            elif not self._related(m):
                decision = f"not related to {parent.game.name} (V_G*(G) below alpha1)"
            else:
                decision = "not the least covered of its batch"
            known = self.stored[m.sha256]
            self._store(m.sha256, k, accepted=decision == "accepted", gamma=m.gamma,
                        verdicts={**known.verdicts, "decision": decision})

    def _store(
        self, sha: str, k: int, *, accepted: bool, gamma: float | None,
        verdicts: dict[str, Any],
    ) -> None:
        record = replace(self.stored[sha], round=k, accepted=accepted, gamma=gamma,
                         verdicts=verdicts)
        if self.stored.get(sha) != record:
            self.store.save_scope_game(self.scope_id, record)
            self.stored[sha] = record

    def _add_initial(self, game: GameText) -> None:
        sha = game_sha256(game.source)
        if sha in self.seen:
            return
        member = Member(game, sha, 0)
        self.scope.append(member)
        self.seen.add(sha)
        self._seed_dedup(game)
        record = ScopeGameRecord(
            game.name, sha, game.filename, game.source, None, 0, True, None,
            {"initial": True, "version": game.version}, {"decision": "initial"},
        )
        if self.stored.get(sha) != record:
            self.store.save_scope_game(self.scope_id, record)
            self.stored[sha] = record

    def _seed_dedup(self, game: GameText) -> None:
        """A candidate with an initial game's canonical form is a duplicate of it."""
        from arena.gamespace.sampling.canonical import canonical_key
        from arena.match_setup import load_game_text

        key = canonical_key(load_game_text(game.source, game.filename, name=game.name).program)
        self.pipeline.seen.setdefault(key, Proposal(
            game.name, game.source, game.filename, "", "initial", 0, 0, "initial"
        ))

    def _game_text(self, proposal: Proposal) -> GameText:
        return GameText(proposal.name, "1", proposal.filename, proposal.source)

    def _save_progress(self, status: str, k: int, position: int, member: Member) -> None:
        self.store.set_scope_progress(self.scope_id, status=status, round=k, state={
            "round": k, "position": position, "game": member.game.name,
            "candidates": self.candidates,
        })


__all__ = ["GrowthParams", "GrowthResult", "ScopeGrowth", "gamma_of"]
