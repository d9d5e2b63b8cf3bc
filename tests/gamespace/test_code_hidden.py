"""The game space's default view (issue 36): players get their information set without the
program's text, so PLAIN and its copies the canonical form does not recognise put the very
same request (and prompt) before the player on every map, while the code view, as in a
tournament, does not. Without that, the untuned model played a copy up to 11 bits worse and
V between copies measured the spelling."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from arena.gamespace.transfer.evaluate import eval_map_seed, evaluation_form
from arena.gamespace.transfer.measure import VIEWS, TransferSetting, open_oracle
from arena.judges.ngram import NgramJudge
from arena.match_setup import LoadedGame, build_match, load_game_text, resolve_game_map
from arena.players.llm.prompting import build_prompt_text
from arena.plugins.registry import Registry
from arena.protocols.finetune import FineTuneRequest
from arena.protocols.player import (
    GameView,
    HistoryItem,
    MoveRequest,
    RevealedValue,
    RewardTermView,
)
from arena.runtime.code_hidden import HIDDEN_CONDITION, NO_LINE, UNNAMED_REVEAL, without_code
from tests.gamespace import transfer_games as tg


class Recorder:
    """A player that answers "the" and keeps every request it got."""

    name = "recorder"

    def __init__(self) -> None:
        self.requests: list[MoveRequest] = []

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        self.requests.append(request)
        return dict.fromkeys(request.registers, "the")


async def _requests(game: LoadedGame, *, show_code: bool, maps: int = 3) -> list[MoveRequest]:
    judge, shown = NgramJudge(), evaluation_form(game)
    recorder = Recorder()
    for index in range(maps):
        seed = eval_map_seed(5, index)
        game_map = await resolve_game_map(shown, judge, seed)
        async with await build_match(
            shown, {"black": recorder}, judge=judge, registry=None, seed=seed,
            show_code=show_code,
        ) as match:
            result = await match.play(game_map)
        assert result.error is None
    return recorder.requests


async def test_copies_put_one_request_before_the_player_when_the_code_is_hidden() -> None:
    games = [load_game_text(tg.PLAIN, "plain.xgl"), *tg.unrecognised()]
    hidden = [await _requests(g, show_code=False) for g in games]
    for game, requests in zip(games, hidden, strict=True):
        assert len(requests) == 3
        assert requests == hidden[0], game.name  # seeds included: one information set, one seed
        assert [build_prompt_text(r) for r in requests] == [
            build_prompt_text(r) for r in hidden[0]
        ]
    prompt = build_prompt_text(hidden[0][0])
    assert "story(4)" not in prompt and "at line" not in prompt  # no code, no line numbers
    assert "its code is not shown" in prompt
    story = hidden[0][0].reveals[0].value
    assert story and story in prompt  # what was revealed is still there
    shown = [await _requests(g, show_code=True) for g in games]
    prompts = {build_prompt_text(requests[0]) for requests in shown}
    assert len(prompts) == len(games)  # with the code, each copy reads differently
    assert "story(4)" in build_prompt_text(shown[0][0])


def test_hiding_the_code_keeps_every_value_and_drops_every_spelling() -> None:
    term = RewardTermView(source="nex(x)", coefficient=1, bits=(1.5,), tokens=("a",), total=1.5)
    request = MoveRequest(
        game=GameView(name="game", code="assign(s=story())\n", dialect="xgl", header="h"),
        role="black", round=2, rounds=2, line=7, registers=("x1",), max_len=4,
        visible={"s": "story", "x": "story", "x1": "", "a0": "public", "y": "echo"},
        reveals=(RevealedValue("t", "story", 2), RevealedValue("s + a0", "story public", 3)),
        history=(
            HistoryItem(kind="reveal", line=2, reveal=RevealedValue("t", "story", 2)),
            HistoryItem(kind="move", line=4, moves={"y": "echo"}, cut=("y",)),
            HistoryItem(kind="reward", line=5, reward=1.5, terms=(term,)),
            HistoryItem(kind="failed_ensure", line=6, condition="len(x1) < 3"),
        ),
        attempt=2, failed_condition="len(x1) < 3",
    )
    hidden = without_code(request)
    shown = hidden.request
    assert shown.game == GameView(name="game", code="", dialect="xgl")
    assert shown.line == NO_LINE and {r.line for r in shown.reveals} == {NO_LINE}
    assert {i.line for i in shown.history} == {NO_LINE}
    # renamed within a class in the order first shown: t (revealed), y (played), then the
    # visible s; x repeats s and x1 is empty, so neither is shown; x1 is still filled
    assert dict(hidden.real_names) == {"s": "t", "s0": "y", "s1": "s", "a": "a0", "s2": "x1"}
    assert shown.visible == {"a": "public", "s1": "story", "s0": "echo"}
    assert shown.registers == ("s2",)
    assert [(r.label, r.value) for r in shown.reveals] == [
        ("s", "story"), (UNNAMED_REVEAL, "story public"),
    ]
    assert shown.history[1].moves == {"s0": "echo"} and shown.history[1].cut == ("s0",)
    kept = shown.history[2].terms[0]
    assert kept.source == "" and (kept.bits, kept.tokens, kept.total) == ((1.5,), ("a",), 1.5)
    assert shown.failed_condition == HIDDEN_CONDITION == shown.history[3].condition
    assert (shown.round, shown.max_len, shown.attempt) == (2, 4, 2)
    assert hidden.moves({"s2": "my move"}) == {"x1": "my move"}

    # two values stored under swapped names read alike: registers are named in value order
    swapped = [without_code(replace(request, history=(), reveals=(), visible=v)).request
               for v in ({"s": "one", "t": "two"}, {"s": "two", "t": "one"})]
    assert swapped[0].visible == swapped[1].visible == {"s": "one", "s0": "two"}


async def test_the_oracle_shows_the_untuned_model_one_game_and_the_code_view_two(
    tmp_path: Path, torch_device: str
) -> None:
    """At the default view the tiny model scores PLAIN and its register copy alike on every
    map (what V between copies needs); with the code shown it scores them apart (issue 36:
    up to 11 bits)."""
    model = tg.save_long_context_model(tmp_path / "tiny")
    plain, copy = load_game_text(tg.PLAIN, "plain.xgl"), tg.unrecognised()[0]
    scores = {}
    for view in VIEWS:
        setting = TransferSetting(tg.player_spec(model, torch_device), tg.FINETUNER, tg.BUDGET,
                                  maps=tg.MAPS, judge="ngram", view=view)
        async with open_oracle(setting, store=None, registry=Registry.load(),
                               models_dir=tmp_path / view) as oracle:
            scores[view] = [await oracle.scores(setting.player, g) for g in (plain, copy)]
    assert scores["infoset"][0] == scores["infoset"][1]
    assert scores["code"][0] != scores["code"][1]
    assert len(set(scores["infoset"][0])) > 1  # the maps still differ: not a constant player


async def test_fine_tuning_with_the_code_hidden_learns_one_game_from_two_texts(
    tmp_path: Path,
) -> None:
    """The fine-tuner's episodes hide the code too: tuned on PLAIN and on its dead-assignment
    copy with one seed, the two models are the same weights; with the code shown they are
    not (the prompts, and so the sampled moves and gradients, differ)."""
    import torch
    from safetensors.torch import load_file

    model = tg.save_long_context_model(tmp_path / "tiny")
    tuner = Registry.load().create_finetuner("reinforce?lr=1e-2&batch=2&keep=last")
    plain, dead = load_game_text(tg.PLAIN, "plain.xgl"), tg.unrecognised()[1]
    weights = {}
    for show_code in (False, True):
        for game in (plain, dead):
            out = tmp_path / f"{game.name}-{show_code}"
            await tuner.finetune(FineTuneRequest(
                f"hf:{model}?max_new_tokens=4&temperature=1", evaluation_form(game).view,
                NgramJudge(), 10**9, 3, out, max_steps=2, show_code=show_code,
            ))
            weights[(game.name, show_code)] = load_file(out / "model.safetensors")

    def same(a: str, b: str, show_code: bool) -> bool:
        one, other = weights[(a, show_code)], weights[(b, show_code)]
        return all(torch.equal(one[k], other[k]) for k in one)

    assert same("plain", "dead", show_code=False)
    assert not same("plain", "dead", show_code=True)
    base = load_file(model / "model.safetensors")
    assert any(not torch.equal(base[k], weights[("plain", False)][k]) for k in base)  # it learnt


async def test_a_player_that_needs_the_code_says_so_when_it_is_hidden() -> None:
    """The search player simulates the game: with the code hidden it forfeits at once, with
    a reason that names the view, instead of failing to parse an empty program."""
    from arena.gamespace.transfer.evaluate import map_scores

    plain = load_game_text(tg.PLAIN, "plain.xgl")
    events: list[object] = []
    judge, shown = NgramJudge(), evaluation_form(plain)
    game_map = await resolve_game_map(shown, judge, 1)
    async with await build_match(
        shown, {"black": "search"}, judge=judge, registry=Registry.load(), seed=1,
        show_code=False, on_event=events.append,
    ) as match:
        result = await match.play(game_map)
    reasons = [getattr(e, "reason", "") for e in events if type(e).__name__ == "Forfeit"]
    assert len(reasons) == 1 and "needs the game's code" in reasons[0] and "view" in reasons[0]
    assert reasons[0].count("needs the game's code") == 1  # permanent: not asked again
    assert result.scores["black"].forfeit
    scores = await map_scores("search", plain, judge=judge, registry=Registry.load(), maps=1,
                              seed=1)
    assert scores[0] is not None  # with the code shown it plays
