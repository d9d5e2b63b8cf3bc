"""Issue 24 item 6: the default limits stop hostile games within seconds, not hours. The
judge budget of a round is what the n-gram judge scores in about ten seconds; the story
budget of a map bounds the tokens all story() sites together ask for, checked at load."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.errors import GameSyntaxError
from arena.judges.ngram import NgramJudge
from arena.lang.limits import DEFAULT_LIMITS, LIMIT_NAMES, ResourceLimits, admitting
from arena.lang.loader import load_game
from arena.runtime.maps import story_requests
from arena.tournaments.planning.config import parse_tournament
from tests.cli.test_play_command import arena
from tests.runtime.helpers import ListPlayer, events_of, run_game
from tests.runtime.hostile_games import HOSTILE, JUDGE_REPLAY, STORY_DEFAULTS, STORY_SITES, Hostile
from tests.runtime.test_resource_limits import assert_stopped_by


async def test_scoring_a_long_string_in_a_loop_stops_at_the_judge_budget(
    judge: NgramJudge,
) -> None:
    # Before: max_judge_chars was 100,000,000 and this ran ~28 minutes on the n-gram judge.
    result = await run_game(JUDGE_REPLAY, {"black": ListPlayer(["a move"])}, judge)
    assert_stopped_by(result, "max_judge_chars", line=7)
    assert "this round is 786,437 characters" in (result.error or "")  # + the move, 6
    assert not events_of(result, "reward")  # refused before the judge was asked
    assert DEFAULT_LIMITS.max_judge_chars <= 1_000_000


async def test_the_judge_budget_is_per_round_and_raisable(judge: NgramJudge) -> None:
    source = 'elicit(t, 5)\nassign(s="ab")\nbeacon(flag_1)\nassign(s=s+s)\nreplay(flag_1, 9)\n'
    source += "reward(xent(s))\n"  # 3,071 characters scored once in each round
    limits = ResourceLimits(max_judge_chars=3_200)
    result = await run_game(source, {"black": ListPlayer(["a"])}, judge, rounds=3, limits=limits)
    assert result.error is None
    assert len(events_of(result, "reward")) == 3
    low = ResourceLimits(max_judge_chars=3_000)
    stopped = await run_game(source, {"black": ListPlayer(["a"])}, judge, limits=low)
    assert_stopped_by(stopped, "max_judge_chars", line=6)


def test_thousands_of_story_sites_stop_at_load_on_the_map_budget() -> None:
    # Before: 5,400 story(4000) sites were all generated, ~1.5 hours per map.
    with pytest.raises(GameSyntaxError) as caught:
        load_game(STORY_SITES, filename="stories.xgl")
    (diagnostic,) = caught.value.diagnostics
    assert (diagnostic.line, diagnostic.col) == (1, 21)  # the second story(4000), 0-based
    assert "is 8,000 tokens, over the limit max_map_story_tokens = 4,000" in diagnostic.message
    assert "`max_map_story_tokens = N` under [limits]" in (diagnostic.hint or "")
    assert "arena play --limit max_map_story_tokens=N" in (diagnostic.hint or "")


def test_story_sites_without_a_length_count_the_default_length() -> None:
    with pytest.raises(GameSyntaxError) as caught:
        load_game(STORY_DEFAULTS)
    (diagnostic,) = caught.value.diagnostics
    # 60 tokens each: the 67th site brings the map to 4,020 tokens.
    assert (diagnostic.line, diagnostic.col) == (1, 9 + 66 * 8)
    assert "is 4,020 tokens" in diagnostic.message


def test_the_map_budget_admits_what_it_counts_and_can_be_raised() -> None:
    source = "assign(s=story(3000), t=story(940), x=story())\nelicit(y, 5)\n"  # 4,000
    program = load_game(source)
    assert sum(r.length or 60 for r in story_requests(program, 0)) == 4_000
    over = source.replace("940", "941")
    with pytest.raises(GameSyntaxError, match="4,001 tokens"):
        load_game(over)
    assert load_game(over, limits=ResourceLimits(max_map_story_tokens=4_001)).instructions
    assert load_game(STORY_SITES, limits=admitting(STORY_SITES)).instructions


def test_every_limit_is_settable_in_a_tournament_file() -> None:
    assert {"max_map_story_tokens", "max_judge_chars"} <= set(LIMIT_NAMES)
    document = {
        "name": "t",
        "participants": [{"name": "p", "player": "random"}, {"name": "q", "player": "random"}],
        "games": [{"game": "single_text"}],
        "limits": {"max_map_story_tokens": 9_000, "max_judge_chars": 30_000_000},
    }
    config = parse_tournament(document)
    assert config.limits.max_map_story_tokens == 9_000
    assert config.limits.max_judge_chars == 30_000_000


def test_arena_play_refuses_the_story_game_in_one_sentence(tmp_path: Path) -> None:
    game = tmp_path / "stories.xgl"
    game.write_text(STORY_SITES)
    done = arena("play", str(game), "--judge", "ngram", "--player", "black=random")
    assert done.returncode == 2
    assert "Traceback" not in done.stdout + done.stderr
    assert "over the limit max_map_story_tokens = 4,000" in done.stderr
    assert "--limit max_map_story_tokens=N" in done.stderr


@pytest.mark.parametrize(
    "hostile", [h for h in HOSTILE if "worst" not in h.name], ids=lambda h: h.name
)
def test_every_hostile_program_stops_on_its_limit_at_the_defaults(hostile: Hostile) -> None:
    # (the worst case scores 393,215 characters first, ~8 s: benchmarks/limits_headroom.py)
    judge = NgramJudge()
    try:
        result = asyncio.run(run_game(hostile.source, {hostile.role: ListPlayer(["x"])}, judge))
        error = result.error or ""
    except GameSyntaxError as exc:
        assert hostile.at_load
        error = str(exc)
    assert f"over the limit {hostile.limit} = " in error
