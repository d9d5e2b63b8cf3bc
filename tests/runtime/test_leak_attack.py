"""The information set holds against an attacker that has the judge's weights (issue 14).

A player written as code reads only its `MoveRequest`s, over several rounds, and tries to
rebuild the story hidden from it: from its reward feedback (per-token values matched
against the judge's vocabulary) and from the seeds it receives (brute force over small
play seeds, then regenerating the map). Today it recovers nothing beyond its blind guess;
fed what the old runtime sent (every per-token value, seeds derived from the play seed),
the same code recovers the story, so the test can tell a leak when there is one.
"""

from __future__ import annotations

import hashlib
import string
from collections.abc import Mapping, Sequence
from dataclasses import replace

import pytest

from arena.events import ElicitResponse, Event, Reward
from arena.judges.hf.bundled_judge import create_bundled_judge
from arena.judges.ngram import NgramJudge
from arena.match_setup import build_match, load_game_ref
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_manager import create_plugin_manager
from arena.plugins.plugin_types import PlayerContext, PlayerEntry
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.protocols.player import HistoryItem
from arena.runtime.maps import JudgeStorySource, resolve_map
from arena.runtime.seeds import derive_seed, new_seed_key, public_seed_key, seat_seed, story_seed
from arena.specs import Spec
from tests.runtime.helpers import ListPlayer
from tests.runtime.leak_attack import (
    Attacker,
    JudgeCopy,
    accuracy,
    all_items,
    blind_guess,
    old_view,
    reconstruct,
    recover_play_seed,
)

PLAY_SEED = 3  # small on purpose: the old derivation gave it away
ROUNDS = 3
SEED_TRIES = 5_000


@pytest.fixture(scope="module")
def judge() -> Judge:
    return create_bundled_judge({})


@pytest.fixture(scope="module")
def copy() -> JudgeCopy:
    return JudgeCopy()


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry.load()


def story_of(events: Sequence[Event], register: str) -> str:
    return str(
        next(e.values[register] for e in events if e.type == "assign" and register in e.values)
    )


def old_feedback(events: Sequence[Event], role: str) -> list[HistoryItem]:
    """What the old runtime told the attacker, in order: its moves and every term's
    per-token values (the events keep the organiser's full breakdown)."""
    items: list[HistoryItem] = []
    for e in events:
        if isinstance(e, ElicitResponse) and e.player == role:
            items.append(HistoryItem(kind="move", line=e.line, moves=dict(e.values)))
        elif isinstance(e, Reward) and e.player == role:
            terms = tuple(old_view(t.bits, t.source) for t in e.terms)
            items.append(HistoryItem(kind="reward", line=e.line, reward=e.total, terms=terms))
    return items


async def attack(
    game_name: str,
    seats: Mapping[str, object],
    attacker_role: str,
    target: str,
    register: str,
    judge: Judge,
    copy: JudgeCopy,
    registry: Registry,
) -> dict[str, object]:
    game = load_game_ref(game_name, registry)
    attacker = seats[attacker_role]
    assert isinstance(attacker, Attacker)
    # A secret key as `arena play` draws one, fixed here so the hidden story (sampled under
    # it) and with it the control's figures below are the same on every run.
    key = hashlib.sha256(b"leak-attack test key").digest()
    async with await build_match(
        game,
        seats,  # type: ignore[arg-type]
        judge=judge,
        registry=None,
        seed=PLAY_SEED,
        rounds=ROUNDS,
        main_roles=(attacker_role,),
        seed_key=key,
    ) as match:
        result = await match.play()
    assert result.error is None and len(attacker.requests) >= ROUNDS
    hidden = story_of(result.events, target)
    truth = copy.ids(hidden)
    blind = blind_guess(copy, len(truth))
    now = reconstruct(copy, all_items(attacker.requests), target, register)
    old = reconstruct(copy, old_feedback(result.events, attacker_role), target, register)
    legacy_requests = [
        replace(r, seed=derive_seed("move", PLAY_SEED, r.round, r.line, r.role, r.attempt))
        for r in attacker.requests
    ]
    return {
        "game": game,
        "hidden": hidden,
        "truth": truth,
        "blind": accuracy(blind, truth),
        "now": accuracy(now or blind, truth),
        "now_used": now is not None,
        "old": accuracy(old or blind, truth),
        "old_used": old is not None,
        "seed_now": recover_play_seed(attacker.requests, SEED_TRIES),
        "seed_old": recover_play_seed(legacy_requests, SEED_TRIES),
        "key": key,
    }


async def check(found: dict[str, object], judge: Judge) -> None:
    print(  # the figures, for `pytest -s`
        f"{found['game'].name}: {len(found['truth'])} hidden tokens; "  # type: ignore[attr-defined, arg-type]
        f"blind {found['blind']:.2f}, now {found['now']:.2f}, old feedback {found['old']:.2f}; "
        f"seed found now {found['seed_now']}, old {found['seed_old']}"
    )
    # Feedback: nothing per-token reaches the attacker, so it does no better than blind.
    assert found["now_used"] is False
    assert found["now"] <= found["blind"]  # type: ignore[operator]
    # The same code on the old feedback rebuilds the story: the test detects a leak.
    # (how much of it depends on the judge's last bits: alternating_guessing rebuilds 1.00 of
    # it with AVX2 kernels, 0.70 with AVX-512 ones on an AMD EPYC; blind guessing 0.05)
    assert found["old_used"] is True and found["old"] >= 0.6, found["old"]  # type: ignore[operator]
    assert found["old"] > found["blind"] + 0.5  # type: ignore[operator]
    # Seeds: nothing below SEED_TRIES explains what it received; with the old derivation
    # the play seed falls out. The map seed used to be the play seed itself; now even a
    # known play seed does not regenerate the story: its texts are sampled under the
    # match's secret key, which the organiser (holding it) still reproduces them with.
    assert found["seed_now"] is None
    assert found["seed_old"] == PLAY_SEED
    program = found["game"].program  # type: ignore[attr-defined]
    source = JudgeStorySource(judge)
    unkeyed = await resolve_map(program, PLAY_SEED, source)
    assert found["hidden"] not in unkeyed.stories.values()
    keyed = await resolve_map(program, story_seed(found["key"], PLAY_SEED), source)  # type: ignore[arg-type]
    assert found["hidden"] in keyed.stories.values()


async def test_describe_to_partner_bob_learns_nothing_of_the_story(
    judge: Judge, copy: JudgeCopy, registry: Registry
) -> None:
    seats = {
        "alice": ListPlayer(["a fisherman and his boat"]),
        "bob": Attacker({"s0": ["the sea", "a boat at night", "fish and nets"]}),
    }
    found = await attack("describe_to_partner", seats, "bob", "s", "s0", judge, copy, registry)
    await check(found, judge)


async def test_censored_message_bob_learns_nothing_of_the_story(
    judge: Judge, copy: JudgeCopy, registry: Registry
) -> None:
    seats = {
        "alice": ListPlayer(["a fisherman and his boat"]),
        "carol": ListPlayer(["boat"]),
        "bob": Attacker({"t1": ["the sea", "a boat at night", "fish and nets"]}),
    }
    found = await attack("censored_message", seats, "bob", "s", "t1", judge, copy, registry)
    await check(found, judge)


async def test_alternating_guessing_alice_covering_the_alphabet_learns_nothing(
    judge: Judge, copy: JudgeCopy, registry: Registry
) -> None:
    # Issue 24: one character per move until her moves cover every character the story
    # could hold; the old rule then sent every term over the story in full.
    alphabet = [c for c in string.printable if not c.isspace()]
    seats = {"alice": Attacker({"t": alphabet})}
    found = await attack("alternating_guessing", seats, "alice", "s", "t", judge, copy, registry)
    assert set(str(found["hidden"])) <= set(alphabet) | {" "}  # covered
    await check(found, judge)


class ContextSpy:
    """A plugin whose player factory keeps the `PlayerContext` seeds it is given."""

    def __init__(self) -> None:
        self.seeds: list[tuple[str, int]] = []

    @hookimpl
    def arena_players(self) -> list[PlayerEntry]:
        def make(spec: Spec, ctx: PlayerContext) -> ListPlayer:
            self.seeds.append((ctx.role, ctx.seed))
            return ListPlayer(["a guess"])

        return [PlayerEntry("spy", make)]


def explains(role: str, seed: int, candidate: int) -> bool:
    """Would `candidate` as play seed give this context seed, old way or public key?"""
    return seed in (
        candidate,  # old `arena play`: the seed itself
        derive_seed("seat", candidate, role),  # old tournaments
        seat_seed(public_seed_key(candidate), candidate, role),
    )


async def test_context_seeds_do_not_give_the_play_seed_away() -> None:
    spy = ContextSpy()
    pm = create_plugin_manager()
    pm.register_plugin(spy, "context_spy")
    registry = Registry.from_plugin_manager(pm)
    game = load_game_ref("describe_to_partner", registry)
    async with await build_match(
        game,
        {"alice": "spy", "bob": "spy"},
        judge=NgramJudge(),
        registry=registry,
        seed=PLAY_SEED,
        rounds=2,
        main_roles=("alice",),
        seed_key=new_seed_key(),
    ) as match:
        await match.play()
    assert {role for role, _ in spy.seeds} == {"alice", "bob"} and len(spy.seeds) == 3
    found = [c for c in range(SEED_TRIES) if all(explains(r, s, c) for r, s in spy.seeds)]
    assert found == []
    # the old derivations are found by the same search
    old = [(role, derive_seed("seat", PLAY_SEED, role)) for role, _ in spy.seeds]
    assert [c for c in range(SEED_TRIES) if all(explains(r, s, c) for r, s in old)] == [PLAY_SEED]
