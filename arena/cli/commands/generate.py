"""`arena games generate`: propose games related to a game with a meta-sampler, filter them
(`arena.gamespace.sampling.pipeline`), print why each was kept or dropped, and write the kept ones
as ordinary game files with their lineage in the header.

Records: `generation.json` in the output folder holds the run's parameters and every
candidate's verdicts and evidence (the kept games' files sit beside it).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from arena.cli.context import registry_of
from arena.errors import ConfigError
from arena.interrupts import run_stoppable
from arena.match_setup import load_game_ref
from arena.plugins.registry import Registry
from arena.protocols.sampler import ParentGame
from arena.redaction import redact

if TYPE_CHECKING:  # the pipeline imports the analysis (SciPy): loaded when generating
    from arena.gamespace.sampling.pipeline import CandidateRecord, PipelineConfig

MAX_CANDIDATES = 10_000
RECORD_FILE = "generation.json"


async def generate(
    ref: str, sampler_spec: str, count: int, config: PipelineConfig, judge_spec: str,
    registry: Registry,
) -> tuple[ParentGame, list[CandidateRecord]]:
    """Propose `count` candidates from game `ref` and run each through the pipeline."""
    from arena.gamespace.sampling.pipeline import FilterPipeline

    game = load_game_ref(ref, registry)
    parent = ParentGame(game.name, game.version, Path(game.filename).name, game.source)
    sampler = registry.create_sampler(sampler_spec)
    judge = registry.create_judge(judge_spec)
    try:
        pipeline = FilterPipeline(registry, judge, config)
        records = []
        # A sampler may block (a model call): it runs in a worker thread, off the loop.
        proposals = sampler.propose(parent, count, config.seed)
        while (proposal := await asyncio.to_thread(next, proposals, None)) is not None:
            records.append(await pipeline.run(proposal))
        return parent, records
    finally:
        await judge.aclose()


def write_results(
    out: Path, parent: ParentGame, records: list[CandidateRecord], params: dict[str, object]
) -> list[Path]:
    """Write each kept game as `out/NAME.xgl|.xent` and every record to generation.json."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(
            f"Cannot create the output folder {out}: {error.strerror}. Choose another with "
            "--out."
        ) from None
    written = []
    for record in records:
        if record.kept:
            path = out / record.proposal.filename
            path.write_text(record.proposal.source, encoding="utf-8")
            written.append(path)
    doc = {
        "parent": asdict(parent) | {"source": None},
        "params": params,
        "candidates": [r.to_dict() for r in records],
    }
    (out / RECORD_FILE).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    return written


def render_table(records: list[CandidateRecord]) -> Table:
    table = Table(title="Candidates")
    for column in ("candidate", "operator", "verdict", "stage", "why"):
        table.add_column(column, overflow="fold")
    for record in records:
        decided = record.decided_by
        table.add_row(
            record.proposal.name, record.proposal.operator,
            "kept" if record.kept else "dropped", decided.stage, decided.reason,
        )
    return table


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)



@app.command("generate")
def generate_command(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="The parent game: a name or a file.")],
    sampler: Annotated[
        str, typer.Option(help="Meta-sampler spec, e.g. mutate or mutate?ops=length.")
    ] = "mutate",
    count: Annotated[
        int, typer.Option("-n", min=1, max=MAX_CANDIDATES, help="Candidates to propose.")
    ] = 10,
    seed: Annotated[int, typer.Option(help="Sampler and check seed.")] = 0,
    out: Annotated[
        Path | None, typer.Option(help="Output folder (default generated/GAME).")
    ] = None,
    judge: Annotated[str, typer.Option(help="Judge spec, e.g. ngram, bundled.")] = "bundled",
    fewshot: Annotated[
        str, typer.Option(help="Few-shot playability rule: trend (a non-learner passes "
                          "<= 1 %) or arms (Def. 33's curve, cheaper, passes noise).")
    ] = "trend",
    base: Annotated[
        str | None, typer.Option(help="Base participant of the playability stage (default: "
                                 "search for trend, random for arms).")
    ] = None,
    maps: Annotated[
        int | None, typer.Option(min=1, max=100, help="Playability maps (default 4; arms 2).")
    ] = None,
    rounds: Annotated[
        int | None, typer.Option(min=2, max=100, help="Playability rounds (default 6; arms 4).")
    ] = None,
) -> None:
    """Propose games related to GAME, filter them and write the kept ones."""
    from arena.gamespace.sampling.pipeline import PipelineConfig

    registry = registry_of(ctx)
    config = PipelineConfig.for_rule(fewshot, seed=seed, base=base, maps=maps, rounds=rounds)
    registry.create_sampler(sampler)  # a bad spec fails before any judge loads
    parent, records = run_stoppable(
        generate(game, sampler, count, config, judge, registry)
    )
    folder = out if out is not None else Path("generated") / parent.name
    params = {"sampler": redact(sampler), "n": count, "judge": judge, **asdict(config)}
    written = write_results(folder, parent, records, params)
    Console(width=160).print(render_table(records))
    typer.echo(
        f"{len(written)} of {len(records)} candidate(s) kept ({count} asked); wrote "
        f"{len(written)} game file(s) and {RECORD_FILE} to {folder}"
    )
