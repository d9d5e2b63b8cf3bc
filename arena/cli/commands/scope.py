"""`arena scope grow | show | list`: grow a scope of games with Algorithm 1 and look at the
archive. The algorithm is `arena.gamespace.scope.growth`, its set-up `arena.gamespace.scope.run`;
this module parses and prints.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from arena.cli.commands.transfer import View
from arena.cli.context import registry_of
from arena.interrupts import run_stoppable

if TYPE_CHECKING:  # growth and storage import SciPy and SQLAlchemy: loaded per command
    from arena.gamespace.scope.report import ScopeReport
    from arena.storage.scopes import ScopeGameRecord, ScopeRecord

FINETUNE = "finetune"  # arena.gamespace.scope.run.FINETUNE (a test checks they agree)

app = typer.Typer(
    name="scope", help="Grow scopes of games (Algorithm 1) and show their archives.",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
)

DbOption = Annotated[
    str | None,
    typer.Option("--db", help="SQLAlchemy URL (default: $XENT_ARENA_DB or the user data dir)."),
]


def _echo(message: str) -> None:
    typer.echo(message, err=True)


@app.command("grow")
def grow_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Option("--name", help="The scope's name (rerun to continue).")],
    games: Annotated[
        list[str], typer.Option("--from", help="An initial game (name or file); repeat it.")
    ],
    sampler: Annotated[str, typer.Option(help="Meta-sampler spec Λ, e.g. mutate.")] = "mutate",
    alpha1: Annotated[
        float, typer.Option("--alpha1", help="G_* must satisfy V_G*(G) >= alpha1.")
    ] = 0.2,
    alpha2: Annotated[
        float, typer.Option("--alpha2", help="G_* is added when gamma <= 1 - alpha2.")
    ] = 0.2,
    rounds: Annotated[int, typer.Option(min=1, max=1000, help="N: rounds at most.")] = 3,
    budget: Annotated[
        int, typer.Option(min=1, max=100_000, help="Candidates each repeat loop may draw "
                          "from the sampler.")
    ] = 16,
    batch: Annotated[int, typer.Option(min=1, max=1000, help="Candidates per draw.")] = 4,
    seed: Annotated[int, typer.Option(help="Order, sampler and check seed.")] = 0,
    judge: Annotated[str, typer.Option(help="Judge spec of the checks and the oracle.")] = (
        "bundled"
    ),
    base: Annotated[
        str | None, typer.Option(help="Base participant of the playability check (default: "
                                 "search for trend, random for arms).")
    ] = None,
    fewshot: Annotated[
        str, typer.Option(help="Few-shot playability rule: trend (a non-learner passes "
                          "<= 1 %) or arms (Def. 33's curve, cheaper, passes noise).")
    ] = "trend",
    oracle: Annotated[
        str, typer.Option(help="'finetune' (fine-tune and play) or 'table:FILE.json' (a "
                          "known transfer matrix).")
    ] = FINETUNE,
    player: Annotated[
        str | None, typer.Option(help="finetune oracle: the model M, e.g. hf:bundled.")
    ] = None,
    finetuner: Annotated[str, typer.Option(help="finetune oracle: fine-tuner spec.")] = (
        "reinforce"
    ),
    budget_tokens: Annotated[
        int, typer.Option("--budget-tokens", min=1, help="finetune oracle: tokens per "
                          "fine-tuning.")
    ] = 360_000,
    maps: Annotated[
        int, typer.Option(min=2, max=10_000, help="finetune oracle: evaluation maps.")
    ] = 16,
    runs: Annotated[
        int, typer.Option(min=1, max=1000, help="finetune oracle: fine-tuning runs per game.")
    ] = 4,
    opponent: Annotated[
        str | None, typer.Option(help="finetune oracle: the other roles' player.")
    ] = None,
    view: Annotated[
        View, typer.Option(help="finetune oracle: what the players see, infoset (not the "
                           "code) or code.")
    ] = "infoset",
    models_dir: Annotated[
        Path | None, typer.Option(help="finetune oracle: where tuned models are kept.")
    ] = None,
    db: DbOption = None,
) -> None:
    """Grow scope NAME from the --from games with Algorithm 1; rerun to continue it."""
    from arena.gamespace.scope.growth import GrowthParams
    from arena.gamespace.scope.run import GrowRequest, check_name, check_oracle, check_params, grow
    from arena.match_setup import load_game_ref
    from arena.storage import Store

    registry = registry_of(ctx)
    params = GrowthParams(alpha1, alpha2, rounds, budget, batch, seed)
    check_name(name)
    check_params(params)
    setting = None
    if oracle == FINETUNE and player is not None:
        from arena.gamespace.transfer.measure import TransferSetting

        setting = TransferSetting(
            player=player, finetuner=finetuner, budget_tokens=budget_tokens, maps=maps,
            runs=runs, seed=seed, judge=judge, opponent=opponent, view=view,
        )
        setting.check()
    check_oracle(oracle, setting)
    registry.create_sampler(sampler)  # a bad spec fails before any judge loads
    registry.check_spec("judge", judge)
    loaded = tuple(load_game_ref(g, registry) for g in games)
    request = GrowRequest(name, loaded, sampler, params, judge, base, oracle, setting,
                          models_dir, fewshot)
    db_store = Store.open(db)
    try:
        db_store.require_writable("growing a scope stores its archive")
        result = run_stoppable(grow(request, db_store, registry, progress=_echo))
        where = db_store.describe()
    finally:
        db_store.close()
    for k, added in enumerate(result.rounds):
        typer.echo(f"round {k}: +{len(added)} game(s) {', '.join(added)}".rstrip())
    typer.echo(
        f"scope {name}: {len(result.names)} game(s) after {len(result.rounds)} round(s), "
        f"{result.candidates} candidate(s) drawn; stored in {where}"
    )


def _number(value: float | None) -> str:
    if value is None:
        return ""
    return "-inf" if value == -math.inf else f"{value:.3g}"


def _json_number(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def show_json(found: ScopeRecord, rows: list[ScopeGameRecord], report: ScopeReport) -> str:
    """The archive as JSON (game texts left out; -inf covers are null with `uncovered`)."""
    doc = {
        "name": found.name, "status": found.status, "round": found.round,
        "params": json.loads(found.params_json), "setting_sha256": found.setting_sha256,
        "rounds": [list(r) for r in report.rounds],
        "covers": {
            label: {"value": _json_number(c.value), "uncovered": list(c.uncovered),
                    "measured": c.measured, "pairs": c.pairs}
            for label, c in report.covers.items()
        },
        "games": [
            {"name": g.name, "sha256": g.sha256, "parent": g.parent, "round": g.round,
             "accepted": g.accepted, "gamma": g.gamma, "lineage": g.lineage,
             "verdicts": g.verdicts}
            for g in rows
        ],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False)


@app.command("show")
def show_command(
    name: Annotated[str, typer.Argument(help="The scope's name.")], db: DbOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the archive as JSON (verdicts included).")
    ] = False,
    eta: Annotated[
        float | None, typer.Option("--cover", help="Also print the optimal eta-cover of the "
                                   "scope for this eta (Def. 45) and Def. 47's measure.")
    ] = None,
) -> None:
    """Show a scope's games, rounds, gammas and transfer covers."""
    from arena.gamespace.scope.report import archive_values, scope_cover, scope_report
    from arena.storage import Store
    from arena.storage.scopes import unknown_scope

    db_store = Store.open(db, create=False)
    try:
        found = db_store.scope(name)
        if found is None:
            raise unknown_scope(name, db_store.scope_names())
        rows = db_store.scope_archive(found.id)
        measured = db_store.transfers(found.setting_sha256)
    finally:
        db_store.close()
    values = archive_values(rows, measured)
    report = scope_report(rows, values)
    if eta is not None:
        gamma, names = scope_cover(rows, values, eta)
        how = "optimal" if gamma.exact else f"greedy, within {gamma.bound:.2f}x the optimum"
        typer.echo(
            f"eta-cover (Def. 45, eta={eta:g}, {how}): {len(names)} game(s) "
            f"{', '.join(names)}; transfer cover {_number(gamma.cover.value)}"
        )
        typer.echo(
            f"Def. 47: the benchmark measure of ({name}, eta={eta:g}) is the histogram of a "
            f"model's scores over these {len(names)} game(s)."
        )
    if as_json:
        typer.echo(show_json(found, rows, report))
        return
    table = Table(title=Text(f"Scope {name} ({found.status})"))
    for column in ("game", "round", "parent", "in scope", "gamma", "decision"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(
            Text(row.name), str(row.round), Text(row.parent or ""),
            "yes" if row.accepted else "no", _number(row.gamma),
            Text(str(row.verdicts.get("decision", ""))),
        )
    console = Console(width=160)
    console.print(table)
    for k, added in enumerate(report.rounds):
        label = "Σ_0" if k == 0 else f"Ω_{k - 1}"
        typer.echo(f"{label}: {len(added)} game(s) {', '.join(added)}".rstrip())
    typer.echo(f"candidates: {report.candidates}, weighed (gamma measured, not accepted): "
               f"{report.weighed}")
    for label, cover in report.covers.items():
        note = f" ({len(cover.uncovered)} game(s) with no measured value)" if cover.uncovered \
            else ""
        typer.echo(f"{label} = {_number(cover.value)}{note}; {cover.measured} of "
                   f"{cover.pairs} pairs measured")


@app.command("list")
def list_command(db: DbOption = None) -> None:
    """List the stored scopes."""
    from arena.storage import Store

    db_store = Store.open(db, create=False)
    try:
        rows = db_store.scope_summaries()
    finally:
        db_store.close()
    if not rows:
        typer.echo("No scopes yet: grow one with `arena scope grow --name NAME --from GAME`.")
        return
    table = Table(title="Scopes")
    for column in ("scope", "status", "round", "games", "candidates", "updated"):
        table.add_column(column)
    for r in rows:
        table.add_row(Text(r.name), r.status, str(r.round), str(r.games),
                      str(max(r.candidates - r.games, 0)), f"{r.updated_at:%Y-%m-%d %H:%M}")
    Console(width=160).print(table)
