"""Constructed games whose transfer values are known, and a tiny model that learns them.

`PLAIN` rewards a move the judge finds likely (nex(t)): a tiny random model learns within a
few thousand tokens to answer nothing (score 0, the best), whatever the map. `RENAMED` is
the same game with its register renamed (t -> x), on the same maps: what is learned on one
helps the other as much (transfer close to 1). `FIXED` scores the story, not the move: no
fine-tuning can change its score (transfer to it is 0; it is not playable, so transfer
from it is undefined).

The model sees the whole prompt (2048 positions), story included, so its greedy moves and
scores differ from map to map and the intervals over maps are not degenerate."""

from __future__ import annotations

from pathlib import Path

from arena.match_setup import LoadedGame, load_game_text
from tests.players.test_hf_player import _save_tiny_model

PLAIN = """# Plain (test game)
# measures: saying something the judge finds likely
# players: black
assign(s=story(4))
reveal(s)
elicit(t, 4)
reward(nex(t))
"""
RENAMED = PLAIN.replace("(t", "(x").replace("Plain", "Renamed")
NOOP = PLAIN.replace("Plain", "Noop") + "assign(s=s)\n"  # an instruction that does nothing
# Copies of PLAIN that the canonical form does NOT recognise (issue 36): the same game (the
# same score for the same move on the same map: tests/gamespace/test_unrecognised_copies.py)
# in another text, so the players see other code. They are tuned and measured apart.
UNRECOGNISED: dict[str, str] = {
    # the move copied into another register before scoring
    "register": PLAIN.replace("reward(nex(t))", "assign(x=t)\nreward(nex(x))"),
    # a dead assignment: x is never read
    "dead": PLAIN.replace("reveal(s)\n", "reveal(s)\nassign(x=s)\n"),
    # dead's two independent lines in the other order (PLAIN has no two independent lines)
    "reordered": PLAIN.replace("reveal(s)\n", "assign(x=s)\nreveal(s)\n"),
    # an equivalent expression: nex(t) is -xent(t)
    "expr": PLAIN.replace("reward(nex(t))", "reward(-xent(t))"),
}
FIXED = """# Fixed (test game)
# measures: nothing the player says counts
# players: black
assign(s=story(4))
reveal(s)
elicit(t, 4)
reward(nex(s))
"""
# greedy play (its expected score is a plain mean over maps); learning samples at 1.
# Batch 8 (was 4): with the hf player's host-side draw, 17 runs in 40 collapsed onto one
# wrong answer (scores -27 to -47, worse than the base model) at batch 4, 7 in 40 at batch 8
# when the last weights were kept; reinforce's keep=best (the default) checks the greedy
# player after every step and keeps the best weights (docs/gamespace-calibration.md).
FINETUNER = "reinforce?lr=1e-2&batch=8&temperature=1"
BUDGET = 180_000  # about 9 steps of 8 episodes + 4 check maps of ~1 540 tokens (>= MIN_STEPS)
MAPS = 8
RUNS = 2  # fine-tuning runs per game (the tests keep it small; the default is 4)


def games() -> list[LoadedGame]:
    return [
        load_game_text(PLAIN, "plain.xgl"), load_game_text(RENAMED, "renamed.xgl"),
        load_game_text(FIXED, "fixed.xgl"),
    ]


def unrecognised() -> list[LoadedGame]:
    """PLAIN's unrecognised copies (`UNRECOGNISED`), each under its own name."""
    return [load_game_text(text, f"{name}.xgl") for name, text in UNRECOGNISED.items()]


def save_long_context_model(folder: Path) -> Path:
    """The tests' tiny GPT-2 (trained tokenizer), with room for the whole prompt."""
    import torch
    import transformers

    _save_tiny_model(folder, chat=False)
    config = transformers.GPT2Config.from_pretrained(folder)
    config.n_positions = 2048
    torch.manual_seed(0)
    transformers.GPT2LMHeadModel(config).save_pretrained(folder)
    return folder


def player_spec(model: Path, device: str = "cpu") -> str:
    """Greedy play on `device` (the tests pass the `torch_device` fixture: `pytest --device
    cuda`; without it the hf player's `auto` would pick a GPU where there is one)."""
    return f"hf:{model}?max_new_tokens=4&temperature=0&device={device}"


def game_sha(game: LoadedGame) -> str:
    from arena.lang.game_file import game_sha256

    return game_sha256(game.source)
