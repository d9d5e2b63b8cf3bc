"""`arena play`: play one match of a game in the terminal."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.commands.validators import positive
from arena.cli.context import registry_of
from arena.errors import ConfigError, UnknownNameError
from arena.events import Event
from arena.interrupts import run_stoppable
from arena.lang.dialects import DIALECT_NAMES, dialect_rules
from arena.lang.limits import DEFAULT_LIMITS, LIMIT_NAMES, ResourceLimits
from arena.match_setup import build_match, load_game_ref
from arena.plugins.registry import Registry
from arena.protocols.player import GameView
from arena.runtime.match import MatchResult
from arena.runtime.round import RoundLimits
from arena.runtime.seat import MovePolicy
from arena.runtime.seeds import new_seed_key, parse_seed_key
from arena.transcript import render_event


def parse_player_options(options: list[str]) -> dict[str, str]:
    """`ROLE=SPEC` options -> {role: spec}."""
    seats: dict[str, str] = {}
    for option in options:
        role, sep, spec = option.partition("=")
        if not sep or not role.strip() or not spec.strip():
            raise ConfigError(
                f"Bad --player value '{option}'. Expected ROLE=SPEC, e.g. --player black=random."
            )
        if role.strip() in seats:
            raise ConfigError(f"Role '{role}' is given twice in --player options.")
        seats[role.strip()] = spec.strip()
    return seats


def parse_limit_options(options: list[str]) -> ResourceLimits:
    """`NAME=N` options -> the resource limits, defaults for the names not given."""
    values: dict[str, int] = {}
    for option in options:
        name, sep, text = (part.strip() for part in option.partition("="))
        if name not in LIMIT_NAMES:
            fix = "Write --limit NAME=N, e.g. --limit max_value_chars=2000000."
            raise UnknownNameError("limit", name, LIMIT_NAMES, fix)
        if not sep or not text.isdecimal() or int(text) < 1:
            raise ConfigError(
                f"Bad --limit value '{option}': the limit must be a whole number >= 1, "
                f"e.g. --limit {name}={getattr(DEFAULT_LIMITS, name) * 2}."
            )
        values[name] = int(text)
    return ResourceLimits(**values)


async def run_play(
    registry: Registry,
    game: str,
    judge_spec: str,
    players: dict[str, str],
    rounds: int,
    seed: int,
    dialect: str | None,
    main_roles: list[str],
    ensure_budget: int | None,
    instruction_budget: int,
    move_timeout: float,
    on_event: Callable[[Event], None] | None = None,
    seed_key: bytes | None = None,
    limits: ResourceLimits = DEFAULT_LIMITS,
) -> tuple[dict[str, Any], MatchResult]:
    """Play one match. Its seed key (a fresh random one unless given) keys every seed the
    players receive; it is in the report so that the organiser can replay the match."""
    key = new_seed_key() if seed_key is None else seed_key
    if dialect is not None and dialect_rules(dialect) is None:
        raise ConfigError(
            f"Unknown dialect '{dialect}'. Valid options: {', '.join(DIALECT_NAMES)}. Pass "
            "one of them with --dialect, or leave it out to read the game's own."
        )
    loaded = load_game_ref(game, registry, dialect=dialect, limits=limits)
    judge = registry.create_judge(judge_spec)
    try:
        async with await build_match(
            loaded,
            players,
            judge=judge,
            registry=registry,
            seed=seed,
            rounds=rounds,
            main_roles=main_roles,
            limits=RoundLimits(ensure_budget, instruction_budget, limits),
            policy=MovePolicy(timeout_s=move_timeout),
            match_id=f"play:{Path(loaded.filename).stem}:{seed}",
            on_event=on_event,
            seed_key=key,
        ) as match:
            result = await match.play()
    finally:
        await judge.aclose()
    report = match_report(loaded.view, result, loaded.roles)
    report["seed_key"] = key.hex()
    return report, result


def match_report(view: GameView, result: MatchResult, roles: tuple[str, ...]) -> dict[str, Any]:
    """The JSON document printed by `arena play --json`."""
    rounds: list[dict[str, Any]] = []
    for event in result.events:
        if event.type == "round_finished":
            rounds.append(
                {"round": event.round, "scores": event.scores, "forfeited_by": event.forfeited_by}
            )
    return {
        "game": view.name,
        "dialect": view.dialect,
        "no_result": result.no_result,
        "rounds": rounds,
        "events": [e.model_dump(mode="json") for e in result.events],
        "scores": {
            role: {"rounds": list(s.rounds), "best": s.best, "forfeit": s.forfeit}
            for role, s in result.scores.items()
        },
        "error": result.error,
    }


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command("play")
def play(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="A game file (.xgl/.xent) or a game name.")],
    player: Annotated[
        list[str], typer.Option("--player", "-p", help="ROLE=SPEC, once per active role.")
    ],
    judge: Annotated[str, typer.Option(help="Judge spec, e.g. ngram or hf:gpt2.")] = "bundled",
    rounds: Annotated[int, typer.Option(min=1, help="Rounds to play.")] = 1,
    seed: Annotated[int, typer.Option(help="Map and play seed.")] = 0,
    seed_key: Annotated[
        str | None,
        typer.Option(
            help="Hex key of the seeds players receive, as printed after a match; "
            "pass it (with the same --seed) to replay that match exactly. "
            "Default: a fresh random key."
        ),
    ] = None,
    dialect: Annotated[
        str | None,
        typer.Option(
            help=f"Game dialect: {', '.join(DIALECT_NAMES)} (default: detect from the game)."
        ),
    ] = None,
    main: Annotated[
        list[str] | None,
        typer.Option(help="Role(s) of the main character; others are memoryless NPCs."),
    ] = None,
    ensure_budget: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="Failed ensures allowed (default: the dialect's: 10 per player and round "
            "in xgl, then a forfeit; per ensure line in xent, then no result).",
        ),
    ] = None,
    instruction_budget: Annotated[int, typer.Option(min=1)] = 10_000,
    move_timeout: Annotated[
        float, typer.Option(help="Seconds per move (> 0).", callback=positive)
    ] = 300.0,
    limit: Annotated[
        list[str] | None,
        typer.Option(
            help="NAME=N: raise (or lower) a resource limit, e.g. max_value_chars=200000; "
            f"names: {', '.join(LIMIT_NAMES)}.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Play one match from a game file and print the transcript and scores."""
    seats = parse_player_options(player)
    key = None if seed_key is None else parse_seed_key(seed_key)
    limits = parse_limit_options(limit or [])

    def show(event: Event) -> None:
        if not as_json:
            typer.echo(render_event(event))

    report, result = run_stoppable(
        run_play(
            registry_of(ctx),
            game,
            judge,
            seats,
            rounds,
            seed,
            dialect,
            main or [],
            ensure_budget,
            instruction_budget,
            move_timeout,
            show,
            key,
            limits,
        )
    )
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False))
    else:
        if result.no_result is not None:
            typer.echo(f"no result: {result.no_result}")
        for role, score in report["scores"].items():
            best = "forfeit" if score["best"] is None else f"{score['best']:.3f} bits"
            best = "no result" if result.no_result is not None else best
            typer.echo(f"{role}: best {best}; rounds {score['rounds']}")
        typer.echo(
            f"seed key: {report['seed_key']} (keep it private; --seed {seed} --seed-key "
            "KEY replays this match)"
        )
    if result.error:
        typer.echo(f"error: {result.error}", err=True)
        raise typer.Exit(1)
