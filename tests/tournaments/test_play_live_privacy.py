"""A match with a person's seat shows nothing of itself on the Live page while it plays:
the referee's view there would show bob the story alice describes. Its round shows; its
events are stored with the match, for the Replay, once it ends."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.protocols.player import MoveRequest
from arena.storage import Store, sqlite_url
from arena.storage.live import matches_in_flight
from arena.storage.queries import match_events
from arena.tournaments.planning.config import parse_tournament
from arena.tournaments.services.run_config import play_config

STORY = "a lighthouse keeper counts herons at dawn"


class Waiting:
    """A person who answers only when told to, so their match stays in flight."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()
        self.go = asyncio.Event()

    async def ask(self, person: str, request: MoveRequest,
                  judge: Judge | None = None) -> Mapping[str, str]:
        self.asked.set()
        await self.go.wait()
        return {register: "a bird by the sea" for register in request.registers}


async def test_no_live_event_of_a_persons_match_until_it_is_stored(tmp_path: Path) -> None:
    config = parse_tournament({
        "name": "partners", "mode": "eval", "judge": "ngram", "move_retries": 0,
        "participants": [
            {"name": "human-bea", "player": "human:web?name=bea"},
            {"name": "teller", "player": f"scripted:{STORY}", "npc_only": True},
        ],
        "games": [{"game": "describe_to_partner", "npc": {"alice": "teller", "bob": "teller"}}],
    })
    store = Store.open(sqlite_url(tmp_path / "live.db"))
    desk = Waiting()
    try:
        registry = Registry.load().with_desk(desk)
        run = asyncio.create_task(play_config(config, store, registry))
        await asyncio.wait_for(desk.asked.wait(), 60)
        await asyncio.sleep(2.5)  # the heartbeat writes at least once a second
        flying = await asyncio.to_thread(matches_in_flight, store.engine, with_events=True)
        mine = [m for m in flying if any(p == "human-bea" for _, p in m.seats)]
        assert mine and all(m.events == () for m in mine)  # no move, not the story
        assert STORY not in repr(flying)
        desk.go.set()
        summary = await asyncio.wait_for(run, 60)
        assert summary.written == 2  # bea as alice and as bob, against the teller
        for match in mine:  # stored whole, for the Replay
            assert match.key in store.done_keys(1)
            assert any(e.type == "elicit_response" for e in match_events(store.engine, match.key))
    finally:
        store.close()
