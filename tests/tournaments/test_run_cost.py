"""What a ranking cost (issue 33 item 4): each stored seat carries the tokens, dollars and
calls its player reported and the seconds it took on its moves; `arena ratings --json`
gives them per participant and the board's spend per settled rank. A real run with an LLM
player against the project's OpenAI-compatible server on loopback (its usage figures are
word counts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import build_app
from arena.events import ElicitResponse
from arena.plugins.registry import Registry
from arena.storage import MATCH_DONE, Store, sqlite_url
from arena.tournaments.services.run_config import run_file
from tests.support.openai_compat_server import ServerState, start_server
from tests.tournaments import arena_fixtures as fx

REPLY = '<move register="t">a cat sat</move>'


@pytest.fixture(scope="module")
def registry() -> Registry:
    return fx.registry()


async def paid_tournament(folder: Path, registry: Registry) -> str:
    """Tournament "small" with alpha an LLM player on the loopback server; its database."""
    state = ServerState(default={"reply": REPLY})
    async with start_server(state=state) as url:
        body = fx.SMALL.replace(
            'player = "sleepy?words=3"',
            f'player = "litellm:openai/m?api_base={url}&retries=0&backoff=0"',
        )
        path = fx.tournament_file(folder, body)
        db = sqlite_url(folder / "cost.db")
        summary = await run_file(path, db=db, registry=registry)
    assert summary.written > 0
    return db


async def test_each_participant_s_spend_reaches_the_board(tmp_path: Path, registry: Registry) -> None:
    db = await paid_tournament(tmp_path, registry)

    # what the events say alpha's moves used, summed here independently of the arena
    store = Store.open(db)
    try:
        reported = {"prompt_tokens": 0.0, "completion_tokens": 0.0, "calls": 0.0}
        seats = 0
        for stored in store.stored_matches("small", status=MATCH_DONE):
            roles = {s.role for s in stored.seats if s.participant == "alpha" and s.main}
            seats += len(roles)
            for event in store.match_events(stored.key):
                if isinstance(event, ElicitResponse) and event.player in roles and event.usage:
                    for name in reported:
                        reported[name] += event.usage.get(name, 0.0)
    finally:
        store.close()
    assert reported["prompt_tokens"] > 0 and reported["calls"] > 0

    ran = CliRunner().invoke(build_app(), ["ratings", "-t", "small", "--db", db, "--json"])
    assert ran.exit_code == 0, ran.output
    rows = {r["participant"]: r for r in json.loads(ran.output)}
    alpha, beta = rows["alpha"]["cost"], rows["beta"]["cost"]
    assert alpha["matches"] == alpha["measured"] == seats
    assert alpha["tokens"] == reported["prompt_tokens"] + reported["completion_tokens"]
    assert alpha["calls"] == reported["calls"]
    assert alpha["tokens_per_match"] == pytest.approx(alpha["tokens"] / seats)
    assert beta["tokens"] == 0.0 and beta["move_s"] > 0 and alpha["move_s"] > 0  # random: no usage
    settled = sum(r["rank_low"] == r["rank_high"] and not r["provisional"] for r in rows.values())
    per_rank = alpha["per_settled_rank"]
    assert per_rank["settled_ranks"] == settled
    if settled:
        assert per_rank["tokens_per_settled_rank"] == pytest.approx(alpha["tokens"] / settled)
        assert per_rank["move_s_per_settled_rank"] == pytest.approx(
            (alpha["move_s"] + beta["move_s"]) / settled)
    else:
        assert per_rank["tokens_per_settled_rank"] is None
    text = CliRunner().invoke(build_app(), ["ratings", "-t", "small", "--db", db]).output
    assert "Cost per settled rank" in text
