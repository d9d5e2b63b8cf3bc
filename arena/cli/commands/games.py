"""`arena games`: list, show and check the games, measure well-posedness and playability,
and keep the golden playthroughs up to date."""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from arena.cli.commands import generate
from arena.cli.commands.validators import failure_probability, finite_positive, open_probability
from arena.cli.context import registry_of
from arena.errors import ConfigError, GameSyntaxError
from arena.interrupts import run_stoppable
from arena.listing import rich_cell
from arena.match_setup import DEFAULT_MAX_REPLAY, LoadedGame, load_entry, load_game_ref
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge

if TYPE_CHECKING:  # the analysis imports SciPy: loaded by the commands that use it
    from arena.analysis.playability import PlayabilityReport
    from arena.analysis.smoke import CheckReport
    from arena.analysis.wellposed import WellPosedness

T = TypeVar("T")

JudgeOption = Annotated[
    str, typer.Option("--judge", help="Judge spec: bundled (default), ngram, hf:gpt2, ...")
]
SeedOption = Annotated[int, typer.Option(help="Map and play seed.")]
ReplayOption = Annotated[
    int, typer.Option(min=0, help="Cap on replay counts, so that long loops stay fast.")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]
GameArgument = Annotated[str, typer.Argument(help="A game name or a game file (.xgl/.xent).")]


def _with_judge(
    registry: Registry, spec: str, work: Callable[[Judge], Awaitable[T]]
) -> T:
    """Create the judge, run `work` with it, always close it."""

    async def run() -> T:
        judge = registry.create_judge(spec)
        try:
            return await work(judge)
        finally:
            await judge.aclose()

    return run_stoppable(run())


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


# ---------------------------------------------------------------- list / show


def list_rows(registry: Registry) -> list[dict[str, Any]]:
    """One row per registered game: name, version, dialect, active roles, title."""
    rows = []
    for name in registry.game_names():
        entry = registry.game(name)
        try:
            game = load_entry(entry)
            roles, title = list(game.roles), game.header.title
        except GameSyntaxError:
            roles, title = [], "(does not check: run `arena games check " + name + "`)"
        rows.append(
            {
                "name": name,
                "version": entry.version,
                "dialect": entry.dialect or "",
                "players": roles,
                "title": title,
                "measures": entry.description,
            }
        )
    return rows


def show_document(game: LoadedGame) -> dict[str, Any]:
    """What `arena games show` prints."""
    return {
        "name": game.name,
        "filename": game.filename,
        "version": game.version,
        "dialect": game.program.dialect_name,
        "players": list(game.roles),
        "source": game.header.get("source"),
        "title": game.header.title,
        "header": list(game.header.lines),
        "code": game.source,
    }


# ---------------------------------------------------------------- rendering


def render_check(report: CheckReport) -> list[str]:
    """A status line and indented details for one checked game."""
    smoke = report.smoke
    scores = ""
    if smoke is not None:
        parts = []
        for role, rounds in smoke.scores.items():
            value = rounds[0] if rounds else None
            parts.append(f"{role}={'forfeit' if value is None else f'{value:.2f}'}")
        scores = " smoke: " + ", ".join(parts)
    head = f"{report.status.upper():4s}  {report.name} v{report.version or '?'}{scores}"
    lines = [head]
    lines += [f"      fail: {line}" for line in report.failures]
    lines += [f"      warn: {line}" for line in report.warnings]
    lines += [f"      info: {line}" for line in report.info]
    return lines


def render_wellposed(result: WellPosedness) -> list[str]:
    verdict = "ILL-POSED" if result.ill_posed else "well-posed"
    rho = "n/a" if result.spearman is None else f"{result.spearman:.3f}"
    lines = [
        f"{result.game} ({result.role}, map seed {result.map_seed}): {verdict}",
        f"  epsilon {result.epsilon:.3g} (cap {result.cap_bits:.2f} bits per token), "
        f"opponent replies {result.replies}",
        f"  spearman {rho}; best move changed: {result.best_changed}; "
        f"regret {result.regret:.3f}; resolution "
        + ("n/a" if result.resolution is None else f"{result.resolution:.3f}"),
        f"  {result.reason}",
        "  #  origin          plain     clipped   move",
    ]
    for index, cand in enumerate(result.candidates):
        mark = ("P" if index == result.best_plain else " ") + (
            "C" if index == result.best_clipped else " "
        )
        plain = "forfeit" if not math.isfinite(cand.plain) else f"{cand.plain:9.2f}"
        clipped = "forfeit" if not math.isfinite(cand.clipped) else f"{cand.clipped:9.2f}"
        move = " | ".join(cand.moves)
        move = move if len(move) <= 60 else move[:57] + "..."
        lines.append(f"{mark}{index:2d} {cand.origin:14s} {plain:>9s} {clipped:>9s}   {move!r}")
    return lines


def render_playability(report: PlayabilityReport) -> list[str]:
    verdict = "playable" if report.playable else "NOT playable"
    lines = [
        f"{report.game} ({report.role}) by {report.participant}: {verdict} "
        f"(needs {report.required_steps} leading increases, got "
        f"{report.leading_increases}; {report.increases} increases in all"
        f"{'; flat curve' if report.flat else ''})",
        f"  {report.maps} maps x {report.rounds} rounds"
        + (f", {report.dropped_maps} dropped (all forfeited)" if report.dropped_maps else ""),
    ]
    levels = report.levels
    if levels is not None:
        crossed = "never" if levels.crossings is None else ", ".join(map(str, levels.crossings))
        lines += [
            f"  paper (N={levels.maps}, eps={levels.epsilon:g}, m={levels.steps}): "
            f"{'playable' if levels.playable else 'NOT playable'} "
            f"(P[increasing {levels.steps} steps] = {levels.p_increasing:.2f} over map resamples)",
            f"  paper (N={levels.maps}, eps={levels.epsilon:g}, theta={levels.theta:g}, "
            f"m={levels.levels}): {'playable' if levels.playable_levels else 'NOT playable'} "
            f"(P[levels crossed] = {levels.p_levels:.2f}; k_j as played: {crossed})",
        ]
    lines.append("  k  arms_k")
    low = min(report.curve, default=0.0)
    high = max(report.curve, default=0.0)
    for k, value in enumerate(report.curve, 1):
        width = 0 if high == low else round(30 * (value - low) / (high - low))
        lines.append(f"  {k:2d} {value:10.3f} {'#' * width}")
    return lines


# ---------------------------------------------------------------- commands


def _check_all(
    registry: Registry, refs: list[str], every: bool, judge_spec: str, player: str, seed: int,
    max_replay: int, wellposed: bool, epsilon: float | None, base: str | None,
) -> list[CheckReport]:
    from arena.analysis.smoke import check_game, static_failure

    targets = list(refs) + (registry.game_names() if every else [])
    if not targets:
        raise ConfigError(
            "Nothing to check. Name a game or a file, e.g. `arena games check single_text`, "
            "or pass --all."
        )

    async def work(judge: Judge) -> list[CheckReport]:
        reports = []
        for ref in dict.fromkeys(targets):
            try:
                game = load_game_ref(ref, registry)
            except GameSyntaxError as error:
                reports.append(static_failure(Path(ref).stem, ref, error))
                continue
            reports.append(
                await check_game(
                    game, registry, judge, player=player, seed=seed, max_replay=max_replay,
                    wellposed=wellposed, epsilon=epsilon, base=base,
                )
            )
        return reports

    return _with_judge(registry, judge_spec, work)


app = typer.Typer(
    name="games", help="List, show and check games; well-posedness and playability.",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
)
app.add_typer(generate.app)

@app.command("list")
def list_games(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """List the registered games with their version and active players."""
    rows = list_rows(registry_of(ctx))
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False))
        return
    table = Table(title="Games")
    for column in ("name", "version", "dialect", "players", "title"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(
            *(rich_cell(cell) for cell in (row["name"], row["version"], row["dialect"],
                                           ", ".join(row["players"]), row["title"]))
        )
    Console(width=160).print(table)

@app.command("show")
def show(ctx: typer.Context, game: GameArgument, as_json: JsonOption = False) -> None:
    """Print a game's header, active players, version, source and code."""
    doc = show_document(load_game_ref(game, registry_of(ctx)))
    if as_json:
        typer.echo(json.dumps(doc, ensure_ascii=False))
        return
    typer.echo(f"game:     {doc['name']} ({doc['filename']})")
    typer.echo(f"version:  {doc['version']}")
    typer.echo(f"dialect:  {doc['dialect']}")
    typer.echo(f"players:  {', '.join(doc['players']) or '(none)'}")
    typer.echo(f"source:   {doc['source'] or '(not given)'}")
    typer.echo("header:")
    for line in doc["header"]:
        typer.echo(f"  {line}")
    typer.echo("code:")
    for number, line in enumerate(doc["code"].splitlines(), 1):
        typer.echo(f"  {number:3d} | {line}")

@app.command("check")
def check(
    ctx: typer.Context,
    refs: Annotated[
        list[str] | None, typer.Argument(help="Game names or files.", show_default=False)
    ] = None,
    every: Annotated[bool, typer.Option("--all", help="Check every registered game.")] = False,
    judge: JudgeOption = "bundled",
    player: Annotated[
        str,
        typer.Option(
            help="Player spec seated in every active role (the NPC when each role is probed)."
        ),
    ] = "random",
    seed: SeedOption = 0,
    max_replay: ReplayOption = DEFAULT_MAX_REPLAY,
    wellposed: Annotated[
        bool, typer.Option(help="Also run the well-posedness check.")
    ] = True,
    epsilon: Annotated[
        float | None,
        typer.Option(
            help="Clipping epsilon (default 1/|V| of the judge).", callback=open_probability
        ),
    ] = None,
    base: Annotated[
        str | None,
        typer.Option(help="Also check playability for this base participant (a spec)."),
    ] = None,
    strict: Annotated[bool, typer.Option(help="Exit 1 on warnings too.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Static check, a seeded smoke match and well-posedness, with a report.

    Replay loops are capped at --max-replay passes so that smoke runs stay fast. Exit
    status 1 when a game fails (or, with --strict, has a warning).
    """
    reports = _check_all(
        registry_of(ctx), refs or [], every, judge, player, seed, max_replay, wellposed,
        epsilon, base,
    )
    if as_json:
        typer.echo(json.dumps([r.to_dict() for r in reports], ensure_ascii=False))
    else:
        for report in reports:
            for line in render_check(report):
                typer.echo(line)
        counts = {s: sum(r.status == s for r in reports) for s in ("pass", "warn", "fail")}
        typer.echo(
            f"{len(reports)} game(s): {counts['pass']} pass, {counts['warn']} warn, "
            f"{counts['fail']} fail (judge {judge})"
        )
    bad = [r for r in reports if r.status == "fail" or (strict and r.status == "warn")]
    if bad:
        raise typer.Exit(1)

@app.command("wellposed")
def wellposed_cmd(
    ctx: typer.Context,
    game: GameArgument,
    judge: JudgeOption = "bundled",
    role: Annotated[str | None, typer.Option(help="Main role (default: first).")] = None,
    epsilon: Annotated[
        float | None, typer.Option(help="Default 1/|V|.", callback=open_probability)
    ] = None,
    seed: SeedOption = 0,
    candidates: Annotated[int, typer.Option(min=2, help="Seeded candidates.")] = 8,
    steps: Annotated[int, typer.Option(min=0, help="Local search steps per judge.")] = 4,
    max_regret: Annotated[float, typer.Option(help="Regret above which to flag.")] = 0.25,
    min_resolution: Annotated[
        float, typer.Option(help="Resolution below which to flag.")
    ] = 0.25,
    max_replay: ReplayOption = DEFAULT_MAX_REPLAY,
    as_json: JsonOption = False,
) -> None:
    """Paper Definition 30: rank candidate moves with and without epsilon-clipping."""
    from arena.analysis.wellposed import check_well_posed

    registry = registry_of(ctx)
    loaded = load_game_ref(game, registry)
    result = _with_judge(
        registry,
        judge,
        lambda j: check_well_posed(
            loaded, j, role=role, epsilon=epsilon, seed=seed, candidates=candidates,
            search_steps=steps, max_regret=max_regret, min_resolution=min_resolution,
            max_replay=max_replay,
        ),
    )
    if as_json:
        typer.echo(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        for line in render_wellposed(result):
            typer.echo(line)

@app.command("playability")
def playability(
    ctx: typer.Context,
    game: GameArgument,
    judge: JudgeOption = "bundled",
    player: Annotated[str, typer.Option(help="The participant's player spec.")] = "random",
    npc: Annotated[str, typer.Option(help="Player spec for the other roles.")] = "random",
    role: Annotated[str | None, typer.Option(help="Main role (default: first).")] = None,
    maps: Annotated[int, typer.Option(min=1, help="N, the number of maps.")] = 4,
    rounds: Annotated[int, typer.Option(min=2, help="k, rounds per map.")] = 8,
    steps: Annotated[
        int | None, typer.Option(min=1, help="m, increases required (default k/2).")
    ] = None,
    seed: SeedOption = 0,
    max_replay: ReplayOption = DEFAULT_MAX_REPLAY,
    theta: Annotated[
        float, typer.Option(help="theta, bits per level (> 0).", callback=finite_positive)
    ] = 1.0,
    levels: Annotated[int, typer.Option(min=1, help="m of the theta levels.")] = 2,
    epsilon: Annotated[
        float,
        typer.Option(
            help="eps, the tolerated failure probability, in [0, 1).",
            callback=failure_probability,
        ),
    ] = 0.1,
    as_json: JsonOption = False,
) -> None:
    """Paper Definition 33: does the running max keep increasing for m steps, and does it
    cross m levels of theta bits, with probability 1 - eps over N-map samples?"""
    from arena.analysis.playability import run_playability

    registry = registry_of(ctx)
    loaded = load_game_ref(game, registry)
    report = _with_judge(
        registry,
        judge,
        lambda j: run_playability(
            loaded, j, registry, participant=player, role=role, npc=npc, maps=maps,
            rounds=rounds, steps=steps, seed=seed, max_replay=max_replay, theta=theta,
            levels=levels, epsilon=epsilon,
        ),
    )
    if as_json:
        typer.echo(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        for line in render_playability(report):
            typer.echo(line)

@app.command("golden")
def golden(
    ctx: typer.Context,
    names: Annotated[
        list[str] | None, typer.Argument(help="Games (default: all).", show_default=False)
    ] = None,
    update: Annotated[bool, typer.Option(help="Rewrite the records.")] = False,
    directory: Annotated[
        Path, typer.Option("--dir", help="Where the records live.")
    ] = Path("tests/golden"),
) -> None:
    """Replay the golden playthroughs and compare, or rewrite them with --update."""
    from arena.analysis.golden import update_goldens, verify_goldens

    registry = registry_of(ctx)
    chosen = names or registry.game_names()
    loaded = [load_entry(registry.game(name)) for name in chosen]
    if update:
        written = run_stoppable(update_goldens(directory, registry, loaded))
        typer.echo(f"wrote {len(written)} golden record(s) to {directory}")
        return
    report = run_stoppable(verify_goldens(directory, registry, loaded))
    changed = {name: diffs for name, diffs in report.items() if diffs}
    for name, diffs in report.items():
        typer.echo(f"{'DIFF' if diffs else 'same'}  {name}")
        for line in diffs:
            typer.echo(f"      {line}")
    if changed:
        typer.echo("Run `arena games golden --update` if the change is intended.")
        raise typer.Exit(1)
