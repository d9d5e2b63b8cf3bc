"""The demo tournament behind `arena demo` (its command: `arena.tournaments.cli.demo`): a small
offline tournament, then its leaderboard.

The tournament is `tournaments/demo.toml` (package data): the bundled judge, three bundled
games (one of them imperfect-information with two players), the built-in `random`, `hf`
(on the bundled model) and `search` players, in eval mode against a random NPC. It runs on
CPU without network or API key. Options shrink or swap parts of it (e.g. `--judge ngram
--without hf-bundled` needs no torch). It writes to the default database every other command
reads (`$XENT_ARENA_DB`, else the user data dir's `arena.db`; or `--db`), so `arena demo`
then `arena dashboard` shows it with no option. Like `arena run` it stores rating snapshots
(during the run and at its end). Running it again resumes; `--seed` plays new maps.
"""

from __future__ import annotations

import asyncio
import importlib.util
import shlex
import time
import tomllib
from collections.abc import Sequence
from importlib.resources import files
from typing import Any

from arena.errors import ConfigError, UnknownNameError
from arena.plugins.registry import Registry
from arena.storage import Store
from arena.tournaments.planning.config import TournamentConfig, parse_tournament

DEMO_RESOURCE = "demo.toml"
SEARCH = "search"

def demo_config(
    *,
    judge: str | None = None,
    maps: int | None = None,
    rounds: int | None = None,
    budget: int | None = None,
    seed: int | None = None,
    without: Sequence[str] = (),
) -> TournamentConfig:
    """The demo tournament with the given changes (None keeps the file's value)."""
    text = files("arena.tournaments").joinpath(DEMO_RESOURCE).read_text(encoding="utf-8")
    data: dict[str, Any] = tomllib.loads(text)
    changes = {"judge": judge, "maps": maps, "rounds": rounds, "seed": seed}
    data.update({k: v for k, v in changes.items() if v is not None})
    people: list[dict[str, Any]] = data["participants"]
    entrants = [p["name"] for p in people if not p.get("npc_only")]
    for name in without:
        if name not in entrants:
            raise UnknownNameError(
                "demo participant", name, entrants, "Pass --without with one of those."
            )
    if len(set(without)) == len(entrants):
        raise ConfigError("--without leaves no participant to play; keep at least one.")
    data["participants"] = [p for p in people if p["name"] not in without]
    if data.get("base") in without:
        data.pop("base")
    if budget is not None:
        for p in data["participants"]:
            if p["player"].startswith(SEARCH) and not p.get("npc_only"):
                p["player"] = f"{SEARCH}?budget={budget}&beam=4"
    return parse_tournament(data, f"the demo tournament ({DEMO_RESOURCE})")


def db_option(db: str | None) -> str:
    """` --db URL` for a database other than the default one, else nothing."""
    return "" if db is None else f" --db {shlex.quote(db)}"


def dashboard_hint(db: str | None) -> str:
    """The exact command that opens the dashboard on the demo's database (None: the default
    one, so no option), and how to get Streamlit when it is missing."""
    from arena.tournaments.cli.dashboard import EXTRA

    command = f"Dashboard: arena dashboard{db_option(db)}"
    if importlib.util.find_spec("streamlit") is None:
        return f"{command}   (first: pip install '{EXTRA}')"
    return command


async def run_demo(
    config: TournamentConfig,
    db: str | None,
    *,
    registry: Registry,
    concurrency: int | None = None,
    progress: bool = False,
) -> str:
    """Play the demo into `db` (None: the default database) storing rating snapshots as
    `arena run` does; returns the report: counts, leaderboard, where to look."""
    from arena.tournaments.records.rating_store import leaderboard_text
    from arena.tournaments.running.run_snapshots import NO_SNAPSHOT
    from arena.tournaments.services.run_config import play_config

    started = time.perf_counter()
    store = Store.open(db)
    try:
        summary = await play_config(
            config, store, registry, concurrency=concurrency, progress=progress,
            source="the demo tournament", snapshots=True,
        )
        board = await asyncio.to_thread(leaderboard_text, store, [config.name])
    finally:
        store.close()
    wall = time.perf_counter() - started
    games = ", ".join(g.label for g in config.games)
    return "\n".join([
        f"demo: {summary.written} match(es) played now, {summary.already_done} already "
        f"stored ({summary.errors} error(s)) in {wall:.0f}s; judge {config.judge}; "
        f"games {games}",
        "",
        board,
        "",
        *(f"note: {note}" for note in summary.notes if note.startswith(NO_SNAPSHOT)),
        f"Matches: arena matches --tournament {config.name}{db_option(db)}",
        dashboard_hint(db),
    ])
