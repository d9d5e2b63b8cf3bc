"""`untrusted_entrants = true`: a tournament between strangers' agents refuses entrants
whose player is third-party code in the arena's process; they enter as `remote:` agents."""

from __future__ import annotations

import pytest

from arena.plugins.registry import Registry
from arena.tournaments.planning.config import parse_tournament
from arena.tournaments.planning.config_errors import TournamentConfigError
from arena.tournaments.running.prepare import prepare_tournament
from tests.tournaments import arena_fixtures as fx


@pytest.fixture(scope="module")
def registry() -> Registry:
    return fx.registry()


def document(untrusted: bool, entrant: str, npc: str = "random") -> dict[str, object]:
    return {
        "name": "strangers", "judge": "ngram", "npc": "npc", "untrusted_entrants": untrusted,
        "participants": [
            {"name": "npc", "player": npc, "npc_only": True},
            {"name": "stranger", "player": entrant},
            {"name": "baseline", "player": "random?words=3"},
        ],
        "games": [{"game": "condense"}],
    }


def test_a_third_party_entrant_is_refused_with_the_remote_path(registry: Registry) -> None:
    assert not registry.player_is_builtin("sleepy") and registry.player_is_builtin("random")
    with pytest.raises(TournamentConfigError) as info:
        prepare_tournament(parse_tournament(document(True, "sleepy?words=2")), registry)
    message = str(info.value)
    assert "participants[1](stranger).player" in message
    assert "plugin 'tournament_test_fixtures'" in message and "inside the arena" in message
    assert 'player = "remote:stranger?token_env=TOKEN_VAR"' in message
    assert "baseline" not in message  # built-in players stay allowed


def test_remote_and_built_in_entrants_pass_and_npcs_are_the_organisers(registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_REMOTE_TOKEN", "a-secret-for-the-agent")
    prepared = prepare_tournament(
        parse_tournament(document(True, "remote:stranger", npc="sleepy?words=2")), registry
    )
    assert prepared.entrants == ("stranger", "baseline")
    # Without the option the organiser trusts the code it installed.
    assert prepare_tournament(parse_tournament(document(False, "sleepy")), registry).entrants
