"""Repetitions (paper 4.1.3, XGL.md section 8): every round keeps the map and play seeds;
only the main character remembers. NPCs answer the same information set the same way."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from arena.judges.ngram import NgramJudge
from arena.match_setup import build_match, load_game_ref
from arena.players.local.random_words import create_random_player
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_manager import create_plugin_manager
from arena.plugins.plugin_types import PlayerContext, PlayerEntry
from arena.plugins.registry import Registry
from arena.protocols.player import MoveRequest
from arena.runtime.maps import GameMap
from arena.runtime.seeds import new_seed_key
from arena.specs import parse_spec
from tests.runtime.helpers import ListPlayer, events_of, run_game

DESCRIBE = (
    "assign(s=story())\nreveal(alice, s)\nelicit(alice, t, 10)\nreveal(bob, t)\n"
    "elicit(bob, s0, 10)\nreward(alice, xed(s | s0))\n"
)
STORIES = GameMap(0, {"1:9": "the old fisherman mended his nets by the quiet harbour"})


def random_npc() -> object:
    return create_random_player(parse_spec("random"), PlayerContext(seed=11, role="bob"))


async def test_a_repeated_main_move_scores_the_same_in_every_round(judge: NgramJudge) -> None:
    alice, bob = ListPlayer(["an old man fixes fishing nets"]), random_npc()
    result = await run_game(DESCRIBE, {"alice": alice, "bob": bob}, judge, rounds=4,
                            main=["alice"], game_map=STORIES, rebuild={"bob": random_npc})
    rounds = result.scores["alice"].rounds
    assert len(rounds) == 4 and len(set(rounds)) == 1, rounds
    npc_moves = [e.values["s0"] for e in events_of(result, "elicit_response") if e.player == "bob"]
    assert len(npc_moves) == 4 and len(set(npc_moves)) == 1


async def test_npcs_get_the_same_seed_for_the_same_information_set(judge: NgramJudge) -> None:
    alice, bob = ListPlayer(["same clue"]), ListPlayer(["guess"])
    await run_game(DESCRIBE, {"alice": alice, "bob": bob}, judge, rounds=3, main=["alice"],
                   game_map=STORIES)
    assert len({r.seed for r in bob.requests}) == 1  # an NPC: same request, same seed
    assert {(r.round, r.rounds, r.previous_rounds) for r in bob.requests} == {(1, 1, ())}
    assert len({r.seed for r in alice.requests}) == 3  # the main character remembers


async def test_other_information_gets_another_seed(judge: NgramJudge) -> None:
    alice, bob = ListPlayer(["first clue", "second clue"]), ListPlayer(["guess"])
    await run_game(DESCRIBE, {"alice": alice, "bob": bob}, judge, rounds=2, main=["alice"],
                   game_map=STORIES)
    assert bob.requests[0].seed != bob.requests[1].seed  # bob saw another clue


async def test_game_randomness_is_the_same_every_round(judge: NgramJudge) -> None:
    source = 'assign(l=["ant", "bee", "cat", "dog", "eel", "fox"])\nassign(s=sample(l))\nelicit(black, t, 3)\nreward(black, xent(s | t))\n'
    black = ListPlayer(["x"])
    await run_game(source, {"black": black}, judge, rounds=4)
    assert len({r.visible["s"] for r in black.requests}) == 1


@dataclass
class Diary:
    """A stateful player: it counts what it was asked and says so in its move."""

    built: list[Diary]
    asked: int = 0
    closed: bool = False
    seen: list[MoveRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.built.append(self)

    @property
    def name(self) -> str:
        return "diary"

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        self.asked += 1
        return {r: f"answer number {self.asked}" for r in request.registers}

    async def aclose(self) -> None:
        self.closed = True


async def test_npcs_are_built_afresh_every_round(judge: NgramJudge) -> None:
    built: list[Diary] = []
    first = Diary(built)
    result = await run_game(DESCRIBE, {"alice": ListPlayer(["clue"]), "bob": first}, judge,
                            rounds=3, main=["alice"], game_map=STORIES,
                            rebuild={"bob": lambda: Diary(built)})
    moves = [e.values["s0"] for e in events_of(result, "elicit_response") if e.player == "bob"]
    assert moves == ["answer number 1"] * 3  # no round remembers the one before
    assert len(built) == 3 and all(d.asked == 1 for d in built)
    assert [d.closed for d in built] == [False, True, True]  # the caller closes its own


async def test_a_stateful_main_character_keeps_its_player(judge: NgramJudge) -> None:
    built: list[Diary] = []
    result = await run_game(DESCRIBE, {"alice": Diary(built), "bob": ListPlayer(["g"])}, judge,
                            rounds=3, main=["alice"], game_map=STORIES,
                            rebuild={"alice": lambda: Diary(built)})
    moves = [e.values["t"] for e in events_of(result, "elicit_response") if e.player == "alice"]
    assert moves == ["answer number 1", "answer number 2", "answer number 3"]
    assert len(built) == 1


class DiaryPlugin:
    """A third-party plugin whose player remembers everything it is asked."""

    def __init__(self) -> None:
        self.built: list[Diary] = []

    @hookimpl
    def arena_players(self) -> list[PlayerEntry]:
        return [PlayerEntry("diary", lambda spec, ctx: Diary(self.built))]


async def test_players_built_from_specs_forget_as_npcs_and_repeat_scores() -> None:
    pm = create_plugin_manager()
    plugin = DiaryPlugin()
    pm.register_plugin(plugin, "diary_plugin")
    registry = Registry.from_plugin_manager(pm)
    game = load_game_ref("describe_to_partner", registry)
    judge = NgramJudge()
    for npc in ("random", "diary"):
        async with await build_match(
            game, {"alice": "scripted:an old man fixes fishing nets", "bob": npc},
            judge=judge, registry=registry, seed=5, rounds=3, main_roles=("alice",),
            seed_key=new_seed_key(),
        ) as match:
            result = await match.play()
        rounds = result.scores["alice"].rounds
        assert len(rounds) == 3 and len(set(rounds)) == 1, (npc, rounds)
    assert len(plugin.built) == 3 and [d.asked for d in plugin.built] == [1, 1, 1]
    assert all(d.closed for d in plugin.built)
