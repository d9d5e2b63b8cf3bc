"""`check_game`: the smoke match and the verdicts, on real games with the ngram judge."""

from __future__ import annotations

from arena.analysis.smoke import check_game
from arena.match_setup import LoadedGame, load_entry
from arena.plugins.plugin_types import GameEntry
from arena.plugins.registry import Registry

REGISTRY = Registry.load()

BROKEN_AT_RUNTIME = """\
# Broken (indexes past the end of a list)
# measures: nothing
# players: black
# rounds: 1
# version: 1
# source: tests
assign(l=["only"])
elicit(t, 5)
assign(s=l[3])
reward(xed(s | t))
"""


def loaded(source: str, filename: str) -> LoadedGame:
    return load_entry(GameEntry.from_source(source, filename))


async def test_a_bundled_game_passes_its_smoke_match() -> None:
    judge = REGISTRY.create_judge("ngram")
    report = await check_game(load_entry(REGISTRY.game("interception")), REGISTRY, judge)
    assert report.status == "pass", report.warnings
    assert report.smoke is not None and report.smoke.error is None
    assert set(report.smoke.players) == {"white", "black"}
    white, black = report.smoke.scores["white"][0], report.smoke.scores["black"][0]
    assert white is not None and black == -white
    assert report.wellposed is not None and not report.wellposed.ill_posed


async def test_the_paradox_is_flagged_but_passes_because_its_header_says_so() -> None:
    judge = REGISTRY.create_judge("ngram")
    report = await check_game(load_entry(REGISTRY.game("paradox")), REGISTRY, judge)
    assert report.wellposed is not None and report.wellposed.ill_posed
    assert report.declared_ill_posed
    assert report.status == "pass"
    assert any("ILL-POSED" in line for line in report.info)


async def test_a_runtime_error_fails_the_check() -> None:
    judge = REGISTRY.create_judge("ngram")
    report = await check_game(loaded(BROKEN_AT_RUNTIME, "broken.xgl"), REGISTRY, judge)
    assert report.status == "fail"
    assert report.failures and "smoke match" in report.failures[0]
    assert report.wellposed is None  # not measured on a game that crashes


async def test_header_problems_and_strong_judge_notes_are_reported() -> None:
    judge = REGISTRY.create_judge("ngram")
    bare = "elicit(t, 5)\nreward(xed(t | t))\n"
    report = await check_game(loaded(bare, "bare.xgl"), REGISTRY, judge, wellposed=False)
    assert report.status == "warn"
    assert any("missing header" in w for w in report.warnings)
    chess = load_entry(REGISTRY.game("naive_chess"))
    report = await check_game(chess, REGISTRY, judge, wellposed=False)
    assert report.needs_strong_judge and any("strong judge" in line for line in report.info)
    # Its header is complete; whether the ngram judge's random chess verdicts leave a role
    # measuring nothing (a warning) depends on the random moves, which depend on the code.
    assert report.status != "fail" and not any("header" in w for w in report.warnings)


async def test_playability_for_a_base_participant_is_checked_on_request() -> None:
    judge = REGISTRY.create_judge("ngram")
    game = load_entry(REGISTRY.game("condense"))
    flat = await check_game(
        game, REGISTRY, judge, wellposed=False, base="scripted:one fixed move", maps=2, rounds=3
    )
    assert flat.playability is not None and flat.playability.flat
    assert flat.status == "warn" and any("not playable" in w for w in flat.warnings)
    moving = await check_game(game, REGISTRY, judge, wellposed=False, base="random", rounds=3)
    assert moving.playability is not None and not moving.playability.flat
    assert moving.status == "pass"
