"""The built-in `mutate` meta-sampler: seeded, grammar-aware mutations of a game's syntax
tree (`arena.gamespace.sampling.mutations`), each candidate checked by the static checker before it
is proposed.

Spec: ``mutate`` or ``mutate?ops=length,reward&depth=2&attempts=30``: the operators to draw
from (default all), how many mutations each candidate composes (default 1), and how many
tries a candidate gets before the sampler gives up on it. Candidate ``i`` of seed ``S``
depends only on (S, i) and the parent's text, so any one of them can be made again alone.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from pathlib import PurePath

from arena.errors import ConfigError, GameSyntaxError
from arena.gamespace.sampling.lineage import lineage_header
from arena.gamespace.sampling.mutations import OPERATORS
from arena.lang import ast
from arena.lang.loader import load_game
from arena.lang.printer import render_program
from arena.protocols.sampler import ParentGame, Proposal
from arena.specs import Spec

DEFAULT_ATTEMPTS = 40
MAX_DEPTH = 8


class MutateSampler:
    """Proposes checked mutants of a parent game."""

    def __init__(
        self, operators: Sequence[str] = tuple(OPERATORS), *, depth: int = 1,
        attempts: int = DEFAULT_ATTEMPTS, spec: str = "mutate",
    ) -> None:
        self.operators = tuple(operators)
        self.depth = depth
        self.attempts = attempts
        self.spec = spec

    def propose(self, parent: ParentGame, count: int, seed: int) -> Iterator[Proposal]:
        program = load_game(parent.source, filename=parent.filename)
        for index in range(count):
            made = self.one(parent, program, seed, index)
            if made is not None:
                yield made

    def one(
        self, parent: ParentGame, program: ast.Program, seed: int, index: int
    ) -> Proposal | None:
        """Candidate `index` of run `seed`, or None when every attempt failed the checker."""
        rng = random.Random(f"mutate/{seed}/{index}")
        original = render_program(program, header=())
        for attempt in range(self.attempts):
            mutant, used = program, list[str]()
            for _ in range(rng.randint(1, self.depth)):
                name = rng.choice(self.operators)
                changed = OPERATORS[name](mutant, rng)
                if changed is not None:
                    mutant, used = changed, [*used, name]
            if not used or render_program(mutant, header=()) == original:
                continue
            operator = "+".join(used)
            header = lineage_header(
                parent.source, parent=f"{parent.name} v{parent.version}", sampler=self.spec,
                seed=seed, index=index, operator=operator,
            )
            suffix = PurePath(parent.filename).suffix or ".xgl"
            name = f"{parent.name}-mut-s{seed}-{index}"
            text = render_program(mutant, header=header)
            try:
                load_game(text, filename=name + suffix)
            except GameSyntaxError:
                continue
            return Proposal(
                name=name, source=text, filename=name + suffix, parent=parent.name,
                sampler=self.spec, seed=seed, index=index, operator=operator,
                rejected=attempt,
            )
        return None


def make_mutate(spec: Spec) -> MutateSampler:
    """Build the sampler from its spec; ConfigError for a bad parameter."""
    allowed = {"ops", "depth", "attempts"}
    unknown = sorted(set(spec.params) - allowed)
    if unknown or spec.arg:
        what = f"parameter '{unknown[0]}'" if unknown else f"argument '{spec.arg}'"
        raise ConfigError(
            f"The mutate sampler has no {what} (in '{spec.raw}'). Valid parameters: "
            "ops, depth, attempts, e.g. mutate?ops=length,reward&depth=2."
        )
    ops = [o.strip() for o in str(spec.params.get("ops", ",".join(OPERATORS))).split(",")]
    bad = [o for o in ops if o not in OPERATORS]
    if bad or not ops:
        raise ConfigError(
            f"Unknown mutation operator '{bad[0] if bad else ''}' in '{spec.raw}'. Valid "
            f"operators: {', '.join(OPERATORS)}."
        )
    depth = _int_param(spec, "depth", 1, MAX_DEPTH)
    attempts = _int_param(spec, "attempts", DEFAULT_ATTEMPTS, 1000)
    return MutateSampler(ops, depth=depth, attempts=attempts, spec=spec.raw)


def _int_param(spec: Spec, key: str, default: int, highest: int) -> int:
    raw = spec.params.get(key, default)
    try:
        value = int(str(raw))
    except ValueError:
        value = 0
    if not 1 <= value <= highest:
        raise ConfigError(
            f"mutate's {key} must be an integer from 1 to {highest}, got '{raw}' in "
            f"'{spec.raw}'. Example: mutate?{key}={default}."
        )
    return value
