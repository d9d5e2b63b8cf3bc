"""`human` — a person plays from the terminal.

Each request is shown on standard error (so `arena play --json` keeps standard output
clean): the game code with the current line marked, the registers the player may see,
what was revealed, its own history this round, and why it is asked again after a failed
ensure. Then one line is read from standard input per requested register.

Input is read in a worker thread (`asyncio.to_thread(input)`) so the event loop keeps
serving the other seats. If the runtime's move timeout expires while a line is being read,
that read stays pending and the next request takes its line, so no typed line is lost or
read twice. End of input (Ctrl-D, a closed pipe) raises `PlayerError`; the runtime retries
and then forfeits the seat.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from arena.errors import ConfigError, PlayerError
from arena.plugins.plugin_types import PlayerContext
from arena.protocols.player import HistoryItem, MoveRequest
from arena.specs import Spec

PARAMS = ("code",)


def _history_line(item: HistoryItem) -> str:
    if item.kind == "move":
        moves = ", ".join(f"{r} = {v!r}" for r, v in item.moves.items())
        cut = f" (cut: {', '.join(item.cut)})" if item.cut else ""
        return f"line {item.line}: you played {moves}{cut}"
    if item.kind == "reward":
        terms = "; ".join(f"{t.source}: {t.total:+.2f}" for t in item.terms)
        detail = f" ({terms})" if terms else ""
        return f"line {item.line}: reward {item.reward:+.3f} bits{detail}"
    if item.kind == "failed_ensure":
        return f"line {item.line}: your move failed ensure {item.condition}"
    if item.reveal is not None:
        return f"line {item.line}: revealed {item.reveal.label}"
    return f"line {item.line}: {item.kind}"


def render_request(request: MoveRequest, *, show_code: bool = True) -> RenderableType:
    """A readable view of one request: code, visible values, reveals, history."""
    parts: list[RenderableType] = []
    title = (
        f"{request.game.name or 'game'} - you are {request.role} - round "
        f"{request.round}/{request.rounds} - line {request.line}"
    )
    if show_code:
        code = Text()
        for number, line in enumerate(request.game.code.splitlines(), start=1):
            mark = ">" if number == request.line else " "
            style = "bold yellow" if number == request.line else ""
            code.append(f"{mark}{number:3d} {line}\n", style=style)
        parts.append(Panel(code, title="game code", title_align="left"))
    if request.visible:
        table = Table("register", "value", title="what you see", title_justify="left")
        for register, value in request.visible.items():
            table.add_row(register, value or "(empty)")
        parts.append(table)
    if request.reveals:
        table = Table("revealed", "value", "line", title="revealed to you", title_justify="left")
        for revealed in request.reveals:
            table.add_row(revealed.label, revealed.value, str(revealed.line))
        parts.append(table)
    if request.history:
        parts.append(Text("this round:\n" + "\n".join(map(_history_line, request.history))))
    for memory in request.previous_rounds:
        score = "forfeited" if memory.score is None else f"{memory.score:+.3f} bits"
        parts.append(Text(f"round {memory.round}: {score}"))
    if request.failed_condition:
        parts.append(
            Text(
                f"Attempt {request.attempt}: your last move failed `{request.failed_condition}`.",
                style="bold red",
            )
        )
    return Panel(Group(*parts), title=title, title_align="left")


class HumanPlayer:
    """Shows each request on a console and reads one line per register."""

    def __init__(
        self,
        *,
        console: Console | None = None,
        read_line: Callable[[], str] = input,
        show_code: bool = True,
        name: str = "human",
    ) -> None:
        self._console = console or Console(stderr=True)
        self._read_line = read_line
        self._show_code = show_code
        self._name = name
        self._pending: asyncio.Future[str] | None = None

    @property
    def name(self) -> str:
        return self._name

    async def _line(self) -> str:
        if self._pending is None:
            self._pending = asyncio.ensure_future(asyncio.to_thread(self._read_line))
        # Shielded: a timeout cancels this wait, not the read, which the next call reuses.
        try:
            return await asyncio.shield(self._pending)
        except EOFError:
            raise PlayerError(
                f"Player '{self._name}' reached the end of standard input; no move to read."
            ) from None
        finally:
            if self._pending.done():
                self._pending = None

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        self._console.print(render_request(request, show_code=self._show_code))
        moves: dict[str, str] = {}
        for register in request.registers:
            self._console.print(
                f"[bold]Your move for register {register}[/bold] "
                f"(at most {request.max_len} tokens, Enter to submit):",
                highlight=False,
            )
            moves[register] = await self._line()
        return moves


def create_human_player(spec: Spec, ctx: PlayerContext) -> HumanPlayer:
    """Factory for `human[?code=0]` (`code=0` hides the game code panel)."""
    spec.expect_params(PARAMS, "player")
    if spec.arg:
        raise ConfigError(
            f"Player spec '{spec.raw}': 'human' takes no ':' argument. Write 'human'."
        )
    return HumanPlayer(show_code=spec.bool_param("code", True), name=spec.raw)
