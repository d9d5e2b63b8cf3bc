"""`arena plugins`: what is installed, where it comes from, and what failed to load.

Also `mount_plugin_commands`, which adds the plugins' own commands to the `arena` CLI.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from arena.cli.context import registry_of
from arena.listing import printable, rich_cell
from arena.plugins.plugin_manager import ALLOW_ENV
from arena.plugins.registry import PluginInfo, Registry, command_names


def spec_docs(registry: Registry) -> dict[str, dict[str, str]]:
    """Kind (plural noun) -> name -> what its spec takes, rendered from the declared
    parameters (`arena.spec_params`); an undeclared entry shows its free-text `params_doc`
    if it has one, else "". Every kind whose entries can declare parameters is listed."""
    docs: dict[str, dict[str, str]] = {}
    for kind in registry.kinds:
        if "params" not in getattr(kind.entry_class(), "__dataclass_fields__", {}):
            continue
        docs[kind.plural] = {
            name: _params_doc(registry.entry(kind, name)) for name in registry.names(kind)
        }
    return docs


def _params_doc(entry: Any) -> str:
    params = entry.params
    return params.doc() if params is not None else str(getattr(entry, "params_doc", ""))


def report(registry: Registry) -> dict[str, Any]:
    """The `arena plugins --json` document: plugins, failures, skipped entry points and
    the spec parameters of every entry that declares them."""
    return {
        "specs": spec_docs(registry),
        "plugins": [info.as_dict() for info in registry.plugins()],
        "failures": [asdict(failure) for failure in registry.failures()],
        "skipped": registry.skipped(),
    }


def _provides(registry: Registry, info: PluginInfo) -> Text:
    lines = [
        printable(f"{kind.plural}: {', '.join(info.provides[kind.key])}")
        for kind in registry.kinds
        if info.provides.get(kind.key)
    ]
    return Text("\n".join(lines) or "-")


def render(registry: Registry, console: Console) -> None:
    """Print the plugins table, then failures and skipped entry points if any."""
    table = Table(title="Arena plugins")
    table.add_column("plugin", no_wrap=True)
    table.add_column("distribution", no_wrap=True)
    table.add_column("version", no_wrap=True)
    table.add_column("provides", overflow="fold")
    for info in registry.plugins():
        table.add_row(rich_cell(info.name), rich_cell(info.dist or "-"),
                      rich_cell(info.version or "-"), _provides(registry, info))
    console.print(table)
    specs = Table(title="Spec parameters (name:arg?key=value&...)")
    for column in ("kind", "name", "takes"):
        specs.add_column(column, overflow="fold")
    for kind, docs in spec_docs(registry).items():
        for name, doc in docs.items():
            specs.add_row(kind, name, doc or "-")
    console.print(specs)
    failures = registry.failures()
    if failures:
        errors = Table(title="Plugin failures", title_style="bold red")
        for column in ("plugin", "distribution", "version", "error"):
            errors.add_column(column, overflow="fold")
        for failure in failures:
            errors.add_row(rich_cell(failure.name), rich_cell(failure.dist or "-"),
                           rich_cell(failure.version or "-"), rich_cell(failure.error))
        console.print(errors)
    skipped = registry.skipped()
    if skipped:
        console.print(rich_cell(f"Not loaded (not in {ALLOW_ENV}): {', '.join(skipped)}"))


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command("plugins")
def plugins(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    strict: bool = typer.Option(False, "--strict", help="Exit with status 1 on failures."),
) -> None:
    """List installed plugins, what they provide, and plugins that failed to load."""
    registry = registry_of(ctx)
    if as_json:
        typer.echo(json.dumps(report(registry), indent=2))
    else:
        render(registry, Console())
    if strict and registry.failures():
        raise typer.Exit(1)


def mount_plugin_commands(app: typer.Typer, registry: Registry) -> list[str]:
    """Add the plugins' typer apps to `app`; return the names skipped as already taken."""
    taken = set(command_names(app, mounted=False))
    skipped: list[str] = []
    for sub in registry.cli_commands():
        names = command_names(sub)
        clash = [name for name in names if name in taken]
        if clash:
            skipped += clash
            continue
        taken.update(names)
        app.add_typer(sub)
    return skipped
