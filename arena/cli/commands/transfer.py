"""`arena transfer G1 [G2 ...]`: fine-tune a player model on each game, print S_G before and
after with Def. 35's verdict, and the transfer matrix V_Gi(Gj) of Def. 37 with intervals over
runs and maps, and say what was measured, what holds by construction and what it cost;
everything is stored in the database under the setting's sha256 (a
second run of the same setting reads it back instead of fine-tuning again).

The measurement itself is `arena.gamespace.transfer.measure`; this module only parses and prints.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from arena.cli.context import registry_of
from arena.interrupts import run_stoppable

if TYPE_CHECKING:  # the measurement imports SciPy and SQLAlchemy: loaded by the command
    from arena.gamespace.transfer.measure import TransferMatrix, TransferSetting
    from arena.match_setup import LoadedGame
    from arena.plugins.registry import Registry
    from arena.storage import Store
    from arena.storage.transfers import TransferRecord

# arena.gamespace.transfer.arithmetic.LEVEL, transfer.DEFAULT_BUDGET_TOKENS, DEFAULT_RUNS and
# DEFAULT_MAPS (a test checks they agree)
LEVEL = 0.95
View = Literal["infoset", "code"]  # arena.gamespace.transfer.measure.View (a test checks)
BY_CONSTRUCTION = "="  # marks a V that holds by construction (one evaluation form)

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


async def measure(
    setting: TransferSetting, games: Sequence[LoadedGame], store: Store, registry: Registry,
    models_dir: Path | None,
) -> TransferMatrix:
    """Run (or read back) the whole matrix of `games` under `setting`; what is being tuned
    or played goes to stderr (stdout keeps the tables or the JSON)."""

    from arena.gamespace.transfer.measure import open_oracle

    def progress(message: str) -> None:
        typer.echo(message, err=True)

    async with open_oracle(
        setting, store=store, registry=registry, models_dir=models_dir,
        progress=progress,
    ) as oracle:
        return await oracle.matrix(games)


def _interval(low: float | None, high: float | None) -> str:
    return "" if low is None or high is None else f"[{low:.3g}, {high:.3g}]"


def _cell(record: TransferRecord, by_construction: bool) -> Text:
    if record.value is None:
        return Text("undefined", style="dim")
    mark = f" {BY_CONSTRUCTION}" if by_construction else ""
    return Text(f"{record.value:.3g} {_interval(record.low, record.high)}{mark}")


def render_verdicts(matrix: TransferMatrix) -> Table:
    """S_G before and after fine-tuning on G, the gain's interval and Def. 35's verdict."""
    level = round(100 * matrix.setting.level)
    table = Table(title=f"Fine-tuning playability (Def. 35), {matrix.setting.runs} runs x "
                  f"{matrix.setting.maps} maps, intervals over runs and maps")
    runs = matrix.setting.runs
    for column in ("game", "S_G(M)", "S_G(F_G[M])", "gain", f"{level}% interval", "playable",
                   "runs agreeing", "tokens"):
        table.add_column(column, overflow="fold")
    agreeing = matrix.agreeing or (None,) * len(matrix.verdicts)
    for v, n in zip(matrix.verdicts, agreeing, strict=True):
        table.add_row(
            Text(v.game), f"{v.score_before:.3f}", f"{v.score_after:.3f}",
            f"{v.score_after - v.score_before:+.3f}", _interval(v.gain_low, v.gain_high),
            "yes" if v.playable else "no", "?" if n is None else f"{n} of {runs}", str(v.tokens),
        )
    return table


def render_matrix(matrix: TransferMatrix) -> Table:
    """V_row(column): rows are the games fine-tuned on, columns the games evaluated."""
    table = Table(title=Text("Transfer value V_row(column) (Def. 37): value [interval]"))
    names = [v.game for v in matrix.verdicts]
    table.add_column("fine-tuned on \\ evaluated at", overflow="fold")
    for name in names:
        table.add_column(Text(name), overflow="fold")
    for source in names:
        table.add_row(Text(source), *(
            _cell(matrix.value(source, t), matrix.by_construction(source, t)) for t in names
        ))
    return table


def explanation(matrix: TransferMatrix, minutes: float) -> list[str]:
    """What was measured, what holds by construction, and what this call cost."""
    setting = matrix.setting
    level = f"{100 * setting.level:g} %"
    sight = (
        "the players saw the code, as in a tournament"
        if setting.show_code
        else "the players saw their information set, not the code (--view code shows it)"
    )
    lines = [
        f"Measured: each game fine-tuned {setting.runs} times (seeds of its own) and scored "
        f"on the same {setting.maps} evaluation maps; {sight}; {level} intervals: Student's "
        "t over the runs x maps table for the gains, Fieller's for V.",
    ]
    pairs = [v for v in matrix.values if v.source != v.target]
    if any(matrix.by_construction(v.source, v.target) for v in pairs):
        lines.append(
            f"{BY_CONSTRUCTION}: the two texts have one canonical form (register names, "
            "comments or a no-op line apart): they share their runs, so V = 1 [1, 1] holds "
            "by construction; it was not measured."
        )
    if any(not matrix.by_construction(v.source, v.target) for v in pairs):
        lines.append(
            "Other pairs were measured apart, by runs of their own"
            + (
                ". The players read the code, so two spellings of one game that the canonical "
                "form does not recognise can score differently for the untuned model, and "
                "their V need not be 1 (docs/gamespace-calibration.md)."
                if setting.show_code
                else ". The players saw no code, so two spellings of one game that the "
                "canonical form does not recognise look alike to every model: tuned apart, "
                "they get V = 1 [1, 1] from their own scores (docs/gamespace-calibration.md)."
            )
        )
    if any(v.value is None for v in matrix.values):
        lines.append(
            "undefined: the row's or the column's game is not playable (its fine-tuning gain "
            "interval is not above 0; Def. 37 is stated for two playable games), or the "
            "row's gain is too uncertain to divide by (more runs or maps would tell)."
        )
    lines.append(
        f"Cost: {matrix.runs_tuned} fine-tuning run(s) tuned in this call, "
        f"{minutes:.1f} min on this machine (runs already stored are read back)."
    )
    return lines


@app.command("transfer")
def transfer_command(
    ctx: typer.Context,
    games: Annotated[
        list[str], typer.Argument(help="Games (names or .xgl/.xent files), each fine-tuned on.")
    ],
    player: Annotated[
        str, typer.Option(help="The model M to fine-tune, e.g. hf:bundled or hf:/path/to/model.")
    ],
    finetuner: Annotated[
        str, typer.Option(help="Fine-tuner spec, e.g. reinforce or reinforce?lr=1e-4&batch=4.")
    ] = "reinforce",
    budget_tokens: Annotated[
        int, typer.Option("--budget-tokens", min=1, help="T: tokens each fine-tuning may process "
                            "(fewer than 8 optimiser steps is warned about).")
    ] = 360_000,
    budget_steps: Annotated[
        int | None, typer.Option("--budget-steps", min=1, help="Also stop each fine-tuning "
                                 "after this many optimiser steps.")
    ] = None,
    maps: Annotated[
        int, typer.Option(min=2, max=10_000, help="K: evaluation maps per game (intervals are "
                          "over maps).")
    ] = 16,
    runs: Annotated[
        int, typer.Option(min=1, max=1000, help="R: fine-tuning runs per game (seeds differ; "
                          "runs already stored are reused).")
    ] = 4,
    view: Annotated[
        View, typer.Option(help="What the players see: infoset (their information set, not "
                           "the code: numbers depend on the game, not its spelling) or code.")
    ] = "infoset",
    seed: Annotated[int, typer.Option(help="Maps and fine-tuning seed.")] = 0,
    judge: Annotated[str, typer.Option(help="Judge spec, e.g. bundled or ngram.")] = "bundled",
    opponent: Annotated[
        str | None, typer.Option(help="Player of the games' other roles (default: --player).")
    ] = None,
    level: Annotated[
        float, typer.Option(min=0.5, max=0.999, help="Confidence level of the intervals.")
    ] = LEVEL,
    models_dir: Annotated[
        Path | None, typer.Option(help="Where tuned models are kept (default: the user data "
                                  "dir's finetuned/).")
    ] = None,
    db: Annotated[
        str | None,
        typer.Option("--db", help="SQLAlchemy URL (default: $XENT_ARENA_DB or the user data dir)."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the results as JSON (per-map scores included).")
    ] = False,
) -> None:
    """Fine-tune a model on each game; print playability verdicts and transfer values."""
    from arena.gamespace.transfer.measure import TransferSetting
    from arena.match_setup import load_game_ref
    from arena.storage import Store

    registry = registry_of(ctx)
    setting = TransferSetting(
        player=player, finetuner=finetuner, budget_tokens=budget_tokens,
        budget_steps=budget_steps, maps=maps, runs=runs, seed=seed, judge=judge,
        opponent=opponent, level=level, view=view,
    )
    setting.check()
    loaded = [load_game_ref(g, registry) for g in games]
    store = Store.open(db)
    try:
        store.require_writable("this command stores transfer values")
        started = time.perf_counter()
        matrix = run_stoppable(measure(setting, loaded, store, registry, models_dir))
        minutes = (time.perf_counter() - started) / 60
        where = store.describe()
    finally:
        store.close()
    if as_json:
        typer.echo(json.dumps(matrix.to_dict(), indent=2, ensure_ascii=False))
        return
    console = Console(width=160)
    console.print(render_verdicts(matrix))
    console.print(render_matrix(matrix))
    for line in explanation(matrix, minutes):
        typer.echo(line)
    typer.echo(f"stored under setting {setting.sha256[:12]} in {where}")
