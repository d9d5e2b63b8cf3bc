"""The `llm:<model>` meta-sampler: a language model proposes a variant of the parent game,
the static checker reads it, and every diagnostic (with its caret listing) goes back to the
model for at most `repairs` repairs.

Each candidate ends one of three ways, recorded in its `Proposal.extra`: ``valid`` (first
try), ``repaired`` (after k repairs) or ``hopeless`` (still rejected after repairs + 1
attempts, or the model call failed). A hopeless candidate is still proposed, marked with
`sampler.GAVE_UP`, so that `arena games generate` shows it dropped with the reason. Every
attempt's messages, reply, tokens and cost (None where unknown) are recorded, so they land
in generation.json beside the pipeline's verdicts.

The model is anything with the `ChatModel` interface; the players plugin provides litellm
and local transformers ones (`arena.players.llm.sampler`), so this module never imports a model
library. Candidate `i` of seed `S` asks the model with a seed derived from (S, i, attempt)
and draws its examples and direction from (S, i): reproducible as far as the model is.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from functools import cache
from importlib.resources import files
from pathlib import PurePath
from typing import Any

from arena.errors import ArenaError, PermanentPlayerError
from arena.games.plugin import games_in
from arena.gamespace.sampling.lineage import lineage_header
from arena.gamespace.sampling.llm_prompt import (
    MAX_REPLY_CHARS,
    Example,
    check_problems,
    clip,
    extract_game,
    first_messages,
    repair_message,
    too_long,
)
from arena.lang.printer import header_text
from arena.protocols.chat import ChatModel
from arena.protocols.sampler import GAVE_UP, ParentGame, Proposal

DEFAULT_REPAIRS = 3
MAX_REPAIRS = 20
DEFAULT_EXAMPLES = 2
MAX_EXAMPLES = 4
EXAMPLE_LINES = 20  # library games longer than this are not shown (prompt size)


@cache
def library() -> tuple[Example, ...]:
    """The bundled games short enough to serve as examples."""
    return tuple(
        Example(g.name, g.filename, g.source)
        for g in games_in(files("arena.games"))
        if len(g.source.splitlines()) <= EXAMPLE_LINES
    )


def _cost_total(costs: Sequence[float | None]) -> float | None:
    return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)


class LLMSampler:
    """Proposes model-written variants of a parent game, repaired against the checker."""

    def __init__(
        self, model: ChatModel, *, spec: str, repairs: int = DEFAULT_REPAIRS,
        examples: int = DEFAULT_EXAMPLES, library: Sequence[Example] | None = None,
    ) -> None:
        self.model = model
        self.spec = spec  # shown in headers and records: redacted by the factory
        self.repairs = repairs
        self.examples = examples
        self._library = library
        self.stopped: str | None = None  # why the run stopped early, if it did

    def propose(self, parent: ParentGame, count: int, seed: int) -> Iterator[Proposal]:
        for index in range(count):
            made = self.one(parent, seed, index)
            yield made
            if self.stopped is not None:
                return

    def one(self, parent: ParentGame, seed: int, index: int) -> Proposal:
        """Candidate `index` of run `seed`: a checked game, or a hopeless one marked so."""
        rng = random.Random(f"llm/{seed}/{index}")
        shown = [g for g in (self._library or library()) if g.name != parent.name]
        examples = rng.sample(shown, min(self.examples, len(shown)))
        messages = first_messages(
            Example(parent.name, parent.filename, parent.source), examples, rng
        )
        name = f"{parent.name}-llm-s{seed}-{index}"
        filename = name + (PurePath(parent.filename).suffix or ".xgl")
        call_seed = rng.randrange(2**31)
        attempts: list[dict[str, Any]] = []
        sent = list(messages)
        code = ""
        for attempt in range(1, self.repairs + 2):
            record: dict[str, Any] = {"attempt": attempt, "sent": sent}
            attempts.append(record)
            try:
                reply = self.model.chat(messages, (call_seed + attempt) % 2**31)
            except ArenaError as error:
                record["error"] = str(error)
                if isinstance(error, PermanentPlayerError):
                    self.stopped = "the model call failed permanently; stopped the run"
                return self._hopeless(parent, seed, index, name, filename, code, attempts,
                                      f"the model call failed: {error}")
            record.update(
                reply=clip(reply.text), reply_chars=len(reply.text),
                prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
                cost_usd=reply.cost_usd,
            )
            if len(reply.text) > MAX_REPLY_CHARS:
                code, problems = "", [too_long(len(reply.text))]
            else:
                code = extract_game(reply.text)
                problems = check_problems(code, filename)
            if not problems:
                text = self._compose(parent, code, seed, index, attempt)
                problems = check_problems(text, filename)  # the header adds lines
                if not problems:
                    record["valid"] = True
                    return self._made(parent, seed, index, name, filename, text, attempts)
            record.update(valid=False, problems=problems)
            if attempt <= self.repairs:
                sent = [
                    {"role": "assistant", "content": clip(reply.text)},
                    {"role": "user", "content": repair_message(problems, filename)},
                ]
                messages = [*messages, *sent]
        last = attempts[-1]["problems"][0].splitlines()[0]
        reason = f"hopeless: the checker rejected all {len(attempts)} attempts; last: {last}"
        return self._hopeless(parent, seed, index, name, filename, code, attempts, reason)

    def _operator(self, attempts: int) -> str:
        return "first try" if attempts == 1 else f"repaired after {attempts - 1}"

    def _compose(self, parent: ParentGame, code: str, seed: int, index: int, tries: int) -> str:
        """The game with lineage fields appended to its own header (after any pragma)."""
        own = header_text(code)
        rest = code.splitlines()[len(own):]
        header = lineage_header(
            parent.source, parent=f"{parent.name} v{parent.version}", sampler=self.spec,
            seed=seed, index=index, operator=self._operator(tries),
            more={"model": self.model.model, "attempts": str(tries)}, header=own,
        )
        return "\n".join(header + rest).rstrip("\n") + "\n"

    def _extra(self, attempts: list[dict[str, Any]], outcome: str) -> dict[str, object]:
        return {
            "model": self.model.model,
            "outcome": outcome,
            "repairs_used": max(0, len(attempts) - 1) if outcome != "hopeless" else None,
            "attempts": attempts,
            "prompt_tokens": sum(a.get("prompt_tokens", 0) for a in attempts),
            "completion_tokens": sum(a.get("completion_tokens", 0) for a in attempts),
            "cost_usd": _cost_total([a.get("cost_usd") for a in attempts]),
        }

    def _made(
        self, parent: ParentGame, seed: int, index: int, name: str, filename: str, text: str,
        attempts: list[dict[str, Any]],
    ) -> Proposal:
        outcome = "valid" if len(attempts) == 1 else "repaired"
        return Proposal(
            name=name, source=text, filename=filename, parent=parent.name, sampler=self.spec,
            seed=seed, index=index, operator=self._operator(len(attempts)),
            rejected=len(attempts) - 1, extra=self._extra(attempts, outcome),
        )

    def _hopeless(
        self, parent: ParentGame, seed: int, index: int, name: str, filename: str, code: str,
        attempts: list[dict[str, Any]], reason: str,
    ) -> Proposal:
        return Proposal(
            name=name, source=clip(code), filename=filename, parent=parent.name,
            sampler=self.spec, seed=seed, index=index,
            operator=f"hopeless after {len(attempts)}", rejected=len(attempts),
            extra={**self._extra(attempts, "hopeless"), GAVE_UP: reason},
        )
