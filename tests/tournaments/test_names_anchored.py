"""Names (tournament, participant, game label, schedule) are whole-string checked (issue 24
item 11): the name pattern was not anchored, so pydantic's search accepted control
characters, HTML, newlines and right-to-left marks around one valid character."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.specs import NAME_RE
from arena.storage import sqlite_url
from arena.tournaments.planning.config import parse_tournament
from arena.tournaments.planning.config_errors import TournamentConfigError
from arena.tournaments.services.recurring.cli import main as recurring_main
from tests.tournaments import arena_fixtures as fx

BUILTIN_ONLY = fx.SMALL.replace('"sleepy?words=2"', '"random?words=2"').replace(
    '"sleepy?words=3"', '"scripted:a story|the cat"'
)
HOSTILE = [
    "a<script>alert(1)</script>", "a\nb", "ok\n", "ok\u202e", "x\x00y", "\x1b[31mred", "a b",
    "<b>", "tab\t",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_name_is_refused_everywhere_in_a_tournament_file(name: str) -> None:
    data = {
        "name": name,
        "participants": [{"name": name, "player": "random"}],
        "games": [{"game": "condense", "name": name}],
    }
    with pytest.raises(TournamentConfigError) as error:
        parse_tournament(data)
    paths = {p.path for p in error.value.problems}
    assert "name" in paths
    assert any(p.startswith("participants[0]") and p.endswith(".name") for p in paths)
    assert any(p.startswith("games[0]") and p.endswith(".name") for p in paths)
    message = str(error.value)
    assert "a name may hold only letters, digits, '_', '.' and '-'" in message
    assert not NAME_RE.fullmatch(name)


def test_ordinary_names_still_pass() -> None:
    for name in ("gpt-4o", "run_2.1", "A", "x" * 64):
        assert NAME_RE.fullmatch(name)
    parse_tournament({
        "name": "ok-1", "participants": [{"name": "p.1", "player": "random"}],
        "games": [{"game": "condense", "name": "g_1"}],
    })


def test_a_hostile_schedule_name_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = fx.tournament_file(tmp_path, BUILTIN_ONLY)
    db = sqlite_url(tmp_path / "s.db")
    code = 0
    try:
        recurring_main(["schedule", "add", str(path), "--every", "5", "--name",
                        "<img src=x>\u202e", "--db", db])
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    assert code == 2
    err = capsys.readouterr().err
    assert "may hold only letters, digits" in err and "Traceback" not in err
