"""Running max, catch-up and threshold normalisation, reference normalisation, Xent measure."""

from __future__ import annotations

import numpy as np
import pytest

from arena.scoring import StepsFunction, ThresholdSpec, catch_up_scores, threshold_scores
from arena.tournaments.ratings import MatchRecord, SeatRecord
from arena.tournaments.ratings.normalisation import (
    arms_curves,
    catch_up_normalisation,
    forfeit_values,
    game_scores,
    reference_normalisation,
    xent_measures,
)


def rec(
    mid: str,
    who: str,
    rounds: tuple[float | None, ...],
    map_id: str = "m1",
    game: str = "g",
    role: str = "p",
    forfeit: bool = False,
) -> MatchRecord:
    numbers = [r for r in rounds if r is not None]
    score = None if forfeit or not numbers else max(numbers)
    main = SeatRecord(role, who, score, forfeit or score is None, tuple(rounds))
    npc = SeatRecord("npc-role", "npc", 0.0, npc=True)
    return MatchRecord(mid, game, map_id, (main, npc), mode="eval", rounds=len(rounds))


def curve_records(who: str, per_map: dict[str, list[float]], game: str = "g") -> list[MatchRecord]:
    return [
        rec(f"{game}-{who}-{m}", who, tuple(v), map_id=m, game=game) for m, v in per_map.items()
    ]


# --- catch-up ---------------------------------------------------------------------------------


def test_base_scores_one_where_its_curve_strictly_increases() -> None:
    records = curve_records("B", {"m1": [1, 2, 2, 4, 5]})
    cell = catch_up_normalisation(records, base="B")[("g", "p")]
    assert cell.playable
    # Flat at k=3: the value 2 was first reached at k=2, so 2/3 of a round per round.
    assert cell.curves["B"] == pytest.approx((1.0, 1.0, 2 / 3, 1.0, 1.0))


def test_participant_twice_as_fast_scores_two() -> None:
    base = {"m1": [float(k) for k in range(1, 9)], "m2": [k + 10.0 for k in range(1, 9)]}
    fast = {"m1": [2.0 * k for k in range(1, 9)], "m2": [2.0 * k + 10 for k in range(1, 9)]}
    records = curve_records("B", base) + curve_records("F", fast)
    cell = catch_up_normalisation(records, base="B")[("g", "p")]
    # Beyond B's horizon (k > 4) the end-segment slope carries on: still 2.
    assert cell.curves["F"] == pytest.approx((2.0,) * 8)
    assert cell.final["F"] == pytest.approx(2.0)


def test_scores_are_clipped_to_zero_and_ten() -> None:
    base = [1.0, 2.0, 3.0, 4.0]
    assert catch_up_scores(base, [-100.0] * 4) == (0.0, 0.0, 0.0, 0.0)
    assert catch_up_scores(base, [1000.0] * 4) == (10.0, 10.0, 10.0, 10.0)
    assert catch_up_scores(base, [0.5, 0.5, 0.5, 0.5])[0] == pytest.approx(0.5)


def test_flat_base_curve_is_flagged_not_playable() -> None:
    records = curve_records("B", {"m1": [3.0, 3.0, 3.0]}) + curve_records("M", {"m1": [1, 5, 6]})
    cell = catch_up_normalisation(records, base="B")[("g", "p")]
    assert not cell.playable and "flat" in cell.reason and cell.curves == {}
    assert catch_up_scores([3.0, 3.0], [1.0, 2.0]) is None
    missing = catch_up_normalisation(records, base="nobody")[("g", "p")]
    assert not missing.playable and "no match" in missing.reason


def test_steps_function_extrapolates_with_end_segment_slopes() -> None:
    steps = StepsFunction.from_curve([1.0, 3.0, 4.0, 4.0])
    assert steps is not None
    assert steps(3.5) == pytest.approx(2.5)  # inside: linear between (2, 3) and (3, 4)
    assert steps(4.0) == pytest.approx(3.0)  # plateau: first round that reaches it
    assert steps(0.0) == pytest.approx(0.5)  # below: first segment slope 2
    assert steps(-1.0) == 0.0 and steps(-50.0) == 0.0  # clipped at 0
    # Above: the last segment is flat, so the mean slope (4 - 1) / 3 = 1 is used.
    assert steps(6.0) == pytest.approx(6.0)
    flat_start = StepsFunction.from_curve([2.0, 2.0, 5.0])
    assert flat_start is not None and flat_start.slope_low == pytest.approx(1.5)
    assert flat_start(1.25) == pytest.approx(0.5)
    assert flat_start(8.0) == pytest.approx(4.0)  # last segment slope 3


def test_threshold_version_from_the_paper() -> None:
    base = [float(k) for k in range(1, 9)]  # b = 1; levels 2, 3, 4, 5
    spec = ThresholdSpec(theta=1.0, m=4)
    own = threshold_scores(base, base, spec)
    assert own is not None and own[4] == pytest.approx(4.0)  # level m at k_m = 5
    fast = threshold_scores(base, [2.0, 4.0, 6.0, 8.0], spec)
    # Passes level 5 at round 2.5 (between 4 and 6): 4 * 3 / 2.5 at l = 3.
    assert fast == pytest.approx((1.0, 3.0, 4.8, 6.4))
    assert threshold_scores(base, base, ThresholdSpec(theta=10.0, m=4)) is None
    cells = catch_up_normalisation(curve_records("B", {"m1": base}), "B", threshold=spec)
    assert cells[("g", "p")].final["B"] == pytest.approx(4 * 8 / 5)


# --- running max with forfeits and missing maps -----------------------------------------------


def test_arms_counts_forfeited_rounds_and_missing_maps() -> None:
    records = curve_records("B", {"m1": [2.0, 4.0], "m2": [6.0, 8.0]})
    records.append(rec("M-m1", "M", (None, 3.0), map_id="m1"))
    values = forfeit_values(records, "round")
    assert values[("g", "p", "m1")] == 1.0  # worst round on m1 is 2.0, minus one bit
    curves = arms_curves(records)[("g", "p")]
    assert curves["B"] == pytest.approx([4.0, 6.0])
    # M: m1 -> forfeit 1.0 then 3.0; m2 missing -> 5.0 (worst 6.0 minus 1) every round.
    assert curves["M"] == pytest.approx([(1.0 + 5.0) / 2, (3.0 + 5.0) / 2])


# --- reference normalisation -------------------------------------------------------------------


def test_reference_normalisation_counts_forfeits_and_missing_maps() -> None:
    records = [
        rec("a1", "A", (10.0,), "m1"),
        rec("a2", "A", (5.0,), "m2"),
        rec("b1", "B", (4.0,), "m1"),
        rec("b2", "B", (None,), "m2", forfeit=True),
        rec("c1", "C", (2.0,), "m1"),  # C never played m2
        rec("h1", "A", (3.0,), "m1", game="h"),
        rec("k1", "A", (-2.0,), "m1", game="k"),
        rec("k2", "B", (-4.0,), "m1", game="k"),
        rec("z1", "A", (0.0,), "m1", game="z"),  # best score 0: cannot divide
    ]
    ref = reference_normalisation(records)
    # Best: m1 10, m2 5. Forfeit value on m2: worst 5 minus one bit = 4; C is missing m2.
    assert ref.per_game["A"]["g"] == pytest.approx(100.0)
    assert ref.per_game["B"]["g"] == pytest.approx(100 * (4 / 10 + 4 / 5) / 2)
    assert ref.per_game["C"]["g"] == pytest.approx(100 * (2 / 10 + 4 / 5) / 2)
    # Negative scores divide by the absolute best.
    assert ref.per_game["B"]["k"] == pytest.approx(-200.0)
    assert ref.overall["A"] == pytest.approx((100 + 100 - 100) / 3)
    assert ref.overall["C"] == pytest.approx(50.0)
    assert ref.skipped_maps == (("z", "p", "m1"),)


# --- Xent measure ------------------------------------------------------------------------------


def test_xent_measure_histogram_per_participant() -> None:
    measures = xent_measures({"A": {"g1": 1.0, "g2": 2.2, "g3": 12.0}, "B": {"g1": 0.0}})
    a = measures["A"]
    assert len(a.bin_edges) == 21 and a.bin_edges[-1] == 10.0
    masses = np.array(a.masses)
    assert masses.sum() == pytest.approx(1.0)
    assert masses[2] == masses[4] == masses[-1] == pytest.approx(1 / 3)  # 12 clipped into the top
    assert measures["B"].masses[0] == 1.0
    assert measures["B"].bin_edges == a.bin_edges  # shared edges for overlays


def test_game_scores_average_playable_roles() -> None:
    base = [1.0, 2.0, 3.0]
    records = (
        [rec(f"B{r}", "B", tuple(base), role=r) for r in ("x", "y")]
        + [rec("Mx", "M", (2.0, 3.0, 4.0), role="x")]
        + [rec("My", "M", tuple(base), role="y")]
    )
    scores = game_scores(catch_up_normalisation(records, base="B"))
    assert scores["B"]["g"] == pytest.approx(1.0)
    assert scores["M"]["g"] == pytest.approx((4 / 3 + 1.0) / 2)
