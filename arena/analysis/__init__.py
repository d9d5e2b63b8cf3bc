"""Tools that judge whether a game is worth playing: static and smoke checks, the paper's
well-posedness (Definition 30) and playability (Definition 33) measurements, and golden
playthroughs. Judges and players are reached through the registry by name only."""

from __future__ import annotations

from arena.analysis.clipping import ClippedJudge, clip_bits
from arena.analysis.playability import PlayabilityReport, run_playability
from arena.analysis.ranking import CandidateScore, spearman
from arena.analysis.smoke import CheckReport, check_game
from arena.analysis.wellposed import WellPosedness, check_well_posed

__all__ = [
    "CandidateScore",
    "CheckReport",
    "ClippedJudge",
    "PlayabilityReport",
    "WellPosedness",
    "check_game",
    "check_well_posed",
    "clip_bits",
    "run_playability",
    "spearman",
]
