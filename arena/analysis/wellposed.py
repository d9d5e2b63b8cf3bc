"""Well-posedness (paper Definition 30): is the main player's optimal play unchanged when
the judge's token probabilities are clipped at ε (per token, bits' = min(bits, log2(1/ε)))?

What `check_well_posed` computes, for one map and one main role:

1. Candidate moves for the main role (`CandidatePool`): gibberish at full length ("rare":
   ASCII symbols and two-byte letters, "rarer": two-byte letters, "rarest": three-byte
   letters), seeded random common words, random words of the map texts, spans of the map
   texts, words of the code's string literals; plus the result of a short local search
   (mutate the best, keep improvements) run once with the plain judge and once with the
   clipped judge, from equally seeded random sources. A candidate is a full strategy: one
   text per register the role fills, replayed whenever the role is asked again.
2. The value of a candidate under a judge is the main role's score in a real round played
   by the runtime (loops capped, no ensure retries: a failed ensure forfeits and counts as
   -inf). Other roles play fixed seeded texts, except in a zero-sum game (black against
   white), where the opponent replies with each of a few strategies (copy what it sees,
   random words, a span of a map text) and the value is the main role's *worst* score over
   the replies that did not forfeit: the paradoxical game is ill-posed because white's best
   text depends on black's best reply, so the check lets black reply. (`simulate_move`
   stops at the next elicit, so it cannot value a move against a reply; whole rounds can.)
3. Every candidate is valued with the plain and with the clipped judge. The game is
   flagged ill-posed when either
   - the best move changes with a large regret: the clipped-optimal set Q (ties within
     `tolerance` of the value spread) is not inside the plain-optimal set P, and playing a
     Q move in the real game, or a P move in the clipped one, loses more than `max_regret`
     of the value spread; or
   - clipping erases the preference among the plain game's best moves: the *resolution*
     (clipped gap / plain gap between the plain-best candidate and the worst of the next
     two) is below `min_resolution`, so the plain optimum is decided by probabilities
     below ε. This is how the paradoxical game fails: every long gibberish text saturates
     at the cap, and only unclipped, uncalibrated odds pick one.
   The Spearman correlation of the two rankings is reported; with `min_correlation` it
   flags too.

This is a finite-sample test of Definition 30, not a proof: a flag says that on this map,
with these candidates, optimal play hinges on tokens rarer than ε. The default ε is 1/|V|
(paper Remark 31); for a judge whose tokens are not its vocabulary units (the ngram judge
scores whole words over a 97-character alphabet) pass a smaller ε, e.g. 2**-16.
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from arena.analysis.candidates import (
    Candidate,
    CandidatePool,
    EchoPlayer,
    FixedPlayer,
    main_slots,
    string_literals,
)
from arena.analysis.clipping import ClippedJudge
from arena.analysis.memo import MemoJudge
from arena.analysis.ranking import (
    CandidateScore,
    near_best,
    regret,
    resolution,
    spearman,
)
from arena.lang import names
from arena.match_setup import DEFAULT_MAX_REPLAY, LoadedGame, build_match, resolve_game_map
from arena.protocols.judge import Judge
from arena.protocols.player import Player
from arena.runtime.maps import GameMap
from arena.runtime.round import RoundLimits
from arena.runtime.seat import MovePolicy
from arena.runtime.seeds import derive_seed

NEG_INF = float("-inf")


@dataclass(frozen=True)
class WellPosedness:
    """The result of `check_well_posed` (see the module docstring for what it means)."""

    game: str
    role: str
    map_seed: int
    epsilon: float
    cap_bits: float
    candidates: tuple[CandidateScore, ...]
    replies: int
    spearman: float | None
    best_plain: int
    best_clipped: int
    best_changed: bool
    regret: float
    resolution: float | None
    ill_posed: bool
    reason: str

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for item in data["candidates"]:
            for key in ("plain", "clipped"):
                item[key] = None if math.isinf(item[key]) else item[key]
        data["regret"] = None if math.isinf(self.regret) else self.regret
        return data


def _argmax(values: Sequence[float]) -> int:
    return max(range(len(values)), key=lambda i: values[i]) if values else -1


class _Valuer:
    """Plays rounds with fixed strategies and values the main role's candidates."""

    def __init__(
        self, game: LoadedGame, game_map: GameMap, role: str, pool: CandidatePool,
        replies: int, seed: int, max_replay: int | None,
    ) -> None:
        self.game, self.game_map, self.role = game, game_map, role
        self.seed, self.max_replay = seed, max_replay
        partner = names.ZERO_SUM_PARTNER.get(role)
        self.opponent = partner if partner in game.roles else None
        self.npc_texts = {r: (pool.text("common"),) for r in game.roles if r != role}
        self.reply_texts = [(pool.text(o),) for o in ("common", "span", "map")][: replies - 1]
        self.replies = 1 + len(self.reply_texts) if self.opponent else 0
        self._cache: dict[tuple[int, Candidate], float] = {}

    def _reply(self, index: int) -> Player:
        return EchoPlayer() if index == 0 else FixedPlayer(self.reply_texts[index - 1])

    async def _round(self, candidate: Candidate, judge: Judge, reply: int) -> tuple[float, bool]:
        players: dict[str, Player] = {
            r: FixedPlayer(t, label=f"npc:{r}") for r, t in self.npc_texts.items()
        }
        players[self.role] = FixedPlayer(candidate, label="candidate")
        if self.opponent:
            players[self.opponent] = self._reply(reply)
        # A probe of candidate moves, not a match: no registry, so no plugin sees it.
        match = await build_match(
            self.game, players, judge=judge, registry=None, seed=self.seed,
            max_replay=self.max_replay, limits=RoundLimits(ensure_budget=0),
            policy=MovePolicy(timeout_s=None),
        )
        result = await match.play(self.game_map)
        if result.error is not None or result.no_result is not None:
            return NEG_INF, False
        score = result.scores[self.role].rounds[0]
        opponent_forfeit = self.opponent is not None and result.scores[self.opponent].forfeit
        return (NEG_INF if score is None else score), opponent_forfeit

    async def value(self, candidate: Candidate, judge: Judge) -> float:
        key = (id(judge), candidate)
        if key not in self._cache:
            if not self.opponent:
                self._cache[key] = (await self._round(candidate, judge, 0))[0]
            else:
                outcomes = [await self._round(candidate, judge, r) for r in range(self.replies)]
                valid = [score for score, forfeit in outcomes if not forfeit]
                self._cache[key] = min(valid) if valid else outcomes[0][0]
        return self._cache[key]


async def _local_search(
    valuer: _Valuer, pool: CandidatePool, judge: Judge, start: Candidate, steps: int,
    width: int, seed: int,
) -> Candidate:
    """Hill climbing from `start`. Both searches get the same `seed`, so they propose the
    same mutations and part ways only where clipping changes which proposals win."""
    rng = random.Random(seed)
    best, best_value = start, await valuer.value(start, judge)
    for _ in range(steps):
        tries = list(dict.fromkeys(pool.mutate(best, rng) for _ in range(width)))
        values = await asyncio.gather(*(valuer.value(c, judge) for c in tries))
        index = _argmax(values)
        if values[index] > best_value:
            best, best_value = tries[index], values[index]
    return best


async def check_well_posed(
    game: LoadedGame,
    judge: Judge,
    *,
    role: str | None = None,
    epsilon: float | None = None,
    seed: int = 0,
    candidates: int = 8,
    search_steps: int = 4,
    search_width: int = 4,
    replies: int = 3,
    max_replay: int | None = DEFAULT_MAX_REPLAY,
    max_regret: float = 0.25,
    min_resolution: float = 0.25,
    min_correlation: float | None = None,
    tolerance: float = 0.01,
) -> WellPosedness:
    """Compare the main role's ranking of candidate moves with and without ε-clipping.

    `epsilon` defaults to 1/|V| of the judge; `seed` is the map seed and seeds the
    candidates. See the module docstring for the exact procedure and flag.
    """
    main = game.main_role(role)
    plain = MemoJudge(judge)
    clipped = ClippedJudge(plain, epsilon)
    game_map = await resolve_game_map(game, judge, seed)
    slots, max_len = main_slots(game.program, main)
    pool_seed = derive_seed("wellposed", seed, game.name)
    pool = CandidatePool(
        list(game_map.stories.values()),
        seed=pool_seed,
        slots=slots,
        max_len=max_len,
        code_texts=string_literals(game.program),
    )
    valuer = _Valuer(game, game_map, main, pool, max(1, replies), seed, max_replay)
    found = pool.initial(max(2, candidates))
    for label, scoring in (("plain", plain), ("clipped", clipped)):
        values = [await valuer.value(c, scoring) for _, c in found]
        start = found[_argmax(values)][1]
        result = await _local_search(
            valuer, pool, scoring, start, search_steps, search_width, pool_seed + 1
        )
        found.append((f"search:{label}", result))
    unique: dict[Candidate, str] = {}
    for origin, candidate in found:
        unique.setdefault(candidate, origin)
    scores = tuple(
        [
            CandidateScore(o, c, await valuer.value(c, plain), await valuer.value(c, clipped))
            for c, o in unique.items()
        ]
    )
    return _verdict(
        game, main, seed, clipped, scores, valuer.replies, max_regret=max_regret,
        min_resolution=min_resolution, min_correlation=min_correlation, tolerance=tolerance,
    )


def _verdict(
    game: LoadedGame, role: str, seed: int, clipped: ClippedJudge,
    scores: tuple[CandidateScore, ...], replies: int, *, max_regret: float,
    min_resolution: float, min_correlation: float | None, tolerance: float,
) -> WellPosedness:
    plain_values = [s.plain for s in scores]
    clipped_values = [s.clipped for s in scores]
    both = [i for i, s in enumerate(scores) if math.isfinite(s.plain) and math.isfinite(s.clipped)]
    rho = spearman([plain_values[i] for i in both], [clipped_values[i] for i in both])
    top_plain = near_best(plain_values, tolerance)
    top_clipped = near_best(clipped_values, tolerance)
    changed = not top_clipped <= top_plain
    # Following clipped-optimal play in the real game, and plain-optimal play in the
    # clipped one: a well-posed game loses little either way.
    loss = max(
        regret(plain_values, top_clipped, top_plain),
        regret(clipped_values, top_plain, top_clipped),
    )
    low = rho is not None and min_correlation is not None and rho < min_correlation
    kept = resolution(scores)
    blurred = kept is not None and kept < min_resolution
    ill = (changed and loss > max_regret) or blurred or low
    if not top_plain and not top_clipped:
        reason = "no feasible candidate: every candidate forfeited"
    elif blurred:
        reason = (
            f"clipping erases the preference among the best moves (resolution {kept:.2f} "
            f"< {min_resolution}): the optimum rests on probabilities below epsilon"
        )
    elif changed and loss > max_regret:
        reason = (
            f"best move changes under clipping (regret {loss:.2f} > {max_regret}): "
            f"clipped-optimal {sorted(top_clipped)}, plain-optimal {sorted(top_plain)}"
        )
    elif low:
        reason = f"rank correlation {rho:.2f} below {min_correlation}"
    elif changed:
        reason = f"best move changes under clipping, but only slightly (regret {loss:.2f})"
    else:
        reason = "best move unchanged under clipping"
    return WellPosedness(
        game=game.name, role=role, map_seed=seed, epsilon=clipped.epsilon,
        cap_bits=clipped.cap_bits, candidates=scores, replies=replies, spearman=rho,
        best_plain=_argmax(plain_values), best_clipped=_argmax(clipped_values),
        best_changed=changed, regret=loss, resolution=kept, ill_posed=ill, reason=reason,
    )
