"""The bundled games (XGL and dialect-xent files, registered by `arena.games.plugin`) and the
names of the published Xent benchmark's six games, which the benchmark's config import and
its prompt presentation both need."""

from __future__ import annotations

XENT_BENCHMARK_GAMES = ("Condense", "Contrast", "Alethiometer", "Two-Ways", "Synthesize", "Horizon")


def xent_benchmark_game(name: str) -> str | None:
    """The benchmark game a game name stands for ("Two-Ways", "two_ways"), or None."""
    wanted = _key(name)
    return next((g for g in XENT_BENCHMARK_GAMES if _key(g) == wanted), None)


def _key(name: str) -> str:
    return "".join(c for c in name.lower() if c.isalnum())
