"""Asking a seated player for a move: timeout, bounded retries, validation."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from arena.errors import NoResultError, PermanentPlayerError
from arena.protocols.player import MoveRequest, Player


@dataclass(frozen=True)
class Seat:
    """A participant's player in one role. `main` players keep earlier rounds in context;
    NPCs (main=False) start every round without memory (paper 4.1.3): the runtime gives
    them no earlier rounds and, where `rebuild` is set, a newly built player every round
    (the arena sets it for every player built from a spec), so a plugin's own state cannot
    carry over either. The players it builds are closed at the end of the match; `player`
    stays the caller's to close."""

    role: str
    player: Player
    main: bool = True
    participant: str = ""
    rebuild: Callable[[], Player] | None = None


@dataclass(frozen=True)
class MovePolicy:
    timeout_s: float | None = 300.0
    retries: int = 2  # extra attempts after the first failure


class MoveFailed(Exception):
    """The player raised, timed out or returned something invalid on every attempt."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def validate_moves(reply: object, registers: tuple[str, ...]) -> dict[str, str]:
    """Accept a mapping register -> str (or a bare str for a single register)."""
    if isinstance(reply, str) and len(registers) == 1:
        return {registers[0]: reply}
    if not isinstance(reply, Mapping):
        raise TypeError(f"expected a mapping of register -> string, got {type(reply).__name__}")
    moves: dict[str, str] = {}
    for register in registers:
        if register not in reply:
            raise TypeError(f"no move for register '{register}' (got {sorted(reply)})")
        value = reply[register]
        if not isinstance(value, str):
            raise TypeError(f"move for '{register}' is a {type(value).__name__}, not a string")
        bad = next((i for i, c in enumerate(value) if "\ud800" <= c <= "\udfff"), None)
        if bad is not None:  # not text: it could be neither judged, stored nor shown
            raise ValueError(
                f"move for '{register}' is not valid text: character {bad} is a lone "
                f"surrogate (U+{ord(value[bad]):04X}); send UTF-8 text"
            )
        moves[register] = value
    return moves


def usage_snapshot(player: Player) -> dict[str, float] | None:
    """A player's cumulative usage, if it reports one (an optional `usage` attribute with
    `as_dict()`, e.g. tokens and cost of an LLM player)."""
    as_dict = getattr(getattr(player, "usage", None), "as_dict", None)
    if not callable(as_dict):
        return None
    data = as_dict()
    if not isinstance(data, Mapping):
        return None
    return {k: float(v) for k, v in data.items() if isinstance(v, int | float)}


def usage_delta(
    before: dict[str, float] | None, after: dict[str, float] | None
) -> dict[str, float] | None:
    """What was spent between two snapshots (retried attempts included)."""
    if after is None:
        return None
    base = before or {}
    return {k: v - base.get(k, 0.0) for k, v in after.items()}


async def ask_for_move(seat: Seat, request: MoveRequest, policy: MovePolicy) -> dict[str, str]:
    """The player's validated moves, or MoveFailed after 1 + retries bad attempts (after
    the first, when the player says retrying is pointless: `PermanentPlayerError`). A
    player's `NoResultError` is raised as it is, at once: the match then has no result."""
    problems: list[str] = []
    for _ in range(1 + policy.retries):
        try:
            # asyncio.timeout, unlike wait_for, runs the move in this task: no task per move.
            async with asyncio.timeout(policy.timeout_s):
                reply = await seat.player.move(request)
            return validate_moves(reply, request.registers)
        except TimeoutError:
            problems.append(f"timed out after {policy.timeout_s} s")
        except (asyncio.CancelledError, NoResultError):
            raise
        except PermanentPlayerError as error:  # asking again would fail the same way
            problems.append(f"{type(error).__name__}: {error}")
            break
        except Exception as error:  # a player's bug must not crash the match
            problems.append(f"{type(error).__name__}: {error}")
    # A player's error message may hold a lone surrogate too; the reason is stored.
    raise MoveFailed("; ".join(problems).encode("utf-8", "backslashreplace").decode("utf-8"))


async def close_player(player: object) -> None:
    """Call a player's optional `aclose()`; a player failing to clean up changes nothing."""
    close = getattr(player, "aclose", None)
    if callable(close):
        with contextlib.suppress(Exception):
            await close()
