"""Well-posedness (paper Definition 30) with the ngram judge: the paradoxical game is
flagged, a well-posed two-player game is not, and the statistics behave."""

from __future__ import annotations

import math

import pytest

from arena.analysis.ranking import CandidateScore, near_best, regret, resolution, spearman
from arena.analysis.wellposed import check_well_posed
from arena.errors import ConfigError
from arena.match_setup import load_entry
from arena.plugins.registry import Registry

REGISTRY = Registry.load()


def test_spearman_on_known_rankings() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 3], [5, 5, 5]) is None  # no variation: undefined
    assert spearman([1, 2], [1, 2]) is None
    # Ties share their average rank: ranks (1.5, 1.5, 3) against (1, 2, 3).
    assert spearman([1, 1, 2], [1, 2, 3]) == pytest.approx(math.sqrt(3) / 2)


def test_near_best_and_regret() -> None:
    values = [10.0, 9.95, 2.0, -math.inf]
    assert near_best(values, 0.01) == {0, 1}
    assert near_best([-math.inf], 0.01) == set()
    assert regret(values, {1}, {0}) == pytest.approx(0.05 / 8.0)
    assert regret(values, {2}, {0}) == pytest.approx(1.0)
    assert regret(values, {3}, {0}) == math.inf
    assert regret(values, set(), {0}) == 0.0


def test_resolution_measures_what_clipping_leaves_of_the_top_preferences() -> None:
    def scores(pairs: list[tuple[float, float]]) -> list[CandidateScore]:
        return [CandidateScore("x", (str(i),), p, c) for i, (p, c) in enumerate(pairs)]

    kept = scores([(10.0, 9.0), (8.0, 7.0), (6.0, 5.0), (0.0, 0.0)])
    assert resolution(kept) == pytest.approx(1.0)  # gaps preserved among the top three
    saturated = scores([(100.0, 40.0), (90.0, 40.0), (80.0, 40.0), (5.0, 5.0)])
    assert resolution(saturated) == pytest.approx(0.0)
    assert resolution(scores([(1.0, 1.0)])) is None
    assert resolution(scores([(1.0, 1.0), (1.0, 0.5), (-math.inf, 0.0)])) is None


@pytest.mark.parametrize("seed", [0, 3])
async def test_the_paradoxical_game_is_flagged_ill_posed(seed: int) -> None:
    game = load_entry(REGISTRY.game("paradox"))
    result = await check_well_posed(game, REGISTRY.create_judge("ngram"), seed=seed)
    assert result.role == "white"
    assert result.replies == 3, "white's candidates must face black's replies"
    assert result.ill_posed
    assert result.resolution is not None and result.resolution < 0.25
    assert "clipping erases" in result.reason
    origins = {c.origin for c in result.candidates}
    assert {"rare", "rarer", "rarest"} <= origins


async def test_a_well_posed_game_is_not_flagged() -> None:
    game = load_entry(REGISTRY.game("interception"))
    result = await check_well_posed(game, REGISTRY.create_judge("ngram"), seed=1)
    assert not result.ill_posed
    assert result.spearman is not None and result.spearman > 0.9
    assert result.best_plain == result.best_clipped


async def test_clipping_cannot_matter_when_epsilon_is_tiny() -> None:
    game = load_entry(REGISTRY.game("paradox"))
    result = await check_well_posed(game, REGISTRY.create_judge("ngram"), epsilon=1e-300)
    assert all(c.plain == c.clipped for c in result.candidates)
    assert not result.ill_posed and not result.best_changed


async def test_single_player_games_have_no_replies_and_unknown_roles_are_refused() -> None:
    game = load_entry(REGISTRY.game("condense"))
    judge = REGISTRY.create_judge("ngram")
    result = await check_well_posed(game, judge, seed=1, candidates=4, search_steps=1)
    assert result.replies == 0 and result.role == "black"
    assert len(result.candidates) >= 7  # 3 gibberish + 4 seeded, plus distinct search results
    assert result.to_dict()["candidates"][0]["moves"]
    with pytest.raises(ConfigError, match="Active roles: black"):
        await check_well_posed(game, judge, role="white")
