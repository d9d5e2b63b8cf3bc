"""The versions of dialect xent (XGL.md section 9, `arena.lang.dialects`): each row plays as
the reference did at the commits it follows. The cases are recorded from the reference
itself (tests/data/xent_reference, README there): its `only_uses_words` at dc72fe4 (the
published benchmark's) and at b2526b9 (whole words, the current rule)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.errors import UnknownNameError
from arena.judges.ngram import NgramJudge
from arena.lang.dialects import (
    DIALECT_NAMES,
    dialect_rules,
    rules_for_reference_version,
    rules_named,
)
from arena.lang.loader import load_game
from tests.runtime.helpers import ListPlayer, events_of, run_game

DATA = Path(__file__).resolve().parents[1] / "data" / "xent_reference"


def _cases(commit: str) -> list[dict[str, object]]:
    text = (DATA / f"only_uses_words_{commit}.json").read_text(encoding="utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


async def _accepted(dialect: str, allowed: str, move: str) -> bool:
    """Whether `ensure(only_uses_words(s1, x))` lets `move` through in a played round."""
    source = f"assign(s1={allowed!r})\nelicit(x, 99)\nensure(only_uses_words(s1, x))\n"
    result = await run_game(
        source, {"black": ListPlayer([move])}, NgramJudge(), dialect=dialect, ensure_budget=0
    )
    assert result.error is None, result.error
    return not events_of(result, "no_result")


@pytest.mark.parametrize(
    ("dialect", "commit"),
    [("xent@2025-09", "dc72fe4"), ("xent@0.2", "dc72fe4"), ("xent", "b2526b9")],
)
async def test_only_uses_words_is_the_references_of_the_version(dialect: str, commit: str) -> None:
    cases = _cases(commit)
    got = [await _accepted(dialect, str(c["allowed"]), str(c["text"])) for c in cases]
    assert got == [c["result"] for c in cases]


async def test_the_versions_disagree_where_the_reference_changed() -> None:
    """"bee hive" against "... beehive ...": a valid move of the published benchmark, an
    invalid one under the current rule (the recorded cases say so, at both commits)."""
    old = {c["text"]: c["result"] for c in _cases("dc72fe4")}
    new = {c["text"]: c["result"] for c in _cases("b2526b9")}
    changed = sorted(str(t) for t in old if old[t] != new[t])
    assert {"bee hive", "he ant", "owl  moon", ""} <= set(changed)
    symbols = str(_cases("dc72fe4")[0]["allowed"])
    assert await _accepted("xent@2025-09", symbols, "bee hive")
    assert not await _accepted("xent", symbols, "bee hive")


def test_one_row_per_name_and_names_read_in_any_case() -> None:
    assert DIALECT_NAMES == ("xgl", "xent", "xent@2025-09", "xent@0.2")
    for name in DIALECT_NAMES:
        rules = rules_named(name.upper())
        assert rules.name == name and rules.family == name.partition("@")[0]
    assert dialect_rules("xent@1999") is None
    with pytest.raises(UnknownNameError, match="xent@2025-09"):
        rules_named("xent@1999")


def test_ensure_rules_per_row() -> None:
    """xgl: 10 per player, then a forfeit; xent rows: per line, then no result; 100 at the
    published run (reference runtime.py MAX_ENSURE_FAILURES at 80ab799), 10 after f5f3b54."""
    budgets = {n: (r.ensures.per, r.ensures.budget, r.ensures.exceeded)
               for n in DIALECT_NAMES if (r := rules_named(n))}
    assert budgets == {
        "xgl": ("player", 10, "forfeit"),
        "xent": ("line", 10, "no_result"),
        "xent@2025-09": ("line", 100, "no_result"),
        "xent@0.2": ("line", 10, "no_result"),
    }


def test_a_game_names_its_version_in_its_header_or_is_given_one() -> None:
    source = "# dialect: xent@2025-09\nelicit(x, 5)\n"
    program = load_game(source, filename="g.xgl")
    assert (program.dialect, program.version, program.dialect_name) == (
        "xent", "2025-09", "xent@2025-09"
    )
    plain = load_game("elicit(x, 5)\n", filename="g.xent", dialect="XENT@0.2")
    assert (plain.dialect, plain.dialect_name) == ("xent", "xent@0.2")
    assert load_game("elicit(x, 5)\n", filename="g.xent").dialect_name == "xent"
    with pytest.raises(UnknownNameError, match=r"Valid options: xent, xent@0\.2, xent@2025-09"):
        load_game("elicit(x, 5)\n", filename="g.xent", dialect="xent@2024")


@pytest.mark.parametrize(
    ("package", "version", "expected"),
    [
        ("xega", "0.1.0", "xent@2025-09"),  # benchmark 0.2's own metadata
        (None, None, "xent@2025-09"),  # benchmark 0.1: no version recorded
        ("xega", "0.1.2", "xent@0.2"),
        ("xent", "0.1.0", "xent@0.2"),  # after the rename (2025-09-16)
        ("xent", "0.2.0", "xent@0.2"),  # PyPI xent 0.2.0: substring test, 10 per line
        ("xent", "0.3.0", "xent"),  # PyPI xent 0.3.0: whole words
        ("xent", "0.5.0", "xent"),
        ("xent", "not a version", "xent@2025-09"),
    ],
)
def test_a_config_version_picks_its_row(
    package: str | None, version: str | None, expected: str
) -> None:
    assert rules_for_reference_version(package or "xent", version).name == expected
