"""The echo player passes the arena's conformance kit (run with the plugin installed)."""

from arena_echo_player import create_echo_player

from arena.testing import check_player


def test_the_echo_player_plays_the_check_game() -> None:
    result = check_player(create_echo_player, "echo?words=3", rounds=2)
    moves = [e.values["t"] for e in result.events if e.type == "elicit_response"]
    assert all(len(move.split()) <= 3 for move in moves)
