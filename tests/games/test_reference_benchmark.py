"""The bundled reference-benchmark games score as the benchmark's rules say (issue 15,
fault 6): fixed texts stand in for story(), fixed moves are played, and every reward is
compared with the benchmark's formula computed here, term by term, straight from the judge.

The stripped moves are written out by hand from the benchmark's rule (remove the move's
words that occur in the stories joined plainly, keep the punctuation around them), so a
change to the games, to `remove_common_words` or to `+` in dialect xent shows up here.
"""

from __future__ import annotations

import pytest

from arena.events import Event
from arena.judges.ngram import NgramJudge
from arena.lang.loader import load_game
from arena.plugins.registry import Registry
from arena.protocols.judge import ScoreRequest
from arena.runtime.maps import GameMap, story_requests
from tests.runtime.helpers import ListPlayer, events_of, run_game

REGISTRY = Registry.load()
LIGHTHOUSE = "The old lighthouse keeper watched the storm."
BAKER = "A young baker sold warm bread at dawn."
KITES = "Children flew red kites over the green hill."
OPENER = "I have a fun story to tell you:"
SYMBOLS = [
    "alpha-omega", "anchor", "angel", "ant", "apple", "baby", "beehive", "bird", "bread",
    "bull", "camel", "candle", "cauldron", "chameleon", "compass", "cornucopia", "crocodile",
    "dolphin", "elephant", "globe", "griffin", "helmet", "horse", "hourglass", "lute",
    "madonna", "marionette", "moon", "owl", "serpent", "sun", "sword", "thunderbolt", "tree",
    "walled-garden", "wild-man",
]


@pytest.fixture
def judge() -> NgramJudge:
    return NgramJudge()


async def _xent(judge: NgramJudge, target: str, context: str = "") -> float:
    (scores,) = await judge.score([ScoreRequest(target, context, "xent")])
    return scores.total


async def _xed(judge: NgramJudge, target: str, context: str) -> float:
    return await _xent(judge, target) - await _xent(judge, target, context)


async def _play(
    name: str, stories: list[str], moves: list[str], judge: NgramJudge
) -> list[Event]:
    """Play bundled game `name` with `stories` in its story() sites, in program order."""
    entry = REGISTRY.game(name)
    assert entry.dialect == "xent"
    sites = [r.site for r in story_requests(load_game(entry.source, dialect="xent"), 0)]
    assert len(sites) == len(stories)
    game_map = GameMap(seed=0, stories=dict(zip(sites, stories, strict=True)))
    result = await run_game(
        entry.source, {"black": ListPlayer(moves)}, judge, dialect="xent", game_map=game_map
    )
    assert result.error is None and not events_of(result, "forfeit")
    return list(result.events)


def _rewards(events: list[Event]) -> list[float]:
    return [e.total for e in events if e.type == "reward"]


def _revealed(events: list[Event]) -> list[dict[str, str]]:
    return [e.values for e in events if e.type == "reveal"]


def _round_score(events: list[Event]) -> float | None:
    (finished,) = [e for e in events if e.type == "round_finished"]
    return finished.scores["black"]


async def test_condense_strips_the_storys_words_and_reveals_the_rest(judge: NgramJudge) -> None:
    events = await _play("condense", [LIGHTHOUSE], ["Keeper, storm! lamps glow"], judge)
    stripped = ", ! lamps glow"
    assert _revealed(events) == [{"x1": stripped}]
    assert _rewards(events) == pytest.approx([await _xed(judge, LIGHTHOUSE, stripped)], abs=1e-9)


async def test_contrast_strips_against_both_stories_then_tells_and_hides(judge: NgramJudge) -> None:
    events = await _play("contrast", [LIGHTHOUSE, BAKER], ["Keeper, storm! bread and lamps"], judge)
    # common words with s1 + s2 joined plainly: keeper, bread ("storm." and "A" merge into
    # one word there, so the move keeps "storm")
    stripped = ", storm! and lamps"
    assert _revealed(events) == [{"x1": stripped}]
    expected = [await _xed(judge, LIGHTHOUSE, stripped), -await _xed(judge, BAKER, stripped)]
    assert _rewards(events) == pytest.approx(expected, abs=1e-9)
    assert _round_score(events) == pytest.approx(sum(expected), abs=1e-9)


async def test_synthesize_strips_against_all_three_stories(judge: NgramJudge) -> None:
    stories = [LIGHTHOUSE, BAKER, KITES]
    events = await _play("synthesize", stories, ["hill kites, keeper of dawn"], judge)
    # common with s1 + s2 + s3 joined plainly: hill, keeper, kites ("dawn." and "Children"
    # merge, so "dawn" stays)
    stripped = ", of dawn"
    assert _revealed(events) == [{"x1": stripped}]
    expected = [await _xed(judge, story, stripped) for story in stories]
    assert _rewards(events) == pytest.approx(expected, abs=1e-9)
    assert _round_score(events) == pytest.approx(sum(expected), abs=1e-9)


async def test_two_ways_joins_plainly_and_scores_what_the_move_adds(judge: NgramJudge) -> None:
    move = " and later,"
    events = await _play("two_ways", [LIGHTHOUSE, BAKER], [move], judge)
    assert _revealed(events) == []
    expected = [
        -await _xent(judge, BAKER, OPENER + LIGHTHOUSE + move),
        -await _xent(judge, LIGHTHOUSE, OPENER + BAKER + move),
        await _xent(judge, BAKER, OPENER + LIGHTHOUSE),
        await _xent(judge, LIGHTHOUSE, OPENER + BAKER),
    ]
    assert _rewards(events) == pytest.approx(expected, abs=1e-9)
    assert _round_score(events) == pytest.approx(sum(expected), abs=1e-9)


async def test_alethiometer_symbols_moves_and_framing(judge: NgramJudge) -> None:
    moves = ["alpha-omega, sun", "Sun moon", "wild-man sun walled-garden baby"]
    events = await _play("alethiometer", [KITES], moves, judge)
    symbols = [e.values["s1"] for e in events if e.type == "assign" and "s1" in e.values]
    assert [s.split(" ") for s in symbols if isinstance(s, str)] == [SYMBOLS]
    assert len(SYMBOLS) == 36 and {"baby", "crocodile", "alpha-omega"} <= set(SYMBOLS)
    # symbols separated by single spaces, exactly as listed: a comma or a capital is refused
    assert [e.type for e in events].count("failed_ensure") == 2
    framed = (
        'Lyra bent over her Alethiometer. The dial spun to these symbols: "'
        'wild-man sun walled-garden baby". Lyra looked up and said "it tells me this":'
    )
    assert _rewards(events) == pytest.approx([await _xed(judge, KITES, framed)], abs=1e-9)
