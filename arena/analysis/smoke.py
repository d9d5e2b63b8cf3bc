"""`arena games check`: static check, a seeded smoke match, and well-posedness, per game.

Verdicts: *fail* when the game does not parse or check, or the smoke match hits a runtime
error; *warn* when the header lacks required lines, when the well-posedness check flags a
game whose header does not declare it ill-posed (or misses one that does), when that check
itself fails, or (if asked for) when the base participant's arms curve is flat, i.e. the
game is not playable for it (SCORING.md section 3), or when a role measures nothing against
the NPCs (`arena.analysis.informative`); *pass* otherwise. Games whose header
says they need a strong judge (`# judge: needs a strong judge`) get their well-posedness flag
reported as information only, and a smoke-match error as a warning: a small judge may not
even hold their long debates in its window (the golden playthroughs, played with the
window-less ngram judge, still catch their runtime bugs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.analysis.informative import RoleProbe, probe_roles
from arena.analysis.playability import PlayabilityReport, run_playability
from arena.analysis.wellposed import WellPosedness, check_well_posed
from arena.errors import ArenaError
from arena.lang.header import header_problems
from arena.match_setup import ANALYSIS_POLICY, DEFAULT_MAX_REPLAY, LoadedGame, build_match
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge


@dataclass(frozen=True)
class SmokeResult:
    """The smoke match: who played, round scores per role, forfeits, runtime error."""

    players: dict[str, str]
    scores: dict[str, list[float | None]]
    forfeits: list[str]
    error: str | None
    events: int


@dataclass(frozen=True)
class CheckReport:
    """Everything `arena games check` found about one game."""

    name: str
    filename: str
    version: str = ""
    dialect: str = ""
    roles: tuple[str, ...] = ()
    static_error: str | None = None
    header_problems: tuple[str, ...] = ()
    smoke: SmokeResult | None = None
    wellposed: WellPosedness | None = None
    wellposed_error: str | None = None
    playability: PlayabilityReport | None = None
    declared_ill_posed: bool = False
    needs_strong_judge: bool = False
    info: tuple[str, ...] = field(default=())
    role_probes: tuple[RoleProbe, ...] = ()

    @property
    def uninformative(self) -> list[RoleProbe]:
        """The roles whose entrants all scored alike against the NPCs."""
        return [probe for probe in self.role_probes if probe.uninformative]

    @property
    def failures(self) -> list[str]:
        out = []
        if self.static_error:
            out.append(f"static check: {self.static_error}")
        if self.smoke is not None and self.smoke.error and not self.needs_strong_judge:
            out.append(f"smoke match: {self.smoke.error}")
        return out

    @property
    def warnings(self) -> list[str]:
        out = [f"header: {p}" for p in self.header_problems]
        if self.smoke is not None and self.smoke.error and self.needs_strong_judge:
            out.append(f"smoke match (this game needs a strong judge): {self.smoke.error}")
        if self.wellposed_error:
            out.append(f"well-posedness check failed: {self.wellposed_error}")
        wp = self.wellposed
        if wp is not None and not self.needs_strong_judge:
            if wp.ill_posed and not self.declared_ill_posed:
                out.append(f"flagged ill-posed ({wp.reason})")
            if self.declared_ill_posed and not wp.ill_posed:
                out.append("header says ill-posed but the check did not flag it")
        out += [probe.note for probe in self.uninformative]
        play = self.playability
        if play is not None and play.flat:
            out.append(
                f"not playable for {play.participant}: its arms curve is flat over "
                f"{play.rounds} rounds on {play.maps} maps (SCORING.md section 3)"
            )
        return out

    @property
    def status(self) -> str:
        if self.failures:
            return "fail"
        return "warn" if self.warnings else "pass"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "filename": self.filename,
            "version": self.version,
            "dialect": self.dialect,
            "roles": list(self.roles),
            "status": self.status,
            "failures": self.failures,
            "warnings": self.warnings,
            "info": list(self.info),
            "uninformative_roles": [
                {"role": p.role, "npcs": p.npcs, "scores": p.scores} for p in self.uninformative
            ],
            "header_problems": list(self.header_problems),
            "smoke": None if self.smoke is None else self.smoke.__dict__,
            "wellposed": None if self.wellposed is None else self.wellposed.to_dict(),
            "playability": None if self.playability is None else self.playability.to_dict(),
            "declared_ill_posed": self.declared_ill_posed,
            "needs_strong_judge": self.needs_strong_judge,
        }


async def smoke_match(
    game: LoadedGame, registry: Registry, judge: Judge, *, player: str, seed: int,
    max_replay: int | None,
) -> SmokeResult:
    """One seeded round with `player` (a spec) in every active seat."""
    specs = dict.fromkeys(game.roles, player)
    async with await build_match(
        game, specs, judge=judge, registry=registry, seed=seed, max_replay=max_replay,
        policy=ANALYSIS_POLICY, match_id=f"games:check:{game.name}:{seed}",
    ) as match:
        result = await match.play()
    return SmokeResult(
        players=specs,
        scores={role: list(score.rounds) for role, score in result.scores.items()},
        forfeits=[role for role, score in result.scores.items() if score.forfeit],
        error=result.error,
        events=len(result.events),
    )


async def check_game(
    game: LoadedGame,
    registry: Registry,
    judge: Judge,
    *,
    player: str = "random",
    seed: int = 0,
    max_replay: int | None = DEFAULT_MAX_REPLAY,
    wellposed: bool = True,
    epsilon: float | None = None,
    base: str | None = None,
    maps: int = 4,
    rounds: int = 6,
) -> CheckReport:
    """Check one loaded game (a game that fails to load is reported by `static_failure`).

    With `base` (a player spec), also measure playability for that base participant on
    `maps` maps of `rounds` rounds (NPC roles played by `player`).
    """
    header = game.header
    info = []
    if header.needs_strong_judge:
        info.append(f"needs a strong judge; results with '{judge.info.name}' are not telling")
    smoke = await smoke_match(
        game, registry, judge, player=player, seed=seed, max_replay=max_replay
    )
    probes: list[RoleProbe] = []
    if smoke.error is None:
        probes = await probe_roles(
            game, registry, judge, npc=player, seed=seed, max_replay=max_replay
        )
    report_wp: WellPosedness | None = None
    wp_error: str | None = None
    if wellposed and smoke.error is None:
        try:
            report_wp = await check_well_posed(
                game, judge, seed=seed, epsilon=epsilon, max_replay=max_replay
            )
        except ArenaError as error:
            wp_error = str(error)
        if report_wp is not None:
            info.append(
                f"well-posedness ({report_wp.role}, eps={report_wp.epsilon:.3g}): "
                f"{'ILL-POSED' if report_wp.ill_posed else 'ok'}, {report_wp.reason}"
            )
    play: PlayabilityReport | None = None
    if base is not None and smoke.error is None:
        play = await run_playability(
            game, judge, registry, participant=base, npc=player, maps=maps, rounds=rounds,
            seed=seed, max_replay=max_replay,
        )
        info.append(
            f"playability ({base}, {maps} maps x {rounds} rounds): "
            f"{play.leading_increases} leading increases, {play.increases} in all"
        )
    return CheckReport(
        name=game.name,
        filename=game.filename,
        version=game.version,
        dialect=game.program.dialect_name,
        roles=game.roles,
        header_problems=tuple(header_problems(header, game.roles)),
        smoke=smoke,
        wellposed=report_wp,
        wellposed_error=wp_error,
        playability=play,
        declared_ill_posed=header.declared_ill_posed,
        needs_strong_judge=header.needs_strong_judge,
        info=tuple(info),
        role_probes=tuple(probes),
    )


def static_failure(name: str, filename: str, error: ArenaError) -> CheckReport:
    """The report for a game that does not parse or check."""
    return CheckReport(name=name, filename=filename, static_error=str(error))
