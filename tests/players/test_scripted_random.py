"""The two trivial built-in players: scripted (cycling script) and random (seeded words)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from arena.errors import ConfigError, PlayerError
from arena.players.local.random_words import WORDS, RandomWordsPlayer, create_random_player
from arena.players.local.scripted import ScriptedPlayer, create_scripted_player
from arena.plugins.plugin_types import PlayerContext
from arena.protocols.player import GameView, MoveRequest, Player
from arena.specs import parse_spec

ROOT = Path(__file__).resolve().parents[2]


def request(*registers: str, round: int = 1, line: int = 3, attempt: int = 1,
            seed: int = 0, max_len: int = 10) -> MoveRequest:
    return MoveRequest(
        game=GameView(name="g", code="elicit(s, 10)", dialect="xgl"),
        role="black", round=round, rounds=3, line=line, registers=registers,
        max_len=max_len, visible={}, reveals=(), history=(), attempt=attempt, seed=seed,
    )


def scripted(text: str) -> ScriptedPlayer:
    return create_scripted_player(parse_spec(text), PlayerContext())


async def test_scripted_consumes_one_move_per_register_and_cycles() -> None:
    player = scripted("scripted:a|b|c")
    assert isinstance(player, Player) and player.name == "scripted:a|b|c"
    assert await player.move(request("t1", "t2")) == {"t1": "a", "t2": "b"}
    assert await player.move(request("s")) == {"s": "c"}
    assert await player.move(request("s", attempt=2)) == {"s": "a"}  # retries continue
    assert await player.move(request("x", "y", round=2)) == {"x": "b", "y": "c"}


async def test_scripted_moves_may_hold_colons_spaces_and_be_empty() -> None:
    player = scripted("scripted:ws://x:1| two words |")
    moves = [(await player.move(request("s")))["s"] for _ in range(4)]
    assert moves == ["ws://x:1", " two words ", "", "ws://x:1"]


async def test_scripted_per_round_restarts_each_round() -> None:
    player = scripted("scripted:a|b|c?per_round=1")
    assert await player.move(request("s", "t")) == {"s": "a", "t": "b"}
    assert await player.move(request("s", round=2)) == {"s": "a"}
    assert await player.move(request("s", round=2, attempt=2)) == {"s": "b"}
    assert await player.move(request("s", round=3)) == {"s": "a"}


async def test_scripted_escapes_raise_and_none() -> None:
    player = scripted("scripted:ok|<raise>|<none>")
    assert await player.move(request("s")) == {"s": "ok"}
    with pytest.raises(PlayerError, match="scripted to fail"):
        await player.move(request("s", line=7))
    assert await player.move(request("s")) == {"s": None}


def test_scripted_spec_errors() -> None:
    with pytest.raises(ConfigError, match="has no moves"):
        scripted("scripted")
    with pytest.raises(ConfigError, match="Did you mean 'per_round'"):
        scripted("scripted:a?per_rund=1")


def random_player(text: str = "random", seed: int = 0, role: str = "black") -> RandomWordsPlayer:
    return create_random_player(parse_spec(text), PlayerContext(seed=seed, role=role))


def play(player: Player, req: MoveRequest) -> dict[str, str]:
    return dict(asyncio.run(player.move(req)))


def test_random_is_reproducible_and_uses_the_word_list() -> None:
    req = request("s", "t", seed=5)
    first = play(random_player(seed=1), req)
    assert first == play(random_player(seed=1), req)
    for move in first.values():
        words = move.split(" ")
        assert 1 <= len(words) <= req.max_len and set(words) <= set(WORDS)
    assert first["s"] != first["t"]  # registers draw separately


def test_random_varies_with_every_seed_component() -> None:
    base = request("s", seed=5, max_len=20)
    ref = play(random_player(seed=1), base)["s"]
    variants = [
        play(random_player(seed=2), base),
        play(random_player(seed=1, role="white"), base),
        play(random_player("random?seed=3", seed=1), base),
        play(random_player(seed=1), replace(base, seed=6)),
        play(random_player(seed=1), replace(base, line=4)),
        play(random_player(seed=1), replace(base, attempt=2)),
    ]
    assert all(v["s"] != ref for v in variants)
    # not the round: as an NPC it answers the same request alike in every round
    assert play(random_player(seed=1), replace(base, round=2))["s"] == ref


def test_random_words_param_fixes_the_count() -> None:
    player = random_player("random?words=5")
    for line in range(1, 20):
        assert len(play(player, request("s", line=line, max_len=2))["s"].split()) == 5
    counts = {len(play(random_player(), request("s", line=n, max_len=4))["s"].split())
              for n in range(1, 60)}
    assert counts == {1, 2, 3, 4}


def test_random_spec_errors() -> None:
    with pytest.raises(ConfigError, match="must be >= 1"):
        random_player("random?words=0")
    with pytest.raises(ConfigError, match="takes no ':' argument"):
        random_player("random:x")


def test_random_is_reproducible_in_another_process() -> None:
    req = request("s", seed=11, round=2, line=5)
    here = play(random_player(seed=7, role="alice"), req)
    script = """
import asyncio, json
from arena.plugins.plugin_types import PlayerContext
from arena.protocols.player import GameView, MoveRequest
from arena.specs import parse_spec
from arena.players.local.random_words import create_random_player
req = MoveRequest(game=GameView(name="g", code="elicit(s, 10)", dialect="xgl"), role="black",
    round=2, rounds=3, line=5, registers=("s",), max_len=10, visible={}, reveals=(),
    history=(), attempt=1, seed=11)
p = create_random_player(parse_spec("random"), PlayerContext(seed=7, role="alice"))
print(json.dumps(dict(asyncio.run(p.move(req)))))
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "random"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, cwd=ROOT, check=True)
    assert json.loads(out.stdout) == here


def test_random_refuses_a_huge_words_param_naming_the_maximum() -> None:
    # issue 24 item 4: random?words=99999999999999999999 built a move of that many words.
    from arena.plugins.registry import Registry

    with pytest.raises(ConfigError, match=r"must be <= 100000, got 99999999999999999999"):
        random_player("random?words=99999999999999999999")
    with pytest.raises(ConfigError, match=r"must be <= 100000.*Write e\.g\. words=100000"):
        Registry.load().check_spec("player", "random?words=99999999999999999999")


async def test_random_caps_a_huge_max_len_and_keeps_the_loop_free() -> None:
    # issue 24 item 4: elicit(t, 999999999999999999) reached the player as max_len; it
    # built the move synchronously (memory +25 MB/s, timeouts and signals never served).
    ticks = 0
    done = asyncio.Event()

    async def heartbeat() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            await asyncio.sleep(0)

    beat = asyncio.create_task(heartbeat())
    player = random_player("random?words=100000")
    async with asyncio.timeout(30):
        moves = await player.move(request("s", "t", "x", max_len=999_999_999_999_999_999))
    done.set()
    await beat
    assert all(len(m.split(" ")) == 100_000 for m in moves.values())
    assert ticks > 3  # the loop ran while the moves were built
    drawn = await random_player().move(request("s", max_len=10**18))
    assert 1 <= len(drawn["s"].split(" ")) <= 100_000
