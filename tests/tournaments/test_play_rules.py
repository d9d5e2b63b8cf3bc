"""The rules a person reads (issue 32 item 2): every bundled game says what it is about in
its header, each role in plain words, the rounds actually played, what the score means;
developer notes never reach the page; a failed rule is explained with its cause (the shared
words, the words not allowed, the length) from the seat's own information set only."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from arena.lang.builtins import common_word_set
from arena.lang.header import read_header
from arena.match_setup import build_match, load_entry, resolve_game_map
from arena.plugins.registry import Registry
from arena.protocols.player import GameView, HistoryItem, MoveRequest, RevealedValue
from arena.tournaments.play.rules import explain_failure, game_rules, role_words

REGISTRY = Registry.load()
BUNDLED = sorted(p.stem for p in (Path(__file__).parents[2] / "arena" / "games").iterdir()
                 if p.suffix in (".xgl", ".xent"))


def test_the_bundled_games_are_the_registered_ones() -> None:
    assert len(BUNDLED) >= 28 and set(BUNDLED) <= set(REGISTRY.game_names())


@pytest.mark.parametrize("name", BUNDLED)
def test_every_bundled_game_tells_a_person_what_it_is_about(name: str) -> None:
    game = load_entry(REGISTRY.game(name))
    header = read_header(game.source)
    rules = game_rules(game.source, game.source, list(game.roles), 3, game.name)
    assert 20 <= len(rules.about) <= 200 and rules.about == header.get("about")
    assert rules.measures and rules.title
    assert set(rules.roles) == set(game.roles) and all(rules.roles.values()), rules.roles
    assert rules.rounds == 3 and any("best round" in line for line in rules.score)
    shown = str(rules.as_dict())
    for note in header.notes:  # developer notes never reach a person
        assert note not in shown


def test_roles_take_the_words_in_brackets_after_them() -> None:
    roles, extra = role_words("alice (splits), bob and carol (one share each), david (both "
                              "shares); zero-sum", None)
    assert roles == {"alice": "splits", "bob": "one share each", "carol": "one share each",
                     "david": "both shares"}
    assert extra == ("zero-sum: what one side gains, the other loses",)
    assert role_words("white, black (alternate moves)", ["black", "white"])[0] == {
        "black": "alternate moves", "white": "alternate moves"}


def test_the_score_lines_say_bits_higher_and_the_measures_used() -> None:
    code = "elicit(t, 5)\nreward(xed(s | t) - xent(t))\n"
    one = game_rules("# G\n# measures: m", code, ["black"], 1).score
    assert any("bits" in line and "higher is better" in line for line in one)
    assert any("1 round" in line for line in one)
    assert [line.split(":")[0] for line in one if "(a | b)" in line] == ["xed(a | b)",
                                                                        "xent(a | b)"]


class Recorder:
    """A player who first shares two words with the story, then plays fair."""

    def __init__(self) -> None:
        self.requests: list[MoveRequest] = []

    @property
    def name(self) -> str:
        return "recorder"

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        self.requests.append(request)
        if len(self.requests) == 1:
            words = request.visible["s"].split()
            return {"t": f"{words[0]} {words[0]} and {words[1]} zebra"}
        return {"t": "zebra quantum xylophone"}


async def test_a_real_failed_rule_names_the_shared_words() -> None:
    game = load_entry(REGISTRY.game("single_text"))
    judge = REGISTRY.create_judge("ngram")
    player = Recorder()
    try:
        game_map = await resolve_game_map(game, judge, seed=5)
        async with await build_match(game, {"black": player}, judge=judge,
                                     registry=REGISTRY, seed=5) as match:
            await match.play(game_map)
    finally:
        await judge.aclose()
    first, second = player.requests[:2]
    assert explain_failure(first) == []
    said = explain_failure(second)
    move = second.history[0].moves["t"]  # the move the rule refused, as the seat played it
    shared = common_word_set(first.visible["s"], move)  # what the runtime's rule found
    assert shared and f"it shares {len(shared)} word" in said[0]
    assert said[0].endswith(", ".join(repr(w) for w in shared) +
                            ". Words count without case and punctuation.")
    assert "try 1; after 10 failed tries in a round, you forfeit the round" in said[-1]


def request(code: str, condition: str, visible: Mapping[str, str], move: Mapping[str, str],
            dialect: str = "xgl", cut: tuple[str, ...] = (),
            reveals: tuple[RevealedValue, ...] = ()) -> MoveRequest:
    history = (HistoryItem(kind="move", line=2, moves=move, cut=cut),
               HistoryItem(kind="failed_ensure", line=3, condition=condition))
    return MoveRequest(
        game=GameView(name="g", code=code, dialect=dialect), role="bob", round=1, rounds=1,
        line=2, registers=tuple(move), max_len=5, visible=visible, reveals=reveals,
        history=history, attempt=2, failed_condition=condition,
    )


def test_a_rule_over_hidden_text_is_explained_without_it() -> None:
    hidden = "the secret lighthouse keeper"
    asked = request("...", "len(common_word_set(t, s)) == 0", {}, {"t": "keeper of light"})
    said = " ".join(explain_failure(asked))
    assert "hidden from you" in said and "keeper" not in said and hidden not in said


def test_words_not_allowed_and_the_length_are_named() -> None:
    allowed = "alpha-omega anchor angel ant apple"
    asked = request("...", "only_uses_words(s1, x)", {"s1": allowed},
                    {"x": "anchor zebra apple bee"}, dialect="xent", cut=("x",))
    said = explain_failure(asked)
    assert "these are not: 'zebra', 'bee'" in said[0]
    assert "longer than 5 tokens" in said[1]
    assert "after 10 failed tries on this line, the match ends without a result" in said[2]


def test_a_rule_the_judge_decides_says_so() -> None:
    asked = request("...", '"Is valid chess game, black to play or game over:" + s + t',
                    {"s": ""}, {"t": "e4"})
    assert "The judge decides this rule" in explain_failure(asked)[0]
    compared = request("...", "xent(t | s0) < xent(s3)", {}, {"t": "x"})
    assert "The judge decides this rule" in explain_failure(compared)[0]


def test_a_revealed_text_counts_as_seen() -> None:
    seen = RevealedValue(label="s", value="Ada rode north", line=1)
    asked = request("...", "len(common_word_set(s, t)) == 0", {}, {"t": "north wind"},
                    reveals=(seen,))
    assert "it shares 1 word: 'north'" in explain_failure(asked)[0]
