"""Issue 19 item 4: a game's name does not change its evaluation. The same text under two
names gives the same per-map scores (prompt and move seeds no longer see the name): every
measurement plays the game's evaluation form, under one fixed name."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.gamespace.sampling.canonical import canonical_form
from arena.gamespace.transfer.evaluate import EVAL_NAME, evaluation_form, game_scores
from arena.judges.ngram import NgramJudge
from arena.match_setup import LoadedGame, load_game_text
from arena.plugins.registry import Registry

GAME = """# Keyword (test game)
# players: black
assign(s=story(4))
reveal(s)
elicit(t, 4)
reward(nex(t))
"""


def named(name: str) -> LoadedGame:
    return load_game_text(GAME, f"{name}.xgl", name=name)


async def scores(player: str, game: LoadedGame) -> list[float]:
    return await game_scores(
        player, game, judge=NgramJudge(), registry=Registry.load(), maps=4, seed=3
    )


async def test_random_player_scores_do_not_depend_on_the_name() -> None:
    alpha, beta = named("alpha"), named("beta")
    first, second = await scores("random", alpha), await scores("random", beta)
    assert first == second
    assert len(set(first)) > 1  # the moves are random: a name in the seed would show


def test_the_evaluation_form_keeps_the_rules_and_drops_the_name() -> None:
    game = evaluation_form(named("alpha"))
    assert game.name == EVAL_NAME and game.source == canonical_form(named("beta").program)
    assert game.roles == named("alpha").roles and "Keyword" not in game.source  # no comments


@pytest.mark.torch
async def test_hf_player_scores_do_not_depend_on_the_name(tmp_path: Path) -> None:
    from tests.players.test_hf_player import _save_tiny_model

    model = _save_tiny_model(tmp_path / "tiny", chat=False)
    player = f"hf:{model}?max_new_tokens=4&temperature=1"
    assert await scores(player, named("alpha")) == await scores(player, named("beta"))
