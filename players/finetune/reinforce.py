"""`reinforce`: the built-in fine-tuning mechanism F (paper §4.3.2): REINFORCE with a
baseline on a local transformers player model (an `hf:` player spec), AdamW.

Loop, until the token budget is spent:

1. Play `batch` episodes (one round of the game each) on training maps drawn from a seeded
   stream (`arena.gamespace.transfer.evaluate.train_map_seed`, never an evaluation map). The tuned
   model sits in the main role and moves exactly as `hf:<model>` does at play time
   (`arena.players.finetune.policy_recorder`); the other roles are played by the frozen base
   player (or
   `opponent`), built through `arena.match_setup.build_match` like any match.
2. Each answered elicit of the tuned role gets the reward it earned
   (`arena.gamespace.transfer.credit`: the rewards up to the role's next elicit, or the
   reward-to-go);
   an answer that made an `ensure` fail gets the step's lowest reward minus one bit (the
   forfeit rule of SCORING.md section 1).
3. advantage = reward - baseline (the step's mean reward, or the mean of all earlier steps'),
   divided by the step's standard deviation when `normalize`; loss = -sum over elicits of
   advantage * log p(continuation | prompt) / elicits, where log p sums over the sampled
   tokens under the distribution they were sampled from: softmax(logits / temperature)
   restricted to the model's top-k and top-p (`arena.players.local.host_sampling.truncated`;
   over the whole vocabulary, the gradient also pushed on tokens the draw can never pick).
4. One AdamW step (gradient norm clipped).

With ``keep=best`` (the default) the tuned model is the weights that did best on `check`
fixed check maps (`arena.gamespace.transfer.evaluate.check_map_seed`, never an evaluation or
a training map), played before the first step and after each one by the *evaluation*
policy: the player as it plays at evaluation time (greedy when its temperature is 0), not
the learning temperature. Why: REINFORCE on a small model sometimes collapses late in a run;
on the tests' game 12 % of runs ended with a greedy answer worse than the base model's,
while the sampled batches' mean reward did not show it (the learning policy and the greedy
one differ). Checking the greedy policy itself turns such a run into a smaller gain, or none
(the base weights are kept), instead of a loss. It is early stopping on maps of its own, so
S_G of the result stays an honest measurement; the check episodes' tokens count against the
budget (4 check maps and a batch of 8: a step costs 1.5 times as much). Measured on the
tests' game, 40 runs (seeds 200-239) of 10 steps each: worse than the base model in 3 runs
with ``keep=last``, 2 with 2 check maps (too few: the check itself is noisy), none with 4.
``keep=last`` is the plain algorithm.

Defaults (lr 3e-5, 8 episodes a step) are what learns steadily on the bundled 4M-parameter
model: Adam moves every weight by about lr each step, and at 5e-4 one step already made
every sample start alike, after which the policy drifted into repetitions.

Tokens counted against the budget: every prompt token the tuned model read and every token
it generated during play, check maps included (the learning pass re-reads exactly those
tokens; the frozen players' and the judge's tokens are not counted). The loop stops at the
first step that reaches the budget, so at most one step's and one check's tokens over it.

Reproducible: training maps, play seeds and move sampling derive from the request's seed,
and `torch.manual_seed(seed)` is set before learning; same seed, same weights (on one
device and torch version).
"""

from __future__ import annotations

import asyncio
import json
import math
import statistics
import time
from dataclasses import dataclass, replace
from typing import Any

from arena.errors import ConfigError, GameRuntimeError
from arena.gamespace.transfer.credit import CREDITS, Credit, elicit_credits
from arena.gamespace.transfer.evaluate import check_map_seed, train_map_seed
from arena.match_setup import (
    ANALYSIS_POLICY,
    LoadedGame,
    SeatSpec,
    build_match,
    game_from_view,
    resolve_game_map,
)
from arena.players.finetune.policy_recorder import RecordedMove, RecordingHFPlayer, Segment
from arena.players.local.hf_player import (
    HFSettings,
    _Loaded,
    parse_settings,
    read_model,
    require_torch,
)
from arena.players.local.host_sampling import draw_limits, truncated
from arena.plugins.registry import Registry
from arena.protocols.finetune import FineTuneRequest, FineTuneResult
from arena.runtime.seeds import public_seed_key, seat_seed
from arena.spec_params import Param, SpecParams
from arena.specs import Spec, parse_spec

FAIL_PENALTY = 1.0  # bits below the step's lowest reward for an answer that failed an ensure

SPEC_PARAMS = SpecParams(
    params=(
        Param("lr", "float", 3e-5, "AdamW learning rate", minimum=0.0),
        Param("batch", "int", 8, "episodes (training maps) per optimiser step", minimum=1),
        Param(
            "temperature", "float", None,
            "sampling temperature while learning (default: the player's; 1 if it is greedy)",
            minimum=0.0,
        ),
        Param(
            "baseline", "str", "batch",
            "batch: the step's mean reward; running: the mean reward of all earlier steps",
            choices=("batch", "running"),
        ),
        Param(
            "credit", "str", "elicit",
            "elicit: rewards up to the role's next elicit; togo: every later reward of the round",
            choices=CREDITS,
        ),
        Param("normalize", "bool", True, "divide advantages by the step's standard deviation"),
        Param("weight_decay", "float", 0.0, "AdamW weight decay", minimum=0.0),
        Param("clip", "float", 1.0, "gradient norm clip (0: none)", minimum=0.0),
        Param("device", "str", None, "torch device of the tuned model (default: the player's)"),
        Param("micro", "int", 8, "generations per forward pass while learning", minimum=1),
        Param("opponent", "str", None, "player spec of the other roles (default: the base player)"),
        Param(
            "keep", "str", "best",
            "best: the weights that did best on the check maps (early stopping); last: the final",
            choices=("best", "last"),
        ),
        Param("check", "int", 4, "check maps per comparison (keep=best)", minimum=1),
    )
)


@dataclass(frozen=True)
class ReinforceSettings:
    """The parsed spec of the `reinforce` fine-tuner."""

    lr: float = 3e-5
    batch: int = 8
    temperature: float | None = None
    baseline: str = "batch"
    credit: Credit = "elicit"
    normalize: bool = True
    weight_decay: float = 0.0
    clip: float = 1.0
    device: str | None = None
    opponent: str | None = None
    micro: int = 8
    keep: str = "best"
    check: int = 4


def parse_reinforce(spec: Spec) -> ReinforceSettings:
    """Settings from a validated `reinforce?...` spec; `ConfigError` for a greedy temperature."""
    temperature = spec.float_param("temperature", 1.0) if "temperature" in spec.params else None
    if temperature is not None and temperature <= 0:
        raise ConfigError(
            f"Fine-tuner '{spec.raw}': temperature must be > 0 (REINFORCE learns from sampled "
            f"moves), got {temperature:g}. Leave it out or give e.g. temperature=1."
        )
    credit: Credit = "togo" if spec.params.get("credit") == "togo" else "elicit"
    return ReinforceSettings(
        lr=spec.float_param("lr", 3e-5),
        batch=spec.int_param("batch", 8, minimum=1),
        temperature=temperature,
        baseline=spec.params.get("baseline", "batch"),
        credit=credit,
        normalize=spec.bool_param("normalize", True),
        weight_decay=spec.float_param("weight_decay", 0.0),
        clip=spec.float_param("clip", 1.0),
        device=spec.params.get("device") or None,
        opponent=spec.params.get("opponent") or None,
        micro=spec.int_param("micro", 8, minimum=1),
        keep=spec.params.get("keep", "best"),
        check=spec.int_param("check", 4, minimum=1),
    )


@dataclass
class _Episode:
    moves: list[RecordedMove]
    rewards: list[float]
    failed: list[bool]
    tokens: int
    error: str | None = None


class Reinforce:
    """REINFORCE with a baseline; see the module docstring. `registry` builds the players
    of the game's other roles (the frozen base player or `opponent`)."""

    def __init__(self, settings: ReinforceSettings, registry: Registry) -> None:
        self.settings = settings
        self.registry = registry

    async def finetune(self, request: FineTuneRequest) -> FineTuneResult:
        base = _player_spec(request.player)
        player = parse_settings(base)
        _check_request(request)
        s = self.settings
        temperature = s.temperature or (player.temperature if player.temperature > 0 else 1.0)
        device = s.device or player.device
        policy = replace(player, temperature=temperature, device=device)
        started = time.perf_counter()
        loaded = await asyncio.to_thread(_load_trainable, policy, request.seed)
        torch, _ = require_torch()
        optimiser = torch.optim.AdamW(
            loaded.model.parameters(), lr=s.lr, weight_decay=s.weight_decay
        )
        game = game_from_view(request.game)
        main = game.main_role(None)
        others = [r for r in game.roles if r != main]
        opponent = s.opponent or request.player
        tokens, steps, episode, curve = 0, 0, 0, []
        history: list[float] = []
        best = _BestWeights() if s.keep == "best" else None
        judged = replace(player, device=device)  # the policy evaluation will play

        async def check() -> None:
            """Offer the current weights to `best`, scored by `judged` on the check maps."""
            nonlocal tokens
            if best is None:
                return
            episodes = [
                await _play(
                    game, main, others, opponent, judged, loaded, request, self.registry,
                    check_map_seed(request.seed, index), s.credit,
                )
                for index in range(s.check)
            ]
            tokens += sum(e.tokens for e in episodes)
            score = _check_score(episodes, history)
            await asyncio.to_thread(best.offer, loaded, score, steps)  # a copy of the weights

        await check()
        while (tokens < request.budget_tokens or steps == 0) and (  # a check never stops it
            request.max_steps is None or steps < request.max_steps
        ):
            batch = []
            for _ in range(s.batch):
                played = await _play(
                    game, main, others, opponent, policy, loaded, request, self.registry,
                    train_map_seed(request.seed, episode), s.credit,
                )
                episode += 1
                tokens += played.tokens
                batch.append(played)
            if not any(e.tokens for e in batch):  # the budget would never be spent
                raise _no_moves(game, main, batch)
            rewards = _rewards(batch, history)
            steps += 1
            if rewards:
                await asyncio.to_thread(
                    _learn, loaded, optimiser, batch, rewards, s, temperature, history
                )
                curve.append(statistics.fmean(rewards))
                history.extend(rewards)
                await check()
        kept = steps if best is None else await asyncio.to_thread(best.restore, loaded, steps)
        checks = [] if best is None else best.scores
        await asyncio.to_thread(
            _save, loaded, request, base, s, tokens, steps, curve, kept, checks
        )
        tuned = Spec("hf", str(request.out_dir.resolve()), dict(base.params))
        return FineTuneResult(
            player=tuned.canonical, tokens=tokens, steps=steps,
            wall_s=time.perf_counter() - started, rewards=tuple(curve),
        )


def _player_spec(text: str) -> Spec:
    spec = parse_spec(text)
    if spec.name != "hf":
        raise ConfigError(
            f"The reinforce fine-tuner tunes local transformers models only, got player "
            f"'{text}'. Give an hf player spec, e.g. 'hf:bundled' or 'hf:/path/to/model'."
        )
    return spec


def _no_moves(game: LoadedGame, role: str, batch: list[_Episode]) -> GameRuntimeError:
    error = next((e.error for e in batch if e.error), None)
    why = f"the first failed with: {error}" if error else "none reached its elicit"
    return GameRuntimeError(
        f"Fine-tuning stopped: the tuned player ({role}) made no move in {len(batch)} "
        f"training episodes of game '{game.name}' ({why}). Check the game with "
        "`arena games check`"
    )


def _check_request(request: FineTuneRequest) -> None:
    if request.budget_tokens < 1:
        raise ConfigError(
            f"The token budget must be at least 1, got {request.budget_tokens}. Give a "
            "budget such as 20000."
        )
    out = request.out_dir
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ConfigError(
            f"The fine-tuning output folder {out} is not empty. Give a new or empty folder."
        )


def _load_trainable(settings: HFSettings, seed: int) -> _Loaded:
    """A private copy of the model (never the hf player's shared cache), ready to learn.
    No dropout: log p must be taken under the very policy that sampled the moves."""
    require_torch()[0].manual_seed(seed)
    return read_model(settings)


async def _play(
    game: LoadedGame, main: str, others: list[str], opponent: str, policy: HFSettings,
    loaded: _Loaded, request: FineTuneRequest, registry: Registry, map_seed: int,
    credit: Credit,
) -> _Episode:
    """One training episode: a round on the map of `map_seed`, then each elicit's reward."""
    seed = seat_seed(public_seed_key(map_seed), map_seed, main)
    tuned = RecordingHFPlayer(policy, loaded, name=f"reinforce:{request.player}", seed=seed)
    seats: list[SeatSpec] = [SeatSpec(main, tuned)]
    seats += [SeatSpec(role, opponent, main=False) for role in others]
    game_map = await resolve_game_map(game, request.judge, map_seed)
    async with await build_match(
        game, seats, judge=request.judge, registry=registry, seed=map_seed, rounds=1,
        main_roles=(main,), policy=ANALYSIS_POLICY, show_code=request.show_code,
        match_id=f"gamespace:train:{game.name}:{map_seed}",
    ) as match:
        result = await match.play(game_map)
    moves = tuned.moves
    tokens = sum(m.tokens for m in moves)
    if result.error is not None:  # nothing to learn from a broken round
        return _Episode([], [], [], tokens, result.error)
    credits = elicit_credits(result.events, main, credit)
    paired = min(len(credits), len(moves))
    return _Episode(
        moves[:paired], [c.reward for c in credits[:paired]],
        [c.failed for c in credits[:paired]], tokens,
    )


def _advantages(
    rewards: list[float], settings: ReinforceSettings, history: list[float]
) -> list[float]:
    if settings.baseline == "running" and history:
        baseline = statistics.fmean(history)
    else:
        baseline = statistics.fmean(rewards)
    advantages = [r - baseline for r in rewards]
    if settings.normalize and len(rewards) > 1:
        spread = statistics.pstdev(rewards)
        advantages = [a / (spread + 1e-6) for a in advantages]
    return advantages


class _BestWeights:
    """The weights with the best check score so far (a copy on the CPU, so a GPU's memory
    holds one model), and the number of optimiser steps they had taken."""

    def __init__(self) -> None:
        self.mean = -math.inf
        self.steps = 0
        self.state: dict[str, Any] | None = None
        self.scores: list[float] = []  # every check, in order (finetune.json shows them)

    def offer(self, loaded: _Loaded, mean: float, steps: int) -> None:
        """Keep the current weights if they did at least as well (later wins ties: it
        learned more)."""
        self.scores.append(mean)
        if not mean >= self.mean:
            return
        self.mean, self.steps = mean, steps
        self.state = {
            k: v.detach().to("cpu", copy=True) for k, v in loaded.model.state_dict().items()
        }

    def restore(self, loaded: _Loaded, steps: int) -> int:
        """Load the kept weights (unless they are the current ones); their step count."""
        if self.state is None or self.steps == steps:
            return steps
        loaded.model.load_state_dict(self.state)
        return self.steps


def _rewards(batch: list[_Episode], history: list[float]) -> list[float]:
    """The elicits' rewards of a batch, a failed ensure scored as the forfeit floor."""
    raw = [r for e in batch for r in e.rewards]
    failed = [f for e in batch for f in e.failed]
    fine = [r for r, f in zip(raw, failed, strict=True) if not f]
    floor = min(fine, default=statistics.fmean(history) if history else 0.0) - FAIL_PENALTY
    return [floor if f else r for r, f in zip(raw, failed, strict=True)]


def _check_score(episodes: list[_Episode], history: list[float]) -> float:
    """The mean over check episodes of each one's mean elicit reward, a failed ensure scored
    as the forfeit floor of all the check's rewards (never better than an answered move);
    -inf when no episode reached an elicit."""
    rewards = _rewards(episodes, history)
    means, start = [], 0
    for episode in episodes:
        count = len(episode.rewards)
        if count:
            means.append(statistics.fmean(rewards[start : start + count]))
        start += count
    return statistics.fmean(means) if means else -math.inf


def _learn(
    loaded: _Loaded, optimiser: Any, batch: list[_Episode], rewards: list[float],
    settings: ReinforceSettings, temperature: float, history: list[float],
) -> None:
    """One optimiser step on a batch of episodes and their elicits' `rewards`."""
    torch, _ = require_torch()
    moves = [m for e in batch for m in e.moves]
    advantages = _advantages(rewards, settings, history)
    weighted = [
        (segment, -advantage / len(moves))
        for move, advantage in zip(moves, advantages, strict=True)
        if advantage != 0.0
        for segment in move.segments
        if segment.continuation.shape[0] > 0
    ]
    with loaded.lock:
        optimiser.zero_grad(set_to_none=True)
        for start in range(0, len(weighted), settings.micro):
            chunk = weighted[start : start + settings.micro]
            logps = _log_probs(torch, loaded.model, [seg for seg, _ in chunk], temperature)
            weights = torch.tensor([w for _, w in chunk], device=logps.device)
            (weights * logps).sum().backward()
        if settings.clip > 0:
            torch.nn.utils.clip_grad_norm_(loaded.model.parameters(), settings.clip)
        optimiser.step()


def _log_probs(torch: Any, model: Any, segments: list[Segment], temperature: float) -> Any:
    """log p(continuation | prompt) of each segment under the draw's distribution, summed
    over its sampled tokens, in one right-padded forward pass (positions of the real tokens
    are unchanged by the padding)."""
    device = next(model.parameters()).device
    top_k, top_p = draw_limits(model)
    length = max(s.prompt.shape[0] + s.continuation.shape[0] for s in segments)
    ids = torch.zeros((len(segments), length), dtype=torch.long)
    mask = torch.zeros_like(ids)
    for row, segment in enumerate(segments):
        both = torch.cat([segment.prompt, segment.continuation])
        ids[row, : both.shape[0]] = both
        mask[row, : both.shape[0]] = 1
    logits = model(input_ids=ids.to(device), attention_mask=mask.to(device)).logits
    out = []
    for row, segment in enumerate(segments):
        start, count = segment.prompt.shape[0] - 1, segment.continuation.shape[0]
        scaled = truncated(logits[row, start : start + count].float() / temperature, top_k, top_p)
        picked = segment.continuation.to(device)[:, None]
        out.append(torch.log_softmax(scaled, dim=-1).gather(1, picked).sum())
    return torch.stack(out)


def _save(
    loaded: _Loaded, request: FineTuneRequest, base: Spec, settings: ReinforceSettings,
    tokens: int, steps: int, curve: list[float], kept: int, checks: list[float],
) -> None:
    """The tuned model and tokenizer (save_pretrained), then how they were made
    (finetune.json, written last: its presence marks a finished run)."""
    out = request.out_dir
    out.mkdir(parents=True, exist_ok=True)
    loaded.model.save_pretrained(out)
    loaded.tokenizer.save_pretrained(out)
    record = {
        "finetuner": "reinforce", "settings": settings.__dict__, "base_player": base.raw,
        "game": request.game.name, "game_version": request.game.version,
        "budget_tokens": request.budget_tokens, "seed": request.seed, "tokens": tokens,
        "steps": steps, "kept_step": kept,
        "rewards": [r if math.isfinite(r) else None for r in curve],
        "checks": [c if math.isfinite(c) else None for c in checks],
    }
    (out / "finetune.json").write_text(json.dumps(record, indent=2), encoding="utf-8")


def create_reinforce(spec: Spec, registry: Registry) -> Reinforce:
    """Factory for `reinforce?lr=3e-5&batch=8&...` (see SPEC_PARAMS)."""
    return Reinforce(parse_reinforce(spec), registry)


__all__ = ["SPEC_PARAMS", "Reinforce", "ReinforceSettings", "create_reinforce"]
