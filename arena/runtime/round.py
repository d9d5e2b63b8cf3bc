"""Running one round of a game: the XGL program from line 1 with fresh registers.

Implements control flow (ensure jump-back with the failure budget of the game's dialect:
per player and a forfeit in xgl, per line and no result in xent; beacon/replay with reset
for nested loops, the executed-instruction budget), rewards with black/white zero-sum
mirroring, and records every step as an event. Every text the round builds, receives,
shows or sends to the judge is metered against the resource limits. A round that ends the
match with no result (`MatchHasNoResult`) emits a `no_result` event and raises.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import NoReturn

from arena import events as ev
from arena.errors import GameRuntimeError, NoResultError
from arena.lang import ast, names
from arena.lang.dialects import DialectRules, rules_named
from arena.lang.evaluator import EvalEnv, Evaluator, source_of
from arena.lang.flow import Flow, Origin
from arena.lang.limits import DEFAULT_LIMITS, ResourceLimits
from arena.lang.meter import RoundMeter
from arena.lang.values import Text, XentSum
from arena.protocols.judge import Judge
from arena.protocols.player import GameView, MoveRequest, RoundMemory
from arena.runtime.code_hidden import without_code
from arena.runtime.infoset import InfoSet, render_register
from arena.runtime.seat import (
    MoveFailed,
    MovePolicy,
    Seat,
    ask_for_move,
    usage_delta,
    usage_snapshot,
)
from arena.runtime.seeds import game_seed, move_seed


@dataclass(frozen=True)
class RoundLimits:
    # Failed ensures allowed before the dialect's consequence (`arena.lang.dialects`: per
    # player then a forfeit in xgl, 10; per line then no result in xent, 100 in
    # xent@2025-09); None: the dialect's own budget.
    ensure_budget: int | None = None
    instruction_budget: int = 10_000  # executed instructions per round
    resources: ResourceLimits = DEFAULT_LIMITS  # sizes of values, registers, judge traffic


class MatchHasNoResult(Exception):
    """The round ended the match with no result (its `no_result` event is emitted)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class RoundOutcome:
    scores: dict[str, float | None]
    forfeited_by: str | None
    infosets: dict[str, InfoSet]
    meter: RoundMeter = field(default_factory=RoundMeter)  # what the round used


@dataclass
class RoundState:
    registers: dict[str, Text | list[str]]
    infosets: dict[str, InfoSet]
    scores: dict[str, float]
    failures: dict[str | int, int] = field(default_factory=dict)  # by player, or by line
    flags: dict[str, int] = field(default_factory=lambda: dict.fromkeys(names.FLAGS, 0))
    replay_left: dict[int, int] = field(default_factory=dict)
    last_elicit: int | None = None  # pc of the most recent elicit executed
    last_attempt: int = 1  # attempt number of that elicit
    retry_pc: int | None = None  # elicit to re-run after a failed ensure
    pending_failure: str = ""  # the condition that failed, told to the player
    meter: RoundMeter = field(default_factory=RoundMeter)
    flow: Flow = field(default_factory=Flow)  # where each register's value came from


def instruction_player(instruction: ast.Instruction) -> str:
    """The player an instruction names, or the default player."""
    args = instruction.call.args
    if args and isinstance(args[0], ast.Name) and args[0].id in names.PLAYERS:
        return args[0].id
    return names.DEFAULT_PLAYER


def _player_args(instruction: ast.Instruction) -> tuple[ast.Expr, ...]:
    args = instruction.call.args
    if args and isinstance(args[0], ast.Name) and args[0].id in names.PLAYERS:
        return args[1:]
    return args


_REFERENCED: dict[int, tuple[ast.Program, frozenset[str]]] = {}


def referenced_registers(program: ast.Program) -> frozenset[str]:
    """Registers the program mentions (the only ones that can ever hold a value).

    Cached per program object: every round of every match asks again."""
    cached = _REFERENCED.get(id(program))
    if cached is not None and cached[0] is program:
        return cached[1]
    if len(_REFERENCED) > 1024:
        _REFERENCED.clear()
    result = _find_referenced(program)
    _REFERENCED[id(program)] = (program, result)
    return result


def _find_referenced(program: ast.Program) -> frozenset[str]:
    found: set[str] = set()

    def walk(expr: ast.Expr) -> None:
        if isinstance(expr, ast.Name) and expr.id in names.ALL_REGISTERS:
            found.add(expr.id)
        for child in ast.iter_children(expr):
            walk(child)

    for instruction in program.instructions:
        for kw in instruction.call.keywords:
            if kw.name in names.ALL_REGISTERS:
                found.add(kw.name)
        walk(instruction.call)
    return frozenset(found)


_EMPTY_STRINGS: dict[str, Text | list[str]] = {r: Text("") for r in names.STRING_REGISTERS}


def fresh_registers() -> dict[str, Text | list[str]]:
    """Every register empty, as at the start of a round."""
    registers = dict(_EMPTY_STRINGS)
    registers.update({r: [] for r in names.LIST_REGISTERS})
    return registers


class RoundRunner:
    """Plays one round; create a new runner per round."""

    def __init__(
        self,
        *,
        program: ast.Program,
        game: GameView,
        stories: Mapping[str, str],
        seats: Mapping[str, Seat],
        judge: Judge,
        round_number: int,
        rounds: int,
        play_seed: int,
        seed_key: bytes,
        memories: Mapping[str, tuple[RoundMemory, ...]],
        limits: RoundLimits,
        policy: MovePolicy,
        emit: Callable[[ev.Event], None],
        move_s: dict[str, float] | None = None,
        show_code: bool = True,
    ) -> None:
        # role -> seconds its player spent on moves (retries included), added to across the
        # match's rounds; kept out of the events so that transcripts stay reproducible
        self.move_s = {} if move_s is None else move_s
        self.program = program
        self.game = game
        self.stories = stories
        self.seats = seats
        self.judge = judge
        self.round = round_number
        self.rounds = rounds
        self.play_seed = play_seed
        self.seed_key = seed_key
        self.memories = memories
        self.limits = limits
        self.policy = policy
        self.show_code = show_code
        self.emit = emit
        # Every round of a match draws the same: repetitions keep the play seed (paper 4.1.3).
        self.rng = random.Random(game_seed(seed_key, play_seed))
        self.rules: DialectRules = rules_named(program.dialect_name)
        self.referenced = referenced_registers(program)
        self.public = sorted(names.PUBLIC_REGISTERS.intersection(self.referenced))

    async def run(self) -> RoundOutcome:
        registers = fresh_registers()
        state = RoundState(
            registers=registers,
            infosets={p: InfoSet(p) for p in names.PLAYERS},
            scores=dict.fromkeys(self.seats, 0.0),
            meter=RoundMeter(self.limits.resources),
            flow=Flow.public(registers),
        )
        self.emit(ev.RoundStarted(round=self.round, line=0))
        instructions = self.program.instructions
        pc, executed = 0, 0
        forfeited_by: str | None = None
        while pc < len(instructions):
            executed += 1
            instruction = instructions[pc]
            if executed > self.limits.instruction_budget:
                raise GameRuntimeError(
                    f"The round executed more than {self.limits.instruction_budget} "
                    "instructions; the game probably loops too much (raise the instruction "
                    "budget if that is intended).",
                    instruction.line,
                    instruction.source,
                )
            next_pc, forfeited_by = await self.execute_instruction(instruction, pc, state)
            if forfeited_by is not None:
                break
            pc = next_pc
        scores: dict[str, float | None] = {
            role: (None if role == forfeited_by else state.scores[role]) for role in self.seats
        }
        self.emit(
            ev.RoundFinished(round=self.round, line=0, scores=scores, forfeited_by=forfeited_by)
        )
        return RoundOutcome(
            scores=scores, forfeited_by=forfeited_by, infosets=state.infosets, meter=state.meter
        )

    def _evaluator(self, instruction: ast.Instruction, state: RoundState) -> Evaluator:
        env = EvalEnv(
            registers=state.registers,
            judge=self.judge,
            rules=self.rules,
            stories=self.stories,
            rng=self.rng,
            line=instruction.line,
            source=instruction.source,
            meter=state.meter,
            flow=state.flow,
        )
        return Evaluator(env)

    async def execute_instruction(
        self, instruction: ast.Instruction, pc: int, state: RoundState
    ) -> tuple[int, str | None]:
        """Run one instruction; returns the next pc and the forfeiting player, if any."""
        name = instruction.name
        if name == "assign":
            await self._assign(instruction, state)
        elif name == "elicit":
            forfeit = await self._elicit(instruction, pc, state)
            return pc + 1, forfeit
        elif name == "reveal":
            await self._reveal(instruction, state)
        elif name == "reward":
            await self._reward(instruction, state)
        elif name == "ensure":
            return await self._ensure(instruction, pc, state)
        elif name == "beacon":
            flag = _flag_name(instruction)
            state.flags[flag] = pc
        elif name == "replay":
            return self._replay(instruction, pc, state), None
        return pc + 1, None

    async def _assign(self, instruction: ast.Instruction, state: RoundState) -> None:
        evaluator = self._evaluator(instruction, state)
        keywords = instruction.call.keywords
        await evaluator.prefetch([kw.value for kw in keywords])
        new_values: dict[str, Text | list[str]] = {}
        origins: dict[str, Origin] = {}
        for kw in keywords:  # evaluate every right-hand side first: simultaneous assignment
            value = await evaluator.evaluate(kw.value)
            origins[kw.name] = evaluator.origin(kw.value)
            if isinstance(value, list) and names.register_kind(kw.name) == "list":
                new_values[kw.name] = list(value)
            elif isinstance(value, Text) and names.register_kind(kw.name) == "str":
                new_values[kw.name] = value
            else:
                raise evaluator.fail(f"Cannot store that value in register '{kw.name}'.")
        state.meter.store(new_values, instruction.line, instruction.source)
        state.registers.update(new_values)
        for register, origin in origins.items():
            state.flow.store(register, origin, instruction.line)
        self.emit(
            ev.Assign(
                round=self.round,
                line=instruction.line,
                values={
                    r: (list(v) if isinstance(v, list) else v.text) for r, v in new_values.items()
                },
            )
        )

    async def _elicit(self, instruction: ast.Instruction, pc: int, state: RoundState) -> str | None:
        player = instruction_player(instruction)
        args = _player_args(instruction)
        registers = tuple(a.id for a in args[:-1] if isinstance(a, ast.Name))
        max_len_expr = args[-1]
        max_len = max_len_expr.value if isinstance(max_len_expr, ast.Int) else 0
        seat = self.seats.get(player)
        if seat is None:
            raise GameRuntimeError(
                f"No participant sits in role '{player}'.", instruction.line, instruction.source
            )
        infoset = state.infosets[player]
        visible = infoset.visible(state.registers, self.referenced)
        for register in visible:
            infoset.see(state.flow.register(register))
        shown = sum(map(len, visible.values()))
        state.meter.produce(shown, instruction.line, instruction.source)
        retrying = state.retry_pc == pc
        attempt = state.last_attempt + 1 if retrying else 1
        failed_condition = state.pending_failure if retrying else ""
        state.retry_pc = None
        # An NPC starts every round without memory, the round number included: asked the
        # same thing in two rounds, it receives the same request and the same seed.
        memoryless = not seat.main
        request = MoveRequest(
            game=self.game,
            role=player,
            round=1 if memoryless else self.round,
            rounds=1 if memoryless else self.rounds,
            line=instruction.line,
            registers=registers,
            max_len=max_len,
            visible=visible,
            reveals=tuple(infoset.reveals),
            history=tuple(infoset.history),
            previous_rounds=() if memoryless else self.memories.get(player, ()),
            attempt=attempt,
            failed_condition=failed_condition,
            omniscient=infoset.omniscient,
        )
        hidden = None if self.show_code else without_code(request)
        if hidden is not None:  # before the seed: one information set, one seed
            request = hidden.request
        request = replace(request, seed=move_seed(self.seed_key, self.play_seed, request))
        self.emit(
            ev.ElicitRequest(
                round=self.round,
                line=instruction.line,
                player=player,
                registers=dict(visible),
                targets=list(registers),
                max_len=max_len,
                attempt=attempt,
            )
        )
        usage_before = usage_snapshot(seat.player)
        asked = time.perf_counter()
        try:
            moves = await ask_for_move(seat, request, self.policy)
            if hidden is not None:
                moves = hidden.moves(moves)
        except NoResultError as failure:
            self._no_result(instruction.line, player, f"no move could be had: {failure}")
        except MoveFailed as failure:
            self._timed(player, asked)
            self.emit(
                ev.Forfeit(
                    round=self.round,
                    line=instruction.line,
                    player=player,
                    reason=f"no valid move after {1 + self.policy.retries} attempts: "
                    f"{failure.reason}",
                )
            )
            return player
        self._timed(player, asked)
        stored, cut = await self._cut_moves(moves, registers, max_len, instruction, state)
        state.meter.store(
            {r: Text(t) for r, t in stored.items()}, instruction.line, instruction.source
        )
        origins: list[Origin] = []
        for register, text in stored.items():
            state.registers[register] = Text(text)
            # A move is a value no other seat can compute: hidden from them until revealed.
            origin = state.flow.atomic(f"move {player} {register}@{instruction.line}")
            state.flow.registers[register] = origin
            origins.append(origin)
        infoset.add_move(instruction.line, stored, cut, origins)
        state.last_elicit = pc
        state.last_attempt = attempt
        self.emit(
            ev.ElicitResponse(
                round=self.round,
                line=instruction.line,
                player=player,
                values=stored,
                cut=bool(cut),
                cut_registers=list(cut),
                usage=usage_delta(usage_before, usage_snapshot(seat.player)),
            )
        )
        return None

    def _timed(self, player: str, asked: float) -> None:
        self.move_s[player] = self.move_s.get(player, 0.0) + time.perf_counter() - asked

    async def _cut_moves(
        self,
        moves: Mapping[str, str],
        registers: tuple[str, ...],
        max_len: int,
        instruction: ast.Instruction,
        state: RoundState,
    ) -> tuple[dict[str, str], tuple[str, ...]]:
        """Cut each move to at most max_len judge tokens, counted as the judge tokenises a
        target of the game's dialect (xgl: with the space its convention puts in front;
        xent: as written, as the reference counts `tokenizer(move)`); a cut move keeps the
        text of its first max_len tokens.

        A move longer than a value may be is first cut to max_value_chars characters, so a
        player cannot make the judge tokenise (or the registers hold) megabytes."""
        longest = self.limits.resources.max_value_chars
        texts = [moves[r][:longest] for r in registers]
        chars = sum(map(len, texts))
        state.meter.produce(chars, instruction.line, instruction.source)
        state.meter.judge(chars, instruction.line, instruction.source)
        pieces = await self.judge.tokenize(texts, self.program.dialect)
        stored: dict[str, str] = {}
        cut: list[str] = []
        for register, text, tokens in zip(registers, texts, pieces, strict=True):
            if len(tokens) > max_len or len(text) < len(moves[register]):
                stored[register] = "".join(tokens[:max_len])
                cut.append(register)
            else:
                stored[register] = text
        return stored, tuple(cut)

    async def _reveal(self, instruction: ast.Instruction, state: RoundState) -> None:
        player = instruction_player(instruction)
        evaluator = self._evaluator(instruction, state)
        values: dict[str, str] = {}
        for expr in _player_args(instruction):
            value = await evaluator.evaluate(expr)
            if isinstance(value, Text):
                text = value.text
            elif isinstance(value, list):
                text = render_register(value)
            else:
                raise evaluator.fail("reveal shows strings or lists only.")
            label = source_of(expr.span, instruction.source)
            state.meter.produce(len(text), instruction.line, instruction.source)
            values[label] = text
            origin = evaluator.origin(expr)
            state.infosets[player].add_reveal(label, text, instruction.line, origin)
        self.emit(ev.Reveal(round=self.round, line=instruction.line, player=player, values=values))

    async def _reward(self, instruction: ast.Instruction, state: RoundState) -> None:
        player = instruction_player(instruction)
        evaluator = self._evaluator(instruction, state)
        (amount_expr,) = _player_args(instruction)
        await evaluator.prefetch([amount_expr])
        amount = await evaluator.evaluate(amount_expr)
        if not isinstance(amount, XentSum):
            raise evaluator.fail("A reward must be a signed xent sum.")
        self._give(player, amount, instruction.line, state, mirrored=False)
        partner = names.ZERO_SUM_PARTNER.get(player)
        if partner is not None:
            self._give(partner, -amount, instruction.line, state, mirrored=True)

    def _give(
        self, player: str, amount: XentSum, line: int, state: RoundState, *, mirrored: bool
    ) -> None:
        # env is never rewarded; players without a seat are not playing: both dropped.
        if player == "env" or player not in self.seats:
            return
        state.scores[player] += amount.total
        public = [state.flow.register(r) for r in self.public]
        state.infosets[player].add_reward(line, amount, state.flow, public)
        received = state.infosets[player].history[-1].terms
        self.emit(
            ev.Reward(
                round=self.round,
                line=line,
                player=player,
                total=amount.total,
                mirrored=mirrored,
                terms=[
                    ev.RewardTerm(
                        source=t.source,
                        kind=t.kind,
                        coefficient=t.coefficient,
                        target=t.target,
                        context=t.context,
                        tokens=list(t.tokens),
                        bits=list(t.bits),
                        total=t.total,
                    )
                    for t in amount.terms
                ],
                seat_view=[
                    ev.SeatRewardTerm(
                        source=v.source,
                        coefficient=v.coefficient,
                        tokens=list(v.tokens),
                        bits=list(v.bits),
                        total=v.total,
                        hidden=v.hidden,
                    )
                    for v in received
                ],
            )
        )

    async def _ensure(
        self, instruction: ast.Instruction, pc: int, state: RoundState
    ) -> tuple[int, str | None]:
        evaluator = self._evaluator(instruction, state)
        conditions = instruction.call.args
        await evaluator.prefetch(list(conditions))
        failed: ast.Expr | None = None
        for condition in conditions:
            if not await evaluator.condition(condition):
                failed = condition
                break
        rule = self.rules.ensures
        if failed is None:
            if rule.per == "line":  # a line's count starts again each time it holds
                state.failures.pop(instruction.line, None)
            return pc + 1, None
        if state.last_elicit is None:
            raise GameRuntimeError(
                "ensure failed before any elicit ran.", instruction.line, instruction.source
            )
        target = self.program.instructions[state.last_elicit]
        player = instruction_player(target)
        condition_text = source_of(failed.span, instruction.source)
        key: str | int = player if rule.per == "player" else instruction.line
        state.failures[key] = state.failures.get(key, 0) + 1
        budget = self.limits.ensure_budget
        budget = rule.budget if budget is None else budget
        state.infosets[player].add_failed_ensure(instruction.line, condition_text)
        self.emit(
            ev.FailedEnsure(
                round=self.round,
                line=instruction.line,
                player=player,
                condition=condition_text,
                failures=state.failures[key],
                budget=budget,
            )
        )
        if state.failures[key] > budget:
            where = "this round" if rule.per == "player" else "in a row on this line"
            reason = f"more than {budget} failed ensures {where} (last: {condition_text})"
            if rule.exceeded == "no_result":
                self._no_result(instruction.line, player, reason)
            self.emit(
                ev.Forfeit(round=self.round, line=instruction.line, player=player, reason=reason)
            )
            return pc + 1, player
        state.pending_failure = condition_text
        state.retry_pc = state.last_elicit
        return state.last_elicit, None

    def _no_result(self, line: int, player: str, reason: str) -> NoReturn:
        """End the match with no result: the event, then `MatchHasNoResult`."""
        reason = reason.encode("utf-8", "backslashreplace").decode("utf-8")  # it is stored
        self.emit(ev.NoResult(round=self.round, line=line, player=player, reason=reason))
        raise MatchHasNoResult(reason)

    def _replay(self, instruction: ast.Instruction, pc: int, state: RoundState) -> int:
        flag = _flag_name(instruction)
        count_expr = instruction.call.args[1]
        count = count_expr.value if isinstance(count_expr, ast.Int) else 0
        left = state.replay_left.get(pc, count)
        if left > 0:
            state.replay_left[pc] = left - 1
            return state.flags[flag]
        # Exhausted: reset so that an enclosing loop runs this one fully again.
        state.replay_left.pop(pc, None)
        return pc + 1


def _flag_name(instruction: ast.Instruction) -> str:
    first = instruction.call.args[0]
    assert isinstance(first, ast.Name)
    return first.id
