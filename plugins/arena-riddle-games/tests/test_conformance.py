"""Every riddle game loads and plays a seeded round (run with the plugin installed)."""

from arena_riddle_games.plugin import arena_games

from arena.testing import check_games


def test_every_riddle_game_loads_and_plays() -> None:
    results = check_games(arena_games())
    assert set(results) == {"riddle", "riddle_duel", "riddle_guess"}
