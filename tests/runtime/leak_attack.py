"""An attacker written as code: a player that tries to learn a text hidden from it.

It holds only what a player may hold: its own `MoveRequest`s and a copy of the judge's
weights (the bundled judge ships inside the package, so every entrant has them). Two
channels are tried:

- feedback: for a reward term `xed(s | m)` over a hidden story `s` and the attacker's own
  move `m`, each reported per-token value is log2 p(s_i | m, s_<i) - log2 p(s_i | s_<i);
  with the model at hand, the one vocabulary token whose value matches is s_i. Without
  per-token values it can only guess the model's most likely tokens (the "blind" guess:
  chance for this attacker).
- seeds: brute-force small play seeds against the seeds it received, re-deriving them as
  the old runtime did (`derive_seed("move", play_seed, round, line, role, attempt)`) and as
  the new one would with a seed key anyone can compute (`public_seed_key`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from arena.judges.hf.bundled_judge import bundled_model_path
from arena.protocols.player import HistoryItem, MoveRequest, RewardTermView
from arena.runtime.seeds import derive_seed, move_seed, public_seed_key


class JudgeCopy:
    """The bundled judge's weights and tokenizer, loaded the public way."""

    def __init__(self) -> None:
        path = str(bundled_model_path())
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModelForCausalLM.from_pretrained(path)
        self.model.train(False)
        torch.set_num_threads(1)  # tiny model: threads only contend
        self.bos = int(self.tokenizer.bos_token_id)

    def ids(self, text: str) -> list[int]:
        """Token ids of a text as the judge tokenises it in dialect xgl (leading space)."""
        spaced = text if not text or text[0].isspace() else " " + text
        return list(self.tokenizer(spaced, add_special_tokens=False)["input_ids"])

    def stream(self, prefix: Sequence[int]) -> Stream:
        return Stream(self, prefix)


class Stream:
    """One sequence being decoded: log2-probabilities of its next token. (Recomputed from
    the whole sequence at each step: the model is tiny, and no cache API to track.)"""

    def __init__(self, judge: JudgeCopy, prefix: Sequence[int]) -> None:
        self.model = judge.model
        self.ids = list(prefix)
        self.log2probs = self._next()

    @torch.no_grad()
    def _next(self) -> torch.Tensor:
        logits = self.model(torch.tensor([self.ids])).logits[0, -1]
        return torch.log_softmax(logits.double(), dim=-1) / math.log(2.0)

    def feed(self, token: int) -> None:
        self.ids.append(token)
        self.log2probs = self._next()


def decode_xed(judge: JudgeCopy, bits: Sequence[float], context: str) -> list[int]:
    """The hidden target of `xed(target | context)` from its per-token values."""
    recovered: list[int] = []
    plain = judge.stream([judge.bos])
    conditioned = judge.stream([judge.bos, *judge.ids(context)])
    for value in bits:
        token = int(torch.argmin((conditioned.log2probs - plain.log2probs - value).abs()))
        recovered.append(token)
        plain.feed(token)
        conditioned.feed(token)
    return recovered


def blind_guess(judge: JudgeCopy, length: int) -> list[int]:
    """What the attacker can say without any per-token value: the likeliest tokens."""
    guess: list[int] = []
    stream = judge.stream([judge.bos])
    for _ in range(length):
        guess.append(int(torch.argmax(stream.log2probs)))
        stream.feed(guess[-1])
    return guess


def all_items(requests: Iterable[MoveRequest]) -> list[HistoryItem]:
    """Every history item the attacker received, earlier rounds included."""
    items: list[HistoryItem] = []
    for request in requests:
        items.extend(request.history)
        for memory in request.previous_rounds:
            items.extend(memory.history)
    return items


def reconstruct(
    judge: JudgeCopy, items: Sequence[HistoryItem], target: str, register: str
) -> list[int] | None:
    """Hidden register `target` (token ids) decoded from the per-token values of
    `xed(target | register)` in the history received, conditioned on the attacker's move
    made just before that reward; None where there are none (then the attacker can only
    make its blind guess)."""
    move: str | None = None
    wanted = f"xed({target} | {register})"
    for item in items:
        if item.kind == "move" and register in item.moves:
            move = item.moves[register]
        if item.kind != "reward":
            continue
        for term in item.terms:
            if term.source == wanted and term.bits and move is not None:
                return decode_xed(judge, term.bits, move)
    return None


def accuracy(guess: Sequence[int], truth: Sequence[int]) -> float:
    """Share of the true tokens guessed at their position."""
    return sum(g == t for g, t in zip(guess, truth, strict=False)) / len(truth)


def recover_play_seed(requests: Sequence[MoveRequest], tries: int) -> int | None:
    """A play seed below `tries` that explains every received seed, if any."""
    for candidate in range(tries):
        legacy = all(
            r.seed == derive_seed("move", candidate, r.round, r.line, r.role, r.attempt)
            for r in requests
        )
        public = all(
            r.seed == move_seed(public_seed_key(candidate), candidate, r) for r in requests
        )
        if legacy or public:
            return candidate
    return None


@dataclass
class Attacker:
    """A player that plays fixed moves and keeps every request it receives."""

    moves: Mapping[str, Sequence[str]]
    requests: list[MoveRequest] = field(default_factory=list)

    @property
    def name(self) -> str:
        return "attacker"

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        self.requests.append(request)
        turn = sum(r.line == request.line for r in self.requests) - 1
        return {r: self.moves[r][turn % len(self.moves[r])] for r in request.registers}


def old_view(term_bits: Sequence[float], source: str) -> RewardTermView:
    """A term as the old runtime reported it: every per-token value, hidden text or not."""
    return RewardTermView(
        source=source, coefficient=1, bits=tuple(term_bits), tokens=(), total=sum(term_bits)
    )
