"""What-if evaluation of a candidate move from a player's own information set.

Search-based players use this to score candidates with the judge: the program is resumed
right after the elicit being answered, with the registers the player can see (public or
omniscient values, plus registers revealed to it by name) and the candidate moves stored.
Execution runs until the next elicit, the end of the program or a failed ensure; the
rewards this player would receive on the way are summed. Registers the player cannot see
are empty, so for imperfect-information games this is an estimate from the player's
viewpoint, never a peek at hidden values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from arena.errors import GameRuntimeError
from arena.lang import ast, names
from arena.lang.meter import RoundMeter
from arena.lang.values import Text
from arena.protocols.judge import Judge
from arena.protocols.player import MoveRequest
from arena.runtime.infoset import InfoSet
from arena.runtime.round import RoundLimits, RoundRunner, RoundState, fresh_registers
from arena.runtime.seat import MovePolicy, Seat
from arena.runtime.seeds import public_seed_key


@dataclass(frozen=True)
class Simulation:
    """The estimated reward of a candidate, and whether it passed the ensures it met."""

    reward: float
    feasible: bool
    failed_condition: str = ""


class _NoPlayer:
    """Stands in a seat during simulation; never asked for a move."""

    name = "simulated"

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        raise RuntimeError("simulation never elicits")


def known_registers(request: MoveRequest) -> dict[str, Text | list[str]]:
    """Registers as the requesting player knows them (unknown ones empty)."""
    registers = fresh_registers()
    for register, value in request.visible.items():
        if names.register_kind(register) == "str":
            registers[register] = Text(value)
    for revealed in request.reveals:
        if names.register_kind(revealed.label) == "str":
            registers[revealed.label] = Text(revealed.value)
    for item in request.history:
        for register, move in item.moves.items():
            registers[register] = Text(move)
    return registers


async def simulate_move(
    program: ast.Program,
    request: MoveRequest,
    moves: Mapping[str, str],
    judge: Judge,
    *,
    instruction_budget: int = 2_000,
) -> Simulation:
    """Estimate the reward `request.role` gets for `moves` at the elicit on `request.line`."""
    elicit_pc = next(
        (i for i, ins in enumerate(program.instructions) if ins.line == request.line), None
    )
    if elicit_pc is None:
        raise GameRuntimeError(f"No instruction on line {request.line} to simulate from.")
    role = request.role
    runner = RoundRunner(
        program=program,
        game=request.game,
        stories={},
        seats={role: Seat(role=role, player=_NoPlayer())},
        judge=judge,
        round_number=request.round,
        rounds=request.rounds,
        play_seed=request.seed,
        seed_key=public_seed_key(request.seed),  # the player's own randomness: no secret
        memories={},
        limits=RoundLimits(instruction_budget=instruction_budget),
        policy=MovePolicy(),
        emit=lambda event: None,
    )
    registers = known_registers(request)
    for register, move in moves.items():
        registers[register] = Text(move)
    state = RoundState(
        registers=registers,
        infosets={p: InfoSet(p) for p in names.PLAYERS},
        scores={role: 0.0},
        last_elicit=elicit_pc,
        meter=RoundMeter(registers=registers),
    )
    pc, executed = elicit_pc + 1, 0
    while pc < len(program.instructions) and executed < instruction_budget:
        instruction = program.instructions[pc]
        if instruction.name == "elicit":
            break
        executed += 1
        try:
            next_pc, _ = await runner.execute_instruction(instruction, pc, state)
        except GameRuntimeError:
            return Simulation(reward=float("-inf"), feasible=False, failed_condition="error")
        if instruction.name == "ensure" and next_pc <= elicit_pc:
            return Simulation(
                reward=float("-inf"), feasible=False, failed_condition=state.pending_failure
            )
        pc = next_pc
    return Simulation(reward=state.scores[role], feasible=True)
