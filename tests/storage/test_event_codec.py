"""Stored events: each long text once, large payloads compressed, a size budget per match
(issue 24.7: a 9-line game within every limit wrote 399 MB for two matches)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.events import Event, Reveal, event_from_json
from arena.plugins.registry import Registry
from arena.storage import Store, sqlite_url
from arena.storage.event_codec import (
    LONG_CHARS,
    MATCH_BUDGET_CHARS,
    decode_events,
    encode_events,
)
from arena.storage.queries import match_events, stored_matches
from arena.tournaments.services.run_config import run_file
from tests.tournaments import arena_fixtures as fx

# s is 655 360 characters (under max_value_chars), then revealed on 250 passes: every
# reveal event is a copy of s, each within every resource limit of the round.
REPEATING = (
    'assign(s="abcdefghi ")\n'
    "beacon(flag_1)\n"
    "assign(s=s+s)\n"
    "replay(flag_1, 15)\n"
    "beacon(flag_2)\n"
    "reveal(alice, s)\n"
    "replay(flag_2, 250)\n"
    "elicit(alice, t, 3)\n"
)
# The same, but the revealed text grows by one character each pass: nothing repeats.
GROWING = REPEATING.replace(
    "reveal(alice, s)\n", 'assign(s=s+"x")\nreveal(alice, s)\n'
).replace("replay(flag_2, 250)", "replay(flag_2, 120)")


def reveal(round_: int, text: str) -> Reveal:
    return Reveal(round=round_, line=1, player="alice", values={"s": text})


def text_of(event: Event) -> str:
    assert isinstance(event, Reveal)
    return event.values["s"]


def test_round_trip_keeps_every_text_and_stores_repeats_once() -> None:
    long = "w" * (LONG_CHARS * 5)
    events: list[Event] = [reveal(1, long), reveal(1, "short"), reveal(2, long)]
    payloads = encode_events(events)
    assert decode_events(payloads) == events
    assert sum(len(p) for p in payloads) < len(long) + 500  # stored once
    huge = [reveal(1, "w" * 100_000)]
    assert len(encode_events(huge)[0]) < 2_000  # compressed
    assert decode_events(encode_events(huge)) == huge


def test_a_text_cannot_forge_a_reference() -> None:
    events: list[Event] = [reveal(1, "x" * LONG_CHARS), reveal(1, "\x00#0"), reveal(1, "\x00")]
    assert decode_events(encode_events(events)) == events


def test_payloads_written_before_the_codec_still_decode() -> None:
    event = reveal(1, "old text")
    assert decode_events([event.model_dump_json()]) == [event]
    assert event_from_json(event.model_dump_json()) == event


def test_the_budget_bounds_a_match_that_never_repeats() -> None:
    events: list[Event] = [reveal(1, f"{i:06d}" + "y" * 5_000) for i in range(200)]
    payloads = encode_events(events, budget=100_000)
    decoded = decode_events(payloads)
    kept = [e for e in decoded if text_of(e).startswith("0")]
    assert 10 <= len(kept) < 25 and decoded[: len(kept)] == events[: len(kept)]
    assert "characters not stored" in text_of(decoded[-1])
    assert sum(len(p) for p in payloads) < 100_000 + 200 * 400


@pytest.fixture(scope="module")
def registry() -> Registry:
    return fx.registry()


TOURNAMENT = """
name = "hostile"
judge = "ngram"
maps = 1
rounds = 1
seed = 1

[[participants]]
name = "alpha"
player = "random?words=2"

[[participants]]
name = "beta"
player = "random?words=3"

[[games]]
game = "{game}"
"""


@pytest.mark.parametrize(("game", "source"), [("repeating", REPEATING), ("growing", GROWING)])
async def test_a_hostile_game_stores_a_bounded_size(
    tmp_path: Path, registry: Registry, game: str, source: str
) -> None:
    (tmp_path / f"{game}.xgl").write_text(source, encoding="utf-8")
    path = tmp_path / "t.toml"
    path.write_text(TOURNAMENT.format(game=f"{game}.xgl"), encoding="utf-8")
    db = sqlite_url(tmp_path / "h.db")
    summary = await run_file(path, db=db, registry=registry)
    assert summary.written == 2 and summary.errors == 0
    size = sum(f.stat().st_size for f in tmp_path.glob("h.db*"))
    # Uncompressed, each match stored about 164 MB of reveals (251 copies of 655 360 characters).
    assert size < 2 * MATCH_BUDGET_CHARS + 5_000_000, size
    store = Store.open(db)
    try:
        key = stored_matches(store.engine, "hostile")[0].key
        reveals = [e for e in match_events(store.engine, key) if isinstance(e, Reveal)]
    finally:
        store.close()
    assert len(reveals) == (251 if game == "repeating" else 121)
    if game == "repeating":  # every copy comes back whole
        assert {len(text_of(r)) for r in reveals} == {10 * 2**16}
    else:  # the first ones whole, the rest named as not stored
        assert len(text_of(reveals[0])) == 10 * 2**16 + 1
        assert "characters not stored" in text_of(reveals[-1])
