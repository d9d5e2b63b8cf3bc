"""Does every role of a game measure something against these NPCs?

In eval mode one role is played by the entrant and the others by NPCs (SCORING.md
section 2). When the NPCs ignore what a role does (a partner that never reads the
description it is shown), every entrant in that role scores the same: the role tells
entrants apart by nothing. `arena games check` probes each role of a multi-role game: two
different entrants (`random` players with distinct seeds) play it on the smoke map with the
check's player as NPC in every other role; identical scores flag the role, naming the NPC.
A tournament flags the same thing from its stored matches at the end of a run
(`arena.tournaments.ratings.informative`).
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.match_setup import ANALYSIS_POLICY, LoadedGame, SeatSpec, build_match
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.scoring import TIE_TOLERANCE_BITS

PROBE_ENTRANTS = ("random?seed=101", "random?seed=202")
SAME_BITS = TIE_TOLERANCE_BITS  # scores this close count as identical


@dataclass(frozen=True)
class RoleProbe:
    """One role played by the probe entrants, with the NPCs in the other roles."""

    role: str
    npcs: dict[str, str]  # role -> player spec
    scores: dict[str, list[float | None]]  # entrant spec -> round scores

    @property
    def uninformative(self) -> bool:
        """Every entrant got the same score in every round."""
        runs = list(self.scores.values())
        return len(runs) >= 2 and all(_same(run, runs[0]) for run in runs[1:])

    @property
    def note(self) -> str:
        npcs = ", ".join(f"{role}={spec}" for role, spec in self.npcs.items())
        first = next(iter(self.scores.values()), [])
        value = "forfeit" if not first or first[0] is None else f"{first[0]:.2f} bits"
        return (
            f"role {self.role} measures nothing with NPC(s) {npcs}: {len(self.scores)} "
            f"different entrants all scored {value}; in a tournament it would only give ties"
        )


def _same(a: list[float | None], b: list[float | None]) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if (x is None) != (y is None):
            return False
        if x is not None and y is not None and abs(x - y) > SAME_BITS:
            return False
    return True


async def probe_roles(
    game: LoadedGame, registry: Registry, judge: Judge, *, npc: str, seed: int,
    max_replay: int | None,
) -> list[RoleProbe]:
    """Probe every role of a game with two or more active roles (none for one role)."""
    roles = game.roles
    if len(roles) < 2:
        return []
    probes = []
    for role in roles:
        scores: dict[str, list[float | None]] = {}
        for entrant in PROBE_ENTRANTS:
            seats = [SeatSpec(role, entrant, main=True)] + [
                SeatSpec(other, npc, main=False) for other in roles if other != role
            ]
            async with await build_match(
                game, seats, judge=judge, registry=registry, seed=seed, max_replay=max_replay,
                policy=ANALYSIS_POLICY, match_id=f"games:probe:{game.name}:{role}:{entrant}",
            ) as match:
                result = await match.play()
            if result.error is not None:
                break  # the smoke match reports runtime errors
            scores[entrant] = list(result.scores[role].rounds)
        npcs = {other: npc for other in roles if other != role}
        probes.append(RoleProbe(role, npcs, scores))
    return probes
