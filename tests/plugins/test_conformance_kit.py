"""arena.testing, the plugin authors' conformance kit: it passes the example plugins and the
built-ins, and fails, with a sentence, on a player, a judge or a game that breaks the rules.
The example plugins' own tests (plugins/*/tests) run here too, as an author would run them."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from arena import GameEntry, MoveRequest
from arena.plugins.registry import Registry
from arena.testing import check_games, check_judge, check_player

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"


@pytest.fixture(autouse=True)
def example_plugins_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    for folder in ("arena-echo-player", "arena-riddle-games"):
        monkeypatch.syspath_prepend(str(PLUGINS / folder))


class Mute:
    """Answers nothing: every move is missing its register."""

    name = "mute"

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        return {}


def test_the_example_plugins_pass_their_own_conformance_tests() -> None:
    code = pytest.main(["-q", "-p", "no:cacheprovider", str(PLUGINS / "arena-echo-player/tests"),
                        str(PLUGINS / "arena-riddle-games/tests")])
    assert code == 0


def test_a_builtin_player_and_judge_pass() -> None:
    registry = Registry.load()
    check_player(registry.create_player, "random?words=2", rounds=1)
    info = check_judge(registry.create_judge("ngram"))
    assert info.name


def test_a_player_that_never_answers_fails_with_a_sentence() -> None:
    with pytest.raises(AssertionError, match="forfeited in role black"):
        check_player(lambda spec, ctx: Mute(), "mute", rounds=1)
    with pytest.raises(AssertionError, match="not a Player"):
        check_player(lambda spec, ctx: object(), "nothing")  # type: ignore[arg-type,return-value]


def test_a_game_with_a_runtime_error_fails_the_game_check() -> None:
    broken = GameEntry.from_source('assign(l=["a"])\nelicit(black, t, 5)\nassign(s=l[3])\n',
                                   "broken.xgl")
    with pytest.raises(AssertionError, match=r"fail at run time.*broken"):
        check_games([broken])


def test_checks_play_with_the_registry_they_are_given() -> None:
    """An author's own registry (here one with a test judge the installed plugins lack)
    builds the judge and the NPCs; without it the installed plugins do."""
    import tests.tournaments.arena_fixtures as fx
    from arena.players.local.random_words import create_random_player

    result = check_player(create_random_player, "random", judge="flaky", registry=fx.registry())
    assert result.error is None
    games = check_games([GameEntry.from_source(CHECK, "two.xgl")], judge="flaky",
                        player="sleepy?words=2", registry=fx.registry())
    assert games["two"].error is None
    with pytest.raises(Exception, match="flaky"):
        check_player(create_random_player, "random", judge="flaky")


CHECK = 'assign(s="a short story")\nelicit(black, t, 3)\nreward(black, xed(s | t))\n'
