"""The fine-tuning hook and the built-in `reinforce` mechanism: registration, spec errors,
credit assignment, the token budget, determinism and the evaluation maps (S_G).

Tiny random GPT-2 models (trained tokenizer, tests/players/test_hf_player.py) and the
n-gram judge keep these fast; tests/gamespace/test_finetune_learns.py shows learning."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import pytest

from arena import events as ev
from arena.cli.commands.plugins import spec_docs
from arena.errors import ConfigError, GameRuntimeError, PluginError, UnknownNameError
from arena.gamespace.transfer.credit import elicit_credits
from arena.gamespace.transfer.evaluate import (
    eval_map_seed,
    fill_forfeits,
    game_scores,
    map_scores,
    train_map_seed,
)
from arena.judges.ngram import NgramJudge
from arena.match_setup import LoadedGame, build_match, game_from_view, load_game_ref, load_game_text
from arena.players.finetune.policy_recorder import RecordingHFPlayer
from arena.players.finetune.reinforce import _load_trainable
from arena.players.local.hf_player import create_hf_player, parse_settings
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_manager import create_plugin_manager
from arena.plugins.plugin_types import FineTunerEntry, PlayerContext
from arena.plugins.registry import Registry
from arena.protocols.finetune import FineTuner, FineTuneRequest, FineTuneResult
from arena.specs import parse_spec
from tests.players.test_hf_player import _save_tiny_model, make_request

pytestmark = pytest.mark.torch

CONDENSE_LIKE = """# Keyword (test game)
# measures: packing a short story into a few words
# players: black (sees the story)
assign(s=story(12))
elicit(t, 4)
reward(xed(s | t))
"""

TWO_STEPS = """# Two steps (test game)
# measures: two elicits of one role and a partner
# players: black, alice
assign(s=story(8))
elicit(t, 3)
ensure(num_words(t) < 2)
reward(xed(s | t))
elicit(alice, x, 3)
elicit(y, 3)
reward(nex(y | t))
reward(alice, xed(s | x))
"""


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _save_tiny_model(tmp_path_factory.mktemp("tiny-base"), chat=False)


@pytest.fixture(scope="module")
def tiny_chat(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _save_tiny_model(tmp_path_factory.mktemp("tiny-chat"), chat=True)


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry.load()


def game_of(text: str, name: str = "keyword") -> LoadedGame:
    return load_game_text(text, f"{name}.xgl")


def weights_digest(folder: Path) -> str:
    return hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()


async def tune(
    registry: Registry, model: Path, out: Path, *, seed: int = 0, budget: int = 600,
    spec: str = "reinforce?lr=1e-2&batch=2", game: LoadedGame | None = None,
) -> FineTuneResult:
    tuner = registry.create_finetuner(spec)
    request = FineTuneRequest(
        f"hf:{model}?max_new_tokens=4&temperature=1", (game or game_of(CONDENSE_LIKE)).view,
        NgramJudge(), budget, seed, out,
    )
    return await tuner.finetune(request)


# --- the hook -------------------------------------------------------------------------------


def test_a_request_carries_the_game_as_text_and_the_tuner_reads_it_back(
    registry: Registry,
) -> None:
    """The fine-tuner sees exactly the game the caller loaded: every built-in game (both
    dialects, their versions) survives `view` -> `game_from_view`."""
    names = registry.game_names()
    assert len(names) > 5
    for name in names:
        game = load_game_ref(name, registry)
        back = game_from_view(game.view)
        assert (back.name, back.version, back.source) == (game.name, game.version, game.source)
        assert back.program == game.program and back.view == game.view, name



class ThirdParty:
    @hookimpl
    def arena_finetuners(self) -> list[FineTunerEntry]:
        return [
            FineTunerEntry("copy", lambda spec, registry: CopyTuner(), "returns the player"),
            FineTunerEntry("broken", lambda spec, registry: object(), "not a fine-tuner"),
        ]


class CopyTuner:
    async def finetune(self, request: FineTuneRequest) -> FineTuneResult:
        return FineTuneResult(request.player, 0, 0, 0.0)


def test_builtin_reinforce_comes_through_its_entry_point(registry: Registry) -> None:
    assert "reinforce" in registry.finetuner_names()
    owner = next(p for p in registry.plugins() if "reinforce" in p.provides["finetuners"])
    assert owner.name == "builtin_finetuners" and owner.dist == "xent-arena"
    tuner = registry.create_finetuner("reinforce?lr=3e-4&batch=2&baseline=running")
    assert isinstance(tuner, FineTuner)
    assert "lr=<float> AdamW learning rate" in registry.finetuner_entry("reinforce").params.doc()


def test_a_third_party_finetuner_registers_beside_the_builtin() -> None:
    pm = create_plugin_manager()
    pm.register_plugin(ThirdParty(), "third_party")
    registry = Registry.from_plugin_manager(pm)
    assert {"reinforce", "copy", "broken"} <= set(registry.finetuner_names())
    assert isinstance(registry.create_finetuner("copy"), FineTuner)
    with pytest.raises(PluginError, match="does not implement the FineTuner protocol"):
        registry.create_finetuner("broken")
    with pytest.raises(UnknownNameError, match="reinforce"):
        registry.create_finetuner("reinforc")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("reinforce?lr=fast", "lr"),
        ("reinforce?batch=0", "batch"),
        ("reinforce?baseline=median", "baseline"),
        ("reinforce?credit=all", "credit"),
        ("reinforce?temperature=0", "temperature must be > 0"),
        ("reinforce?learning_rate=1", "Unknown parameter 'learning_rate'"),
        ("reinforce:x", "takes no ':' argument"),
    ],
)
def test_bad_finetuner_specs_are_one_clear_config_error(
    registry: Registry, spec: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        registry.create_finetuner(spec)


async def test_bad_requests_are_config_errors(
    registry: Registry, tiny_model: Path, tmp_path: Path
) -> None:
    tuner = registry.create_finetuner("reinforce")
    game = game_of(CONDENSE_LIKE).view
    with pytest.raises(ConfigError, match=r"tunes local transformers models only.*'random'"):
        await tuner.finetune(FineTuneRequest("random", game, NgramJudge(), 100, 0, tmp_path / "a"))
    with pytest.raises(ConfigError, match="no model folder"):
        await tuner.finetune(
            FineTuneRequest(f"hf:{tmp_path}/none", game, NgramJudge(), 100, 0, tmp_path / "b")
        )
    with pytest.raises(ConfigError, match="budget must be at least 1"):
        await tuner.finetune(
            FineTuneRequest(f"hf:{tiny_model}", game, NgramJudge(), 0, 0, tmp_path / "c")
        )
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("taken")
    with pytest.raises(ConfigError, match="not empty"):
        await tuner.finetune(
            FineTuneRequest(f"hf:{tiny_model}", game, NgramJudge(), 100, 0, tmp_path / "full")
        )


async def test_a_game_that_never_reaches_the_tuned_move_stops_with_a_clear_error(
    registry: Registry, tiny_model: Path, tmp_path: Path
) -> None:
    broken = game_of("assign(s=l[3])\nelicit(t, 3)\nreward(nex(t))\n", "broken")
    with pytest.raises(GameRuntimeError, match=r"made no move in 2 training episodes of game "
                       r"'broken' \(the first failed with: Index 3 is out of range"):
        await tune(registry, tiny_model, tmp_path / "never", game=broken)


def test_arena_plugins_documents_the_finetuner_params(registry: Registry) -> None:
    docs = spec_docs(registry)["fine-tuners"]["reinforce"]
    assert "baseline=batch|running" in docs and "credit=elicit|togo" in docs


# --- credit assignment ----------------------------------------------------------------------


async def test_each_elicit_earns_its_own_rewards_or_the_rewards_to_go(
    registry: Registry,
) -> None:
    game = game_of(TWO_STEPS, "two_steps")
    seats = {"black": "scripted:a very long answer that breaks the limit|calm|sea", "alice":
             "scripted:sky"}
    async with await build_match(
        game, seats, judge=NgramJudge(), registry=registry, seed=3, rounds=1
    ) as match:
        result = await match.play()
    assert result.error is None
    rewards = [e for e in result.events if isinstance(e, ev.Reward) and e.player == "black"]
    first, second = rewards[0].total, rewards[1].total
    immediate = elicit_credits(result.events, "black", "elicit")
    assert [(c.line, c.failed) for c in immediate] == [(5, True), (5, False), (9, False)]
    assert [c.reward for c in immediate] == pytest.approx([0.0, first, second])
    togo = elicit_credits(result.events, "black", "togo")
    assert [c.reward for c in togo] == pytest.approx([first + second, first + second, second])
    assert result.scores["black"].rounds[0] == pytest.approx(first + second)
    # credit never crosses a round: the same events twice are two separate rounds
    assert len(elicit_credits([*result.events, *result.events], "black", "togo")) == 6
    assert [c.reward for c in elicit_credits(result.events, "alice")] == pytest.approx(
        [next(e.total for e in result.events if isinstance(e, ev.Reward) and e.player == "alice")]
    )


# --- reinforce ------------------------------------------------------------------------------


@pytest.mark.parametrize("chat", [False, True])
async def test_the_policy_moves_exactly_as_the_hf_player_and_records_its_tokens(
    tiny_model: Path, tiny_chat: Path, chat: bool
) -> None:
    spec = parse_spec(f"hf:{tiny_chat if chat else tiny_model}?max_new_tokens=6")
    played = create_hf_player(spec, PlayerContext(seed=4))
    policy = RecordingHFPlayer(
        parse_settings(spec), _load_trainable(parse_settings(spec), 0), name="p", seed=4
    )
    for seed in range(4):
        request = make_request("x", "y", seed=seed)
        assert await policy.move(request) == await played.move(request)
    assert len(policy.moves) == 4
    # one generation per register without a chat template, one per move with it
    assert {len(m.segments) for m in policy.moves} == ({1} if chat else {2})
    segment = policy.moves[0].segments[0]
    assert 0 < segment.continuation.shape[0] <= 6 and segment.tokens > 6



async def test_the_learner_takes_log_p_under_the_distribution_the_draw_sampled(
    tiny_model: Path,
) -> None:
    """REINFORCE's log p of a recorded move is the log of the probabilities the host-side
    draw sampled it with: temperature, then the model's top-k (here 3). It used to be the
    softmax over the whole vocabulary, which pushed on tokens the draw never picks."""
    import torch

    from arena.players.finetune.reinforce import _log_probs
    from arena.players.local.host_sampling import HostDraw

    spec = parse_spec(f"hf:{tiny_model}?max_new_tokens=5&temperature=1.5")
    loaded = _load_trainable(parse_settings(spec), 0)
    loaded.model.generation_config.top_k = 3
    policy = RecordingHFPlayer(parse_settings(spec), loaded, name="p", seed=2)
    await policy.move(make_request("x", "y", seed=2))
    segment = policy.moves[0].segments[0]
    draw = HostDraw(1.5, seed=0, top_k=3)
    with torch.no_grad():
        both = torch.cat([segment.prompt, segment.continuation])[None]
        logits = loaded.model(input_ids=both).logits[0]
        start, count = segment.prompt.shape[0] - 1, segment.continuation.shape[0]
        steps = logits[start : start + count]
        expected = sum(
            math.log(float(draw.probabilities(steps[i : i + 1])[0, int(token)]))
            for i, token in enumerate(segment.continuation)
        )
        whole = float(torch.log_softmax(steps / 1.5, -1).gather(
            1, segment.continuation[:, None]).sum())
        got = float(_log_probs(torch, loaded.model, [segment], 1.5)[0])
    assert count > 0 and math.isfinite(expected)
    assert got == pytest.approx(expected, abs=1e-4)
    assert got > whole + 1e-3  # the truncated distribution puts more mass on what it keeps


async def test_same_seed_same_weights_and_the_budget_is_kept(
    registry: Registry, tiny_model: Path, tmp_path: Path
) -> None:
    plain = "reinforce?lr=1e-2&batch=2&keep=last"  # the budget of the plain algorithm
    one = await tune(registry, tiny_model, tmp_path / "one", seed=5, spec=plain)
    two = await tune(registry, tiny_model, tmp_path / "two", seed=5, spec=plain)
    await tune(registry, tiny_model, tmp_path / "other", seed=6, spec=plain)
    assert weights_digest(tmp_path / "one") == weights_digest(tmp_path / "two")
    assert one.rewards == two.rewards and one.tokens == two.tokens
    assert weights_digest(tmp_path / "one") != weights_digest(tmp_path / "other")
    assert weights_digest(tmp_path / "one") != weights_digest(tiny_model)  # it learned something
    per_step = one.tokens / one.steps  # a step: 2 episodes of one ~124-token move each
    assert 600 <= one.tokens < 600 + 2 * per_step and one.steps >= 2
    assert len(one.rewards) == one.steps
    # the tuned player is an hf player on the saved folder with the same sampling params
    assert one.player == f"hf:{(tmp_path / 'one').resolve()}?max_new_tokens=4&temperature=1"
    registry.check_spec("player", one.player)
    assert (tmp_path / "one" / "tokenizer.json").is_file()
    assert '"base_player"' in (tmp_path / "one" / "finetune.json").read_text()


async def test_a_two_role_game_with_ensures_and_a_chat_model(
    registry: Registry, tiny_chat: Path, tmp_path: Path
) -> None:
    result = await tune(
        registry, tiny_chat, tmp_path / "chat", budget=300, game=game_of(TWO_STEPS, "two"),
        spec="reinforce?lr=1e-3&batch=1&baseline=running&credit=togo&normalize=false",
    )
    assert result.steps >= 1 and result.tokens >= 300
    assert (tmp_path / "chat" / "model.safetensors").is_file()


# --- evaluation -----------------------------------------------------------------------------


async def test_game_scores_are_paired_maps_apart_from_training_maps(
    registry: Registry, tiny_model: Path
) -> None:
    game = game_of(CONDENSE_LIKE)
    player = f"hf:{tiny_model}?max_new_tokens=4&temperature=1"
    first = await game_scores(player, game, judge=NgramJudge(), registry=registry, maps=3, seed=2)
    again = await game_scores(player, game, judge=NgramJudge(), registry=registry, maps=3, seed=2)
    assert first == again and len(first) == 3 and len(set(first)) > 1
    other = await game_scores(player, game, judge=NgramJudge(), registry=registry, maps=3, seed=9)
    assert other != first
    evaluation = {eval_map_seed(2, i) for i in range(100)}
    assert not evaluation & {train_map_seed(2, i) for i in range(100)}
    with pytest.raises(ConfigError, match="maps >= 1"):
        await map_scores(player, game, judge=NgramJudge(), registry=registry, maps=0, seed=2)


def test_forfeits_count_as_the_worst_score_of_the_map_minus_one_bit() -> None:
    assert fill_forfeits([1.0, None, 3.0], [2.0, 5.0, None]) == [[1.0, 4.0, 3.0], [2.0, 5.0, 2.0]]
    assert fill_forfeits([None, -2.0], [None, 1.0]) == [[-3.0, -2.0], [-3.0, 1.0]]
    assert fill_forfeits([None]) == [[-1.0]]


def test_a_check_episode_that_failed_every_ensure_scores_below_the_answered_ones() -> None:
    """keep=best's check score: an episode whose every answer failed an ensure gets the
    forfeit floor of the whole check (the lowest answered reward minus one bit). Scored on
    its own it got 0 - 1 = -1 bit, better than any real answer at -40, so weights that only
    broke the rules looked best."""
    from arena.players.finetune.reinforce import FAIL_PENALTY, _check_score, _Episode

    answered = _Episode([], [-40.0, -42.0], [False, False], tokens=10)
    broken = _Episode([], [0.0], [True], tokens=10)
    floor = -42.0 - FAIL_PENALTY
    assert _check_score([answered, broken], []) == pytest.approx((-41.0 + floor) / 2)
    assert _check_score([answered], []) > _check_score([answered, broken], [])
    assert _check_score([_Episode([], [], [], tokens=0)], []) == float("-inf")
