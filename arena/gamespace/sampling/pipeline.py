"""The filter pipeline for candidate games (gg-bench's pipeline, with the paper's checks):

static check -> seeded smoke match -> well-posedness (Def. 30) -> few-shot playability for
a base participant (Def. 33) -> de-duplication by canonical form -> novelty against the
library.

A candidate stops at the first stage it fails; each stage it reached leaves a verdict with
its evidence, so a researcher can see why every candidate was kept or dropped. Stages run in
the issue's order; dedup and novelty compare canonical forms (`arena.gamespace.sampling.canonical`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from arena.analysis.playability import run_playability
from arena.analysis.smoke import smoke_match
from arena.analysis.wellposed import check_well_posed
from arena.errors import ArenaError, ConfigError, GameSyntaxError
from arena.gamespace.sampling.canonical import canonical_key
from arena.gamespace.sampling.fewshot import BASE, EPSILON, MAPS, ROUNDS, trend_test
from arena.match_setup import LoadedGame, load_entry, load_game_text
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.protocols.sampler import GAVE_UP as GAVE_UP
from arena.protocols.sampler import Proposal

STAGES = ("static", "smoke", "wellposed", "playability", "dedup", "novelty")


@dataclass(frozen=True)
class PipelineConfig:
    """How hard each stage looks. The defaults are few-shot: seconds per candidate (the
    playability stage's `search` base plays N x m rounds, about 10 s on this project's
    2-core machine with the n-gram judge)."""

    seed: int = 0
    player: str = "random"  # every seat of the smoke match
    base: str = BASE  # the base participant of the playability stage
    maps: int = MAPS  # N
    rounds: int = ROUNDS  # m
    wellposed_candidates: int = 4
    wellposed_steps: int = 1
    max_replay: int = 2
    # "trend" (default): the permutation test of arena.gamespace.sampling.fewshot, a
    # non-learning player passes with probability <= epsilon, a learning base (`search`)
    # passes a playable game; "arms": Def. 33's curve (arms rises for m = rounds // 2
    # steps), which any player whose scores vary passes often (random: 5/12 at N=2, m=2)
    fewshot: str = "trend"
    epsilon: float = EPSILON

    @classmethod
    def for_rule(cls, fewshot: str, **changes: Any) -> PipelineConfig:
        """The config of few-shot rule `fewshot` at its own sizes ("trend": base `search`,
        N = 4, m = 6; "arms": base `random`, N = 2, m = 4, the sizes it always had), with
        `changes` (None values ignored) on top."""
        if fewshot not in FEWSHOT_RULES:
            raise ConfigError(
                f"Unknown few-shot rule {fewshot!r}: choose {' or '.join(FEWSHOT_RULES)}, "
                "e.g. --fewshot trend (the default: the rule a non-learner fails)."
            )
        sizes: dict[str, Any] = {"fewshot": fewshot}
        if fewshot == "arms":
            sizes |= {"base": "random", "maps": 2, "rounds": 4}
        return cls(**(sizes | {k: v for k, v in changes.items() if v is not None}))


FEWSHOT_RULES = ("trend", "arms")


@dataclass(frozen=True)
class Verdict:
    """One stage's outcome for one candidate: passed or not, why, and the evidence."""

    stage: str
    passed: bool
    reason: str
    evidence: dict[str, Any] = field(default_factory=dict)


@dataclass
class CandidateRecord:
    """A proposal, its canonical key and the verdicts of the stages it reached."""

    proposal: Proposal
    key: str = ""
    verdicts: list[Verdict] = field(default_factory=list)

    @property
    def kept(self) -> bool:
        return len(self.verdicts) == len(STAGES) and all(v.passed for v in self.verdicts)

    @property
    def decided_by(self) -> Verdict:
        """The failing verdict, or the last one for a kept candidate."""
        return next((v for v in self.verdicts if not v.passed), self.verdicts[-1])

    def to_dict(self) -> dict[str, Any]:
        doc = asdict(self.proposal)
        doc.pop("source")
        return {
            **doc,
            "canonical_key": self.key,
            "kept": self.kept,
            "verdicts": [asdict(v) for v in self.verdicts],
        }


def library_keys(registry: Registry) -> dict[str, str]:
    """Canonical key -> name of every registered game that checks (the novelty library)."""
    keys: dict[str, str] = {}
    for name in registry.game_names():
        try:
            keys.setdefault(canonical_key(load_entry(registry.game(name)).program), name)
        except GameSyntaxError:
            continue
    return keys


def _finite(values: Iterable[float | None]) -> list[float | None]:
    return [v if v is not None and math.isfinite(v) else None for v in values]


class FilterPipeline:
    """Runs candidates through the stages with one judge; remembers what it has kept."""

    def __init__(
        self, registry: Registry, judge: Judge, config: PipelineConfig,
        library: dict[str, str] | None = None,
    ) -> None:
        self.registry, self.judge, self.config = registry, judge, config
        self.library = library_keys(registry) if library is None else library
        self.seen: dict[str, Proposal] = {}  # canonical key -> first candidate with it

    async def run(self, proposal: Proposal) -> CandidateRecord:
        record = CandidateRecord(proposal)
        gave_up = proposal.extra.get(GAVE_UP)
        if isinstance(gave_up, str):  # recorded by the sampler, never a game to check
            record.verdicts.append(Verdict("sampler", False, gave_up, {}))
            return record
        try:
            game = load_game_text(proposal.source, proposal.filename, name=proposal.name)
        except GameSyntaxError as error:
            record.verdicts.append(Verdict("static", False, str(error).splitlines()[0], {
                "diagnostics": [d.render() for d in error.diagnostics]
            }))
            return record
        record.key = canonical_key(game.program)
        record.verdicts.append(Verdict("static", True, "checks", {"roles": list(game.roles)}))
        for stage in (self.smoke, self.wellposed, self.playability, self.dedup, self.novelty):
            try:
                verdict = await stage(game, record)
            except ArenaError as error:
                name = stage.__name__
                verdict = Verdict(name, False, f"{type(error).__name__}: {error}", {})
            record.verdicts.append(verdict)
            if not verdict.passed:
                break
        return record

    async def smoke(self, game: LoadedGame, record: CandidateRecord) -> Verdict:
        cfg = self.config
        result = await smoke_match(
            game, self.registry, self.judge, player=cfg.player, seed=cfg.seed,
            max_replay=cfg.max_replay,
        )
        evidence = {
            "scores": {r: _finite(s) for r, s in result.scores.items()},
            "forfeits": result.forfeits, "error": result.error,
        }
        if result.error:
            return Verdict("smoke", False, f"the smoke match failed: {result.error}", evidence)
        if game.roles and set(result.forfeits) >= set(game.roles):
            return Verdict("smoke", False, "every seat forfeited the smoke match", evidence)
        return Verdict("smoke", True, "a seeded match plays to the end", evidence)

    async def wellposed(self, game: LoadedGame, record: CandidateRecord) -> Verdict:
        cfg = self.config
        result = await check_well_posed(
            game, self.judge, seed=cfg.seed, candidates=cfg.wellposed_candidates,
            search_steps=cfg.wellposed_steps, max_replay=cfg.max_replay,
        )
        evidence = {
            "spearman": result.spearman, "regret": _finite([result.regret])[0],
            "resolution": result.resolution, "best_changed": result.best_changed,
        }
        return Verdict("wellposed", not result.ill_posed, result.reason, evidence)

    async def playability(self, game: LoadedGame, record: CandidateRecord) -> Verdict:
        cfg = self.config
        report = await run_playability(
            game, self.judge, self.registry, participant=cfg.base, maps=cfg.maps,
            rounds=cfg.rounds, seed=cfg.seed, max_replay=cfg.max_replay,
        )
        evidence = {
            "curve": _finite(report.curve), "leading_increases": report.leading_increases,
            "required": report.required_steps, "maps": report.maps, "rounds": report.rounds,
        }
        if cfg.fewshot == "trend":
            test = trend_test(report.per_map, epsilon=cfg.epsilon, seed=cfg.seed)
            evidence.update(p_value=test.p_value, epsilon=cfg.epsilon)
            verb = "rise" if test.passed else "do not rise clearly enough"
            reason = (
                f"{cfg.base}'s scores {verb} over {report.rounds} rounds on {test.maps} maps: "
                f"permutation p = {test.p_value:.3g} (passes at <= {cfg.epsilon})"
            )
            return Verdict("playability", test.passed, reason, evidence)
        reason = (
            f"{cfg.base} improved {report.leading_increases} of the {report.required_steps} "
            f"rounds needed over {report.rounds} rounds on {report.maps} maps"
        )
        return Verdict("playability", report.playable, reason, evidence)

    async def dedup(self, game: LoadedGame, record: CandidateRecord) -> Verdict:
        first = self.seen.setdefault(record.key, record.proposal)
        if first is not record.proposal:
            return Verdict("dedup", False, f"the same game as candidate {first.name} up to "
                           "register and flag names", {"duplicate_of": first.name})
        return Verdict("dedup", True, "first of its canonical form", {})

    async def novelty(self, game: LoadedGame, record: CandidateRecord) -> Verdict:
        known = self.library.get(record.key)
        if known is not None:
            return Verdict("novelty", False, f"the same game as library game {known} up to "
                           "register and flag names", {"same_as": known})
        return Verdict("novelty", True, "not in the library", {})
