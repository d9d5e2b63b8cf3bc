"""The local transformers player, with a tiny random GPT-2 and a tokenizer trained here."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.judges.ngram import NgramJudge
from arena.players.llm.prompting import XGL_EXPLANATION
from arena.players.local.hf_player import HFPlayer, create_hf_player, first_line
from arena.plugins.plugin_types import PlayerContext
from arena.protocols.player import GameView, MoveRequest, Player
from arena.specs import parse_spec
from tests.runtime.helpers import events_of, run_game

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def _save_tiny_model(folder: Path, chat: bool) -> Path:
    torch = pytest.importorskip("torch")
    tokenizers = pytest.importorskip("tokenizers")
    transformers = pytest.importorskip("transformers")
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(
        [XGL_EXPLANATION, '<move register="t">a quiet harbour</move>'] * 3, trainer
    )
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<|endoftext|>",
        eos_token="<|endoftext|>",
        pad_token="<|endoftext|>",
    )
    if chat:
        tokenizer.chat_template = CHAT_TEMPLATE
    torch.manual_seed(0)
    special = tokenizer.eos_token_id
    config = transformers.GPT2Config(
        vocab_size=len(tokenizer),
        n_positions=128,
        n_embd=32,
        n_layer=1,
        n_head=2,
        bos_token_id=special,
        eos_token_id=special,
    )
    transformers.GPT2LMHeadModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def base_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _save_tiny_model(tmp_path_factory.mktemp("tiny-base"), chat=False)


@pytest.fixture(scope="module")
def chat_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _save_tiny_model(tmp_path_factory.mktemp("tiny-chat"), chat=True)


def make_player(folder: Path, device: str, **params: str) -> HFPlayer:
    """An hf player on `device` (the `torch_device` fixture: `pytest --device cuda`)."""
    values = {"max_new_tokens": "8", "device": device, **params}
    query = "&".join(f"{k}={v}" for k, v in values.items())
    return create_hf_player(parse_spec(f"hf:{folder}?{query}"), PlayerContext(seed=3))


def make_request(*registers: str, seed: int = 1) -> MoveRequest:
    return MoveRequest(
        game=GameView(name="g", code="elicit(black, t, 5)", dialect="xgl"),
        role="black",
        round=1,
        rounds=1,
        line=1,
        registers=registers or ("t",),
        max_len=5,
        visible={},
        reveals=(),
        history=(),
        omniscient=True,
        seed=seed,
    )


@pytest.mark.torch
@pytest.mark.parametrize("kind", ["base", "chat"])
async def test_moves_are_strings_reproducible_per_seed(
    kind: str, base_model: Path, chat_model: Path, torch_device: str
) -> None:
    folder = base_model if kind == "base" else chat_model
    player = make_player(folder, torch_device)
    assert isinstance(player, Player)
    first = await player.move(make_request(seed=11))
    assert set(first) == {"t"} and isinstance(first["t"], str)
    assert (
        await make_player(folder, torch_device).move(make_request(seed=11)) == first
    )  # fresh player too
    outcomes = {(await player.move(make_request(seed=s)))["t"] for s in range(6)}
    assert len(outcomes) > 1  # sampling really depends on the seed


@pytest.mark.torch
async def test_a_seed_gives_the_same_moves_on_the_chosen_device_as_on_the_cpu(
    base_model: Path, torch_device: str
) -> None:
    """Draws are made on the host: with `--device cuda` this compares a GPU with the CPU
    (CUDA's own generator gave other moves for the same seed, so tuning depended on it)."""
    for seed in (11, 12, 13):
        on_device = await make_player(base_model, torch_device).move(make_request(seed=seed))
        assert await make_player(base_model, "cpu").move(make_request(seed=seed)) == on_device


@pytest.mark.torch
def test_host_draw_samples_softmax_of_logits_over_temperature() -> None:
    import torch

    from arena.players.local.host_sampling import HostDraw

    logits = torch.tensor([[2.0, 1.0, 0.0, -1.0, -8.0]])
    draw = HostDraw(0.5, seed=4)
    picks = [int(draw(None, logits).argmax()) for _ in range(6000)]
    counts = torch.bincount(torch.tensor(picks), minlength=5).double() / len(picks)
    expected = torch.softmax(logits[0].double() / 0.5, dim=0)
    assert torch.allclose(counts, expected, atol=0.02), (counts, expected)
    forced = draw(None, logits)
    assert int(torch.isfinite(forced).sum()) == 1  # generate's own draw has one choice
    again = HostDraw(0.5, seed=4)
    assert [int(again(None, logits).argmax()) for _ in range(50)] == picks[:50]


@pytest.mark.torch
@pytest.mark.parametrize(("top_k", "top_p"), [(50, 1.0), (3, 1.0), (0, 0.8), (4, 0.6)])
def test_host_draw_samples_what_generate_would(top_k: int, top_p: float) -> None:
    """Temperature, then the generation config's top-k, then top-p: transformers' own warpers."""
    import torch
    from transformers import (
        LogitsProcessorList,
        TemperatureLogitsWarper,
        TopKLogitsWarper,
        TopPLogitsWarper,
    )

    from arena.players.local.host_sampling import HostDraw

    scores = torch.randn(3, 40, generator=torch.Generator().manual_seed(1)) * 3
    warpers = LogitsProcessorList([TemperatureLogitsWarper(0.7)])
    if top_k:
        warpers.append(TopKLogitsWarper(top_k))
    if top_p < 1.0:
        warpers.append(TopPLogitsWarper(top_p))
    expected = torch.softmax(warpers(None, scores.clone()), dim=-1)
    got = HostDraw(0.7, seed=0, top_k=top_k, top_p=top_p).probabilities(scores)
    assert torch.allclose(got, expected, atol=1e-6)


@pytest.mark.torch
async def test_greedy_decoding_ignores_the_seed(base_model: Path, torch_device: str) -> None:
    player = make_player(base_model, torch_device, temperature="0")
    assert await player.move(make_request(seed=1)) == await player.move(make_request(seed=2))


@pytest.mark.torch
async def test_several_registers_and_a_real_match(base_model: Path, torch_device: str) -> None:
    player = make_player(base_model, torch_device)
    moves = await player.move(make_request("x", "y"))
    assert set(moves) == {"x", "y"} and all(isinstance(v, str) for v in moves.values())
    result = await run_game("elicit(alice, t, 5)\n", {"alice": player}, NgramJudge())
    (response,) = events_of(result, "elicit_response")
    assert isinstance(response.values["t"], str) and not events_of(result, "forfeit")


def test_first_line_fallback() -> None:
    assert first_line("\n\n  hello there \nsecond") == "hello there"
    assert first_line('<think>x</think><move register="t">\n kept </move>') == "kept"
    assert first_line("   \n") == ""
    assert first_line("a\x17b\ufffdc") == "abc"  # control bytes of a random model dropped


def test_device_auto_is_the_default_and_resolves_to_a_present_device() -> None:
    import torch

    from arena.players.local.hf_player import HFSettings, resolve_device

    assert HFSettings(model="m").device == "auto"
    want = "cuda" if torch.cuda.is_available() else "cpu"
    if not torch.cuda.is_available() and torch.backends.mps.is_available():
        want = "mps"
    assert resolve_device("auto") == want
    assert resolve_device("cpu") == "cpu"


def test_bad_specs_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no model folder"):
        create_hf_player(parse_spec(f"hf:{tmp_path / 'missing'}"), PlayerContext())
    with pytest.raises(ConfigError, match="Did you mean 'max_new_tokens'"):
        create_hf_player(parse_spec("hf:gpt2?max_new_token=3"), PlayerContext())
    with pytest.raises(ConfigError, match="names no model"):
        create_hf_player(parse_spec("hf"), PlayerContext())
