"""The oracle comparison (issue 31): every turn of 3-round matches of the six games of
benchmark 0.2, recorded from the reference at the commit the config was run with (80ab799;
its runtime, its player's reply parsing, the config's own presentation functions, the
bundled judge's weights), played again by the arena with the same replies.

On every turn the prompt the model receives, the move stored, the failed ensures and the
scores are compared. What is not identical is listed in docs/xent-benchmark.md with its
measured effect, and pinned here so that a new difference fails:

- the judge's arithmetic: per-token values agree to 2e-5 bits, not to the last bit, so a
  total shown with 3 decimals can differ in its last digit, and which totals do depends on
  the machine's kernels (one Two-Ways turn on the machine the oracle was recorded for; two
  Condense turns and no Two-Ways one with AVX-512 on an AMD EPYC): any prompt may differ from
  the reference's in such digits, and in nothing else;
- a move cut between two tokens of one character ends in U+FFFD in the reference (it decodes
  the kept tokens); we keep whole characters (one Horizon map here, moves with emoji).
"""

from __future__ import annotations

import ast
import asyncio
import difflib
import hashlib
import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest

from arena.players.llm.xent_benchmark_prompt import render_xent_benchmark
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.protocols.player import (
    GameView,
    HistoryItem,
    MoveRequest,
    RevealedValue,
    RewardTermView,
    RoundMemory,
)
from tests.games.xent_oracle import (
    DIALECT,
    Played,
    arena_rounds,
    config,
    play_recorded,
    recorded,
    reference_rounds,
)

pytestmark = pytest.mark.slow

MATCHES = recorded()["matches"]
NO_RESULT = recorded()["no_result"]
# (map seed, turn) -> why the prompt differs; the only differences the oracle finds.
KNOWN = {("gameHorizon_map3", t): "a cut move ends in U+FFFD there" for t in range(2, 9)}
_NUMBER = re.compile(r"-?\d+\.\d{3}")


@pytest.fixture(scope="module")
def judge() -> Iterator[Judge]:
    yield Registry.load().create_judge("bundled")


@pytest.fixture(scope="module")
def played(judge: Judge) -> dict[str, Played]:
    registry = Registry.load()

    async def run() -> dict[str, Played]:
        return {m["map_seed"]: await play_recorded(m, judge, registry) for m in MATCHES + NO_RESULT}

    return asyncio.run(run())


def _diff(reference: str, ours: str) -> list[str]:
    return [line for line in difflib.ndiff(reference.splitlines(), ours.splitlines())
            if line.startswith(("- ", "+ "))]


def _last_digit_only(reference: str, ours: str) -> bool:
    """The texts differ only in 3-decimal numbers, each by at most 0.001."""
    ref_numbers, our_numbers = _NUMBER.findall(reference), _NUMBER.findall(ours)
    same_text = _NUMBER.sub("#", reference) == _NUMBER.sub("#", ours)
    return same_text and all(
        abs(float(a) - float(b)) <= 0.0011 for a, b in zip(ref_numbers, our_numbers, strict=True)
    )


def _ufffd_only(reference: str, ours: str) -> bool:
    """The texts differ only by U+FFFD characters the reference has and we do not."""
    return reference.replace("\ufffd", "") == ours.replace("\ufffd", "") and len(reference) > len(
        ours
    )


@pytest.mark.parametrize("match", MATCHES, ids=[m["map_seed"] for m in MATCHES])
def test_every_prompt_is_the_references(match: dict[str, Any], played: dict[str, Played]) -> None:
    ours = played[match["map_seed"]]
    reference = [t["prompt"] for t in match["turns"]]
    assert len(ours.prompts) == len(reference)
    for turn, (theirs, mine) in enumerate(zip(reference, ours.prompts, strict=True)):
        if (match["map_seed"], turn) in KNOWN:
            assert mine != theirs and _ufffd_only(theirs, mine), _diff(theirs, mine)
        else:  # the same, or the judge's arithmetic in a last digit (module docstring)
            assert mine == theirs or _last_digit_only(theirs, mine), (
                f"turn {turn}: {_diff(theirs, mine)[:6]}")


@pytest.mark.parametrize("match", MATCHES, ids=[m["map_seed"] for m in MATCHES])
def test_every_move_ensure_and_score_is_the_references(
    match: dict[str, Any], played: dict[str, Played]
) -> None:
    ours = played[match["map_seed"]]
    assert ours.error is None and ours.no_result is None
    theirs_rounds, our_rounds = reference_rounds(match), arena_rounds(ours.events)
    assert len(our_rounds) == len(theirs_rounds) == match["rounds"]
    for theirs, mine in zip(theirs_rounds, our_rounds, strict=True):
        ref_moves = [e["response"] for e in theirs if e["type"] == "elicit_response"]
        our_moves = [v for e in mine if e.type == "elicit_response" for v in e.values.values()]
        if match["map_seed"] == "gameHorizon_map3":
            assert [m.replace("\ufffd", "") for m in ref_moves] == our_moves
        else:
            assert our_moves == ref_moves
        assert [e["type"] for e in theirs if e["type"] in ("failed_ensure", "reward")] == [
            e.type for e in mine if e.type in ("failed_ensure", "reward")
        ]
        ref_rewards = [e["total"] for e in theirs if e["type"] == "reward"]
        our_rewards = [e.total for e in mine if e.type == "reward"]
        assert our_rewards == pytest.approx(ref_rewards, abs=1e-3)
    ref_scores = [r["score"] for r in match["result"]["rounds"]]
    assert list(ours.rounds) == pytest.approx(ref_scores, abs=1e-3)
    assert ours.best == pytest.approx(match["result"]["score"], abs=1e-3)


@pytest.mark.parametrize("match", NO_RESULT, ids=[m["map_seed"] for m in NO_RESULT])
def test_no_result_where_the_reference_has_none(
    match: dict[str, Any], played: dict[str, Played]
) -> None:
    """An ensure line failed 101 times (101 prompts, each the reference's), and a provider
    error in round 2: the reference stores no result for the map, nor do we."""
    ours = played[match["map_seed"]]
    assert match["result"] is None and ours.no_result is not None and ours.best is None
    assert len(ours.prompts) == len(match["turns"])
    for turn, (prompt, theirs) in enumerate(zip(ours.prompts, match["turns"], strict=True)):
        assert _hashes_within_last_digit(prompt, theirs["prompt_sha256"]), turn


def _hashes_within_last_digit(prompt: str, sha256: str) -> bool:
    """Whether ``prompt``, or the prompt with some of its 3-decimal numbers one unit off in the
    last digit (the judge's arithmetic, module docstring), hashes to ``sha256`` (only the
    reference's hashes are recorded for these matches)."""
    spans = [m.span() for m in _NUMBER.finditer(prompt)][:4]
    for shifts in itertools.product((0, -1, 1), repeat=len(spans)):
        text, offset = prompt, 0
        for (start, end), shift in zip(spans, shifts, strict=True):
            if shift:
                old = text[start + offset : end + offset]
                new = f"{float(old) + shift * 0.001:.3f}"
                text = text[: start + offset] + new + text[end + offset :]
                offset += len(new) - len(old)
        if hashlib.sha256(text.encode()).hexdigest() == sha256:
            return True
    return False


def _history(events: list[dict[str, Any]]) -> list[HistoryItem]:
    """The reference's recorded round as our seat history (its token strings and values)."""
    items: list[HistoryItem] = []
    for e in events:
        line = e["line_num"] + 1
        if e["type"] == "elicit_response":
            items.append(HistoryItem("move", line, moves={"x": e["response"]}))
        elif e["type"] == "failed_ensure":
            items.append(HistoryItem("failed_ensure", line, condition="c"))
        elif e["type"] == "reveal":
            ((label, value),) = e["values"].items()
            items.append(HistoryItem("reveal", line, reveal=RevealedValue(label, value, line)))
        elif e["type"] == "reward":
            tokens = tuple(t for t, _ in e["pairs"])
            bits = tuple(v for _, v in e["pairs"])
            term = RewardTermView("r", 1, bits, tokens, e["total"])
            items.append(HistoryItem("reward", line, terms=(term,)))
    return items


@pytest.mark.parametrize(
    "match", [m for m in MATCHES if "Horizon" not in m["game"]],
    ids=[m["map_seed"] for m in MATCHES if "Horizon" not in m["game"]],
)
def test_the_references_own_values_render_its_prompts_exactly(match: dict[str, Any]) -> None:
    """Without the judge's arithmetic in the way: the reference's recorded token strings
    and values, given to our renderer, give its prompt at the start of every round, to the
    character (totals summed in its order, U+FFFD tokens, rounding)."""
    (game,) = [g for g in config()["games"] if g["name"] == match["game"]]
    rounds = reference_rounds(match)
    first_turns = [0]
    for events in rounds[:-1]:
        first_turns.append(
            first_turns[-1] + sum(e["type"] == "elicit_response" for e in events)
        )
    registers = _start_registers(match)
    for number, turn in enumerate(first_turns):
        memories = tuple(
            RoundMemory(n + 1, tuple(_history(events)), 0.0)
            for n, events in enumerate(rounds[:number])
        )
        request = MoveRequest(
            game=GameView(game["name"], game["code"], DIALECT), role="black", round=number + 1,
            rounds=3, line=0, registers=("x",), max_len=10, visible=registers, reveals=(),
            history=(), previous_rounds=memories,
        )
        assert render_xent_benchmark(request) == match["turns"][turn]["prompt"], number


def _start_registers(match: dict[str, Any]) -> dict[str, str]:
    """The registers the renderer reads (stories and the game's constant texts), from the
    map's code as the config publishes it."""
    (game_map,) = [m for m in config()["maps"] if m["map_seed"] == match["map_seed"]]
    values: dict[str, str] = {}
    for line in game_map["code"].splitlines():
        body = ast.parse(line.strip()).body  # empty for a comment line
        call = body[0].value if body and isinstance(body[0], ast.Expr) else None
        if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "assign":
            values.update({k.arg: k.value.value for k in call.keywords
                           if k.arg and isinstance(k.value, ast.Constant)})
    return values
