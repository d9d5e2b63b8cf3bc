"""`arena import-benchmark`: write a published Xent benchmark config as a tournament folder
that `arena run` plays (added to the `arena` command by `arena.tournaments.plugin`; also
`python -m arena.tournaments.cli.benchmark CONFIG`). The work is
`arena.tournaments.services.exchange.xent_config`; storing result files is `arena import`'s job."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.console import run_app
from arena.errors import ConfigError

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, no_args_is_help=True)


def _params(texts: list[str]) -> dict[str, str]:
    """`KEY=VALUE` texts of --player-param as a mapping; ConfigError for any other shape."""
    out: dict[str, str] = {}
    for text in texts:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise ConfigError(
                f"--player-param '{text}' is not KEY=VALUE. Write e.g. --player-param "
                "temperature=0.2 (any parameter of the litellm player: `arena plugins`)."
            )
        out[key.strip()] = value.strip()
    return out


@app.command("import-benchmark")
def import_benchmark_command(
    config: Annotated[
        Path, typer.Argument(help="The Xent benchmark config, e.g. configs/benchmark0.2.json.")
    ],
    out: Annotated[
        Path, typer.Option(help="Folder for tournament.toml, games/*.xent and maps.json.")
    ] = Path("xent-benchmark"),
    judge: Annotated[
        str | None, typer.Option(help="Judge spec instead of hf:<the config's judge_model>.")
    ] = None,
    maps: Annotated[int | None, typer.Option(min=1, help="Play only the first N maps.")] = None,
    rounds: Annotated[
        int | None, typer.Option(min=1, help="Rounds instead of the config's.")
    ] = None,
    player_param: Annotated[
        list[str] | None,
        typer.Option(
            "--player-param",
            help="KEY=VALUE set in every imported player's litellm spec, over the "
            "reference's settings (temperature=none, max_tokens=none or 4096, timeout=600); "
            "repeatable.",
        ),
    ] = None,
) -> None:
    """Write a published Xent benchmark config (xentlabs/xent) as a tournament folder that
    `arena run` plays; prints every participant's player spec."""
    from arena.tournaments.services.exchange.xent_config import import_config_command, read_config

    params = _params(player_param or [])
    for line in import_config_command(read_config(config), out, judge, maps, rounds, params):
        typer.echo(line)


def main(argv: list[str] | None = None) -> None:
    """`python -m arena.tournaments.cli.benchmark`: user errors print a message and exit 2."""
    run_app(app, argv)


if __name__ == "__main__":
    main()
