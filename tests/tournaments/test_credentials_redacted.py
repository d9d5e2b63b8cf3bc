"""Credentials in a spec never reach the database, stored events, printed sentences or the
dashboard's data (issue 24, item 8): the reproduction was an `api_base` carrying
user:password, stored in participants, their params and a forfeit's reason."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena.cli import main as cli_main
from arena.errors import ConfigError, PlayerError
from arena.events import Forfeit, Reveal
from arena.plugins.registry import Registry
from arena.redaction import redact_params
from arena.storage import sqlite_url
from arena.storage.event_codec import decode_events, encode_events
from arena.tournaments.services.run_config import run_file
from tests.support.openai_compat_server import ServerState, start_server
from tests.tournaments import arena_fixtures as fx

PASSWORD = "hunter2pass"
KEY = "sk-abcdefghijklmnopqrstuv"


@pytest.fixture(scope="module")
def registry() -> Registry:
    return fx.registry()


def tournament(url: str) -> str:
    credentialed = url.replace("http://", f"http://alice:{PASSWORD}@")
    return fx.SMALL.replace(
        'player = "sleepy?words=3"',
        f'player = "litellm:openai/m?api_base={credentialed}&retries=0&backoff=0"',
    )


async def test_a_url_password_is_stored_nowhere(tmp_path: Path, registry: Registry) -> None:
    # Every request fails, so each move is a forfeit whose reason quotes the player's spec.
    state = ServerState(default={"status": 500})
    async with start_server(state=state) as url:
        path = fx.tournament_file(tmp_path, tournament(url))
        db_file = tmp_path / "cred.db"
        summary = await run_file(path, db=sqlite_url(db_file), registry=registry)
    assert summary.written > 0
    files = list(tmp_path.glob("cred.db*"))
    assert files
    for file in files:
        data = file.read_bytes()
        assert PASSWORD.encode() not in data, file
    # The redacted form is what is stored, so the dashboard shows where the player points,
    # and the forfeits' reasons (which quote the spec) are kept, redacted.
    with sqlite3.connect(db_file) as conn:
        specs = [r[0] for r in conn.execute("SELECT spec FROM participants")]
        reasons = [r[0] for r in conn.execute("SELECT payload FROM events WHERE type='forfeit'")]
    assert any(spec.startswith("litellm:openai/m?api_base=http://***@127.0.0.1") for spec in specs)
    assert reasons and all("***@127.0.0.1" in reason for reason in reasons), reasons[:1]


def test_error_sentences_are_redacted() -> None:
    spec = f"litellm:m?api_key={KEY}&api_base=http://alice:{PASSWORD}@127.0.0.1/v1&x=1"
    for error in (ConfigError(f"Unknown parameter 'x' for player '{spec}'."),
                  PlayerError(f"LLM player '{spec}' failed")):
        text = str(error)
        assert KEY not in text and PASSWORD not in text
        assert "api_key=***" in text and "http://***@127.0.0.1" in text


def test_stored_params_and_events_are_redacted() -> None:
    params = {"api_base": f"http://u:{PASSWORD}@h/v1", "token": "plain", "words": "3"}
    assert redact_params(params) == {"api_base": "http://***@h/v1", "token": "***", "words": "3"}
    # every stored event goes through the storage codec, which redacts each string
    leaky = Forfeit(round=1, line=2, player="black", reason=f"player 'm?api_key={KEY}&t=1' failed")
    plain = Reveal(round=1, line=3, player="alice", values={"s": "the cat sat"})
    payloads = encode_events([leaky, plain])
    assert KEY not in "".join(payloads)
    stored_leaky, stored_plain = decode_events(payloads)
    assert isinstance(stored_leaky, Forfeit)
    assert stored_leaky.reason == "player 'm?api_key=***&t=1' failed"
    assert stored_plain == plain  # nothing to redact: stored as it was


def test_schedule_add_never_echoes_a_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = tournament("http://127.0.0.1:9/v1").replace("&retries=0", "&retries=0&bogus=1")
    path = fx.tournament_file(tmp_path, body)
    for args in (["schedule", "add", str(path), "--every", "60"], ["run", str(path)]):
        with pytest.raises(SystemExit) as exit_:
            cli_main([*args, "--db", sqlite_url(tmp_path / "s.db")])
        assert exit_.value.code == 2
        captured = capsys.readouterr()
        shown = captured.out + captured.err
        assert "bogus" in shown, shown  # the problem is named ...
        assert PASSWORD not in shown  # ... and the password is not


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # issue 29 item 11, the three misses: a key in the query of an api_base value ...
        ("litellm:m?api_base=http://h/v1?key=SECRETVALUE&x=1",
         "litellm:m?api_base=http://h/v1?key=***&x=1"),
        # ... a password that holds '@' (postgres URLs, api_base) ...
        ("postgresql+psycopg://arena:p@ssSECRETVALUE@db.local/arena",
         "postgresql+psycopg://***@db.local/arena"),
        ("litellm:m?api_base=http://u:a@bSECRETVALUE@h/v1",
         "litellm:m?api_base=http://***@h/v1"),
        # ... and a scheme-relative URL
        ("api at //user:SECRETVALUE@host/v1 failed", "api at //***@host/v1 failed"),
        ("remote:x?url=%2F%2Fu%3ASECRETVALUE%40h", "remote:x?url=%2F%2F***%40h"),
    ],
)
def test_the_credentials_redaction_missed_are_hidden(text: str, shown: str) -> None:
    assert str(ConfigError(text)) == shown
    assert "SECRETVALUE" not in str(ConfigError(text))


def test_what_is_no_credential_is_left_as_it_was() -> None:
    for text in ("sqlite:////tmp/arena.db", "see http://host/@user and mail a@b.example",
                 "litellm:m?max_tokens=5&monkey=3&design=2", "scripted:a|b"):
        assert str(ConfigError(text)) == text
