"""Ratings and normalised scores of rating inputs (the records of one or several
tournaments): pure functions over `arena.tournaments.ratings` and its normalisation. Reading
the inputs from the database and storing snapshots is `arena.tournaments.records.rating_store`.

One or several tournaments are rated together (participants matched by name), so results
imported from other benchmarks merge with the arena's own. How a match's scores compare is
a property of where it came from:

* matches played by `arena run`, and imports with outcome ``higher-wins``: SCORING.md
  section 4 (the higher match score wins; within 1e-6 bits a tie, half a win each);
* imports with outcome ``win-share`` (GameBench): scores are shares of the win, a seat pair
  (x, y) counts ``s_x / (s_x + s_y)`` wins for x, and exact draws give no comparison (the
  match stays in the bootstrap pool), as GameBench computed its Table 1.

Point estimate ``auto``: the sources' own convention when they all agree (GameBench reports
bootstrap means), else the maximum-likelihood fit, the arena's leaderboard of record.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from itertools import combinations
from typing import Any, Literal, get_args

from arena.errors import ConfigError, did_you_mean
from arena.scoring import ThresholdSpec
from arena.storage.snapshot_draws import DRAWS_KEY, encode_draws
from arena.tournaments.planning.config import NORMALISATIONS
from arena.tournaments.ratings import (
    ComparisonData,
    Leaderboard,
    LeaderboardConfig,
    MatchRecord,
    Outcome,
    build_comparisons,
    elo_update,
    leaderboard_from_comparisons,
    pairwise_outcomes,
)
from arena.tournaments.ratings.bootstrap import RESAMPLING
from arena.tournaments.ratings.bradley_terry import DEFAULT_PRIOR
from arena.tournaments.ratings.elo import DEFAULT_INITIAL, DEFAULT_K
from arena.tournaments.ratings.informative import (
    UninformativeRole,
    uninformative_roles,
    without_uninformative,
)
from arena.tournaments.ratings.leaderboard import MIN_COMPARISONS
from arena.tournaments.ratings.normalisation import (
    Cell,
    NormalisedCell,
    ReferenceScores,
    XentMeasure,
    catch_up_normalisation,
    game_scores,
    reference_normalisation,
    xent_measures,
)
from arena.tournaments.ratings.normalisation_benchmark import (
    BenchmarkScores,
    benchmark_normalisation,
    no_result_counts,
)
from arena.tournaments.ratings.records import NoResultRecord

Scale = Literal["elo", "log"]
SCALES: tuple[Scale, ...] = get_args(Scale)
POINTS = ("auto", "mle", "bootstrap_mean")
SNAPSHOT_METHOD = "bradley_terry"


@dataclass(frozen=True)
class RatingOptions:
    """What `arena ratings` can change; defaults follow SCORING.md section 5."""

    scale: str = "elo"  # "elo" (mean 1000) or "log" (natural-log strengths, mean 0)
    point: str = "auto"  # "auto", "mle" or "bootstrap_mean"
    n_resamples: int = 1000
    resample: str = "auto"  # the bootstrap's unit (bootstrap.RESAMPLING; issues 30, 33)
    seed: int = 0
    confidence: float = 0.95
    role_effects: bool = False
    min_comparisons: int = MIN_COMPARISONS
    anchor: str | None = None
    anchor_value: float | None = None
    prior: float = DEFAULT_PRIOR  # L2 prior precision of the Bradley–Terry fit

    def __post_init__(self) -> None:
        for name, value, valid in (("scale", self.scale, SCALES), ("point", self.point, POINTS),
                                   ("resampling unit", self.resample, RESAMPLING)):
            if value not in valid:
                raise ConfigError(f"Unknown {name} '{value}'.{did_you_mean(value, valid)}")


DEFAULT_OPTIONS = RatingOptions()


@dataclass(frozen=True)
class RatingInputs:
    """The done matches of the named tournaments and how to read them."""

    tournaments: tuple[str, ...]
    records: tuple[MatchRecord, ...]
    win_share: frozenset[str] = frozenset()  # match ids whose scores are win shares
    points: frozenset[str] = frozenset()  # point-estimate conventions of the sources
    base: str | None = None  # the tournaments' base participant, when they name one
    normalisation: Mapping[str, Any] | None = None  # their `normalisation`, when they agree
    no_results: tuple[NoResultRecord, ...] = ()  # matches without a result: counted only


# ------------------------------------------------------------------------------ comparisons


def win_share_outcomes(record: MatchRecord) -> list[Outcome]:
    """Fractional wins between every pair of rated seats; exact draws give none."""
    out = []
    for x, y in combinations(record.players, 2):
        sx = 0.0 if x.forfeit or x.score is None else x.score
        sy = 0.0 if y.forfeit or y.score is None else y.score
        if x.participant == y.participant or sx == sy:
            continue
        out.append(
            Outcome(
                game=record.game, a=x.participant, b=y.participant, role_a=x.role,
                role_b=y.role, score_a=sx / (sx + sy), match_a=record.match_id,
                match_b=record.match_id,
            )
        )
    return out


def uninformative(inputs: RatingInputs) -> tuple[UninformativeRole, ...]:
    """The roles left out of the ratings: every entrant scored alike on every map."""
    return uninformative_roles(r for r in inputs.records if r.match_id not in inputs.win_share)


def rated_records(inputs: RatingInputs) -> list[MatchRecord]:
    """The records the ratings use: all but those of `uninformative` roles."""
    plain = [r for r in inputs.records if r.match_id not in inputs.win_share]
    kept = {r.match_id for r in without_uninformative(plain)[0]}
    return [r for r in inputs.records if r.match_id in kept or r.match_id in inputs.win_share]


def outcomes(
    inputs: RatingInputs, records: Iterable[MatchRecord] | None = None, eval_mode: bool = True
) -> list[Outcome]:
    """Pairwise outcomes of `records` (default: all), each read by its source's rule; the
    matches of `uninformative` roles give none (they would be ties that measure nothing).
    `eval_mode=False` leaves out the eval-mode matches read by the arena rule (the ratings
    take those as groups, see `comparisons`)."""
    return _outcomes(inputs, rated_records(inputs), records, eval_mode)


def _outcomes(
    inputs: RatingInputs,
    rated_list: list[MatchRecord],
    records: Iterable[MatchRecord] | None,
    eval_mode: bool,
) -> list[Outcome]:
    rated = {r.match_id for r in rated_list}
    recs = [r for r in (inputs.records if records is None else records) if r.match_id in rated]
    shares = [r for r in recs if r.match_id in inputs.win_share]
    plain = [r for r in recs if r.match_id not in inputs.win_share
             and (eval_mode or r.mode != "eval")]
    found = pairwise_outcomes(plain)
    for record in sorted(shares, key=lambda r: r.match_id):
        found += win_share_outcomes(record)
    return found


def comparisons(inputs: RatingInputs) -> ComparisonData:
    """Comparisons in array form, with every rated match in the bootstrap pool; eval-mode
    matches compared as groups (no object per pair of matches)."""
    rated = rated_records(inputs)
    return build_comparisons(
        _outcomes(inputs, rated, rated, eval_mode=False),
        [(r.match_id, r.game) for r in rated],
        participants=[s.participant for r in inputs.records for s in r.players],
        eval_records=[r for r in rated if r.mode == "eval" and r.match_id not in inputs.win_share],
        maps={r.match_id: r.map_id for r in rated},
    )


# ------------------------------------------------------------------------------ ratings


def resolved_point(inputs: RatingInputs, options: RatingOptions) -> str:
    if options.point != "auto":
        return options.point
    return next(iter(inputs.points)) if len(inputs.points) == 1 else "mle"


def leaderboard_config(inputs: RatingInputs, options: RatingOptions) -> LeaderboardConfig:
    return LeaderboardConfig(
        n_resamples=options.n_resamples,
        resample=options.resample,
        confidence=options.confidence,
        seed=options.seed,
        role_effects=options.role_effects,
        scale="natural" if options.scale == "log" else "elo",
        anchor=options.anchor,
        anchor_value=options.anchor_value,
        min_comparisons=options.min_comparisons,
        prior=options.prior,
        point="bootstrap_mean" if resolved_point(inputs, options) == "bootstrap_mean" else "mle",
    )


def compute_ratings(inputs: RatingInputs, options: RatingOptions = DEFAULT_OPTIONS) -> Leaderboard:
    """The Bradley–Terry leaderboard of `inputs` (empty rows when there is no match)."""
    return leaderboard_from_comparisons(comparisons(inputs), leaderboard_config(inputs, options))


def snapshot_payload(
    inputs: RatingInputs, options: RatingOptions, run_id: int | None = None
) -> dict[str, Any]:
    """What a rating snapshot stores: the rows, how they were computed, the live Elo, and
    the bootstrap draws (so viewers derive P(rank = k) without refitting)."""
    board = compute_ratings(inputs, options)
    config = replace(leaderboard_config(inputs, options), resample=board.resample)
    draws = None if board.draws is None else encode_draws(board.names, board.draws)
    return {
        "tournaments": list(inputs.tournaments),
        "run_id": run_id,
        "matches": len(inputs.records),
        "scale": options.scale,
        "config": asdict(config),
        "rows": board.as_dicts(),
        "role_effects": board.role_effects,
        "online_elo": online_elo(inputs),
        DRAWS_KEY: draws,
    }


# ------------------------------------------------------------------------------ live Elo


@dataclass(frozen=True)
class EloStep:
    """Online Elo ratings right after one match (matches in storage order)."""

    match_id: str
    game: str
    order: float
    ratings: Mapping[str, float]


def elo_series(
    inputs: RatingInputs, k: float = DEFAULT_K, initial: float = DEFAULT_INITIAL
) -> list[EloStep]:
    """Online Elo (SCORING.md section 5, live view only) after every match. A comparison is
    applied with the later of its matches; one match's comparisons are applied together."""
    recs = sorted(inputs.records, key=lambda r: (r.order, r.match_id))
    position = {r.match_id: i for i, r in enumerate(recs)}
    batches: dict[int, list[Outcome]] = defaultdict(list)
    for o in outcomes(inputs, recs):
        batches[max(position[o.match_a], position[o.match_b])].append(o)
    ratings = {s.participant: initial for r in recs for s in r.players}
    steps = []
    for i, rec in enumerate(recs):
        if batches.get(i):
            ratings = elo_update(ratings, batches[i], k, initial)
        steps.append(EloStep(rec.match_id, rec.game, rec.order, dict(ratings)))
    return steps


def online_elo(inputs: RatingInputs, k: float = DEFAULT_K) -> dict[str, float]:
    """Online Elo after all matches."""
    steps = elo_series(inputs, k)
    return dict(steps[-1].ratings) if steps else {}


# ------------------------------------------------------------------------------ normalisation


@dataclass(frozen=True)
class NormalisedReport:
    """Normalised scores (SCORING.md section 3) of the participants of some tournaments.

    ``method``: "catch-up", "narms" (the paper's threshold version, Definition 42, with
    ``threshold``) or "reference". ``catch_up[p][game]``: the base-relative score of the
    method (catch-up: B's rounds per round; narms: levels), mean over the game's playable
    roles; ``unplayable``: (game, role, reason) of cells not normalised; ``measures``: the
    Xent measure (histogram over games of those scores) per participant; ``reference``:
    reference normalisation (percent of the best score per map), always computed."""

    base: str | None
    catch_up: Mapping[str, Mapping[str, float]]
    cells: Mapping[Cell, NormalisedCell]
    unplayable: tuple[tuple[str, str, str], ...]
    measures: Mapping[str, XentMeasure]
    reference: ReferenceScores
    notes: tuple[str, ...] = field(default_factory=tuple)
    method: str = "catch-up"
    threshold: ThresholdSpec | None = None
    benchmark: BenchmarkScores | None = None  # method "benchmark": the benchmark's score
    no_results: Mapping[str, Mapping[str, int]] = field(default_factory=dict)  # p -> game -> n


def normalisation_choice(
    inputs: RatingInputs,
    method: str | None = None,
    theta: float | None = None,
    m: int | None = None,
) -> tuple[str, ThresholdSpec | None]:
    """The method (given, else the tournaments' `normalisation`, else catch-up) and, for
    narms, its levels (given, else the file's, else theta 1 bit and m 2)."""
    stored = inputs.normalisation or {}
    chosen = method or str(stored.get("method", "catch-up"))
    if chosen not in NORMALISATIONS:
        raise ConfigError(
            f"Unknown normalisation '{chosen}'.{did_you_mean(chosen, NORMALISATIONS)} "
            f"Valid options: {', '.join(NORMALISATIONS)}."
        )
    if chosen != "narms":
        return chosen, None
    spec = ThresholdSpec(
        theta=float(theta if theta is not None else stored.get("theta", 1.0)),
        m=int(m if m is not None else stored.get("m", 2)),
    )
    if not (math.isfinite(spec.theta) and spec.theta > 0) or spec.m < 1:
        raise ConfigError(
            f"narms needs theta > 0 and m >= 1, got theta={spec.theta}, m={spec.m}. "
            "Pass e.g. --theta 0.5 --levels 2."
        )
    return chosen, spec


def normalised_scores(
    inputs: RatingInputs,
    base: str | None = None,
    *,
    horizon: int | None = None,
    bin_edges: Sequence[float] | None = None,
    method: str | None = None,
    theta: float | None = None,
    m: int | None = None,
) -> NormalisedReport:
    """Base-relative scores by `method` (catch-up or the paper's narms, against `base`,
    default the tournaments' `base`), the Xent measure, and reference normalisation."""
    chosen_method, threshold = normalisation_choice(inputs, method, theta, m)
    records = list(inputs.records)
    chosen = base or inputs.base
    notes: list[str] = []
    cells: dict[Cell, NormalisedCell] = {}
    if chosen_method in ("reference", "benchmark"):
        chosen = None
    elif chosen is None:
        notes.append(
            "No base participant: catch-up scores and the Xent measure need one. Set "
            "`base = \"NAME\"` in the tournament file or pass --base NAME."
        )
    else:
        people = {s.participant for r in records for s in r.players}
        if records and chosen not in people:
            raise ConfigError(
                f"Base participant '{chosen}' has no match in {', '.join(inputs.tournaments)}."
                f"{did_you_mean(chosen, people)}"
            )
        cells = catch_up_normalisation(records, chosen, horizon, threshold)
    scores = game_scores(cells)
    unplayable = tuple(
        (c.game, c.role, c.reason) for c in cells.values() if not c.playable
    )
    return NormalisedReport(
        chosen,
        scores,
        cells,
        unplayable,
        xent_measures(scores, bin_edges) if scores else {},
        reference_normalisation(records),
        tuple(notes),
        chosen_method,
        threshold,
        benchmark_normalisation(records, inputs.no_results)
        if chosen_method == "benchmark"
        else None,
        no_result_counts(inputs.no_results),
    )
