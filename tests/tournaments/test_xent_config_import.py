"""`arena import-benchmark`: the published Xent benchmark configs (vendored copies of
xentlabs/xent's configs/, MIT) become tournament files that `arena run` plays on exactly the
published maps: stories byte-identical, map seeds as map names, the config's games, rounds and
players."""

from __future__ import annotations

import ast
import json
import sqlite3
import tomllib
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli import build_app
from arena.plugins.registry import Registry
from arena.tournaments.planning.config import load_tournament
from arena.tournaments.services.exchange.formats import detect_format
from arena.tournaments.services.exchange.xent_config import parse_config, write_tournament

DATA = Path(__file__).resolve().parents[1] / "data" / "xent_configs"
CONFIGS = {"0.1": DATA / "benchmark0.1.json", "0.2": DATA / "benchmark0.2.json"}
APP = build_app()
GAMES = Path(__file__).resolve().parents[2] / "arena" / "games"
BUNDLED = {"Condense": "condense", "Contrast": "contrast", "Alethiometer": "alethiometer",
           "Two-Ways": "two_ways", "Synthesize": "synthesize", "Horizon": "horizon"}


def config(version: str) -> Any:
    return json.loads(CONFIGS[version].read_text(encoding="utf-8"))


def rules(code: str) -> list[str]:
    """Instructions without comments or blank lines."""
    return [line.split("#")[0].rstrip() for line in code.splitlines() if line.split("#")[0].strip()]


def program(code: str) -> str:
    """The code's Python syntax tree (the reference writes maps with ast.unparse, which may
    requote strings that are no stories; comments drop out)."""
    return ast.dump(ast.parse(code))


def published_maps(version: str) -> dict[tuple[str, str], str]:
    """(game, map seed) -> the map's code as the config publishes it."""
    data = config(version)
    if version == "0.1":
        return {(e["game"]["name"], e["map_seed"]): e["game"]["code"] for e in data["games"]}
    return {(m["name"], m["map_seed"]): m["code"] for m in data["maps"]}


def with_stories(game_code: str, stories: list[str]) -> str:
    """The game code with each story() written as the reference's expansion writes it."""
    for text in stories:
        game_code = game_code.replace("story()", repr(text), 1)
    return game_code


def test_both_published_configs_parse_as_published() -> None:
    new = parse_config(config("0.2"))
    assert (new.benchmark_id, new.judge_model, new.rounds) == (
        "benchmark_0.2", "Qwen/Qwen3-14B-Base", 20)
    assert [g.name for g in new.games] == list(BUNDLED)
    assert {g: len(m) for g, m in new.maps.items()} == dict.fromkeys(BUNDLED, 10)
    assert len(new.players) == 11 and new.players[0].model == "gpt-5"
    assert new.maps["Condense"][3].name == "gameCondense_map3"
    old = parse_config(config("0.1"))
    assert [g.name for g in old.games] == ["single", "dex", "multi"]
    assert {g: len(m) for g, m in old.maps.items()} == {"single": 20, "dex": 20, "multi": 20}
    assert [p.ident for p in old.players] == ["o4-mini", "gpt-4o", "grok-3", "gemini-2.5-flash"]
    assert rules(old.games[1].code)[0] == "assign(s1=story(), s2=story())"


@pytest.mark.parametrize("version", ["0.1", "0.2"])
def test_every_published_map_is_its_game_code_with_our_stored_stories(version: str) -> None:
    bench = parse_config(config(version))
    code = {g.name: g.code for g in bench.games}
    stored = {(g, m.name): list(m.stories) for g, maps in bench.maps.items() for m in maps}
    published = published_maps(version)
    assert set(stored) == set(published)
    for key, texts in stored.items():
        rebuilt = with_stories(code[key[0]], texts)
        assert program(rebuilt) == program(published[key]), key


def test_the_benchmark_games_have_our_bundled_games_rules() -> None:
    for game in config("0.2")["games"]:
        ours = (GAMES / f"{BUNDLED[game['name']]}.xent").read_text(encoding="utf-8")
        theirs = rules(game["code"])
        if game["name"] == "Horizon":  # the same rules; our constants are named c, c1
            theirs = [r.replace("t1", "c").replace("t2", "c1") for r in theirs]
        assert rules(ours) == theirs, game["name"]


def test_a_config_is_detected_from_its_content() -> None:
    for path in CONFIGS.values():
        fmt, _ = detect_format(path, path.read_text(encoding="utf-8"))
        assert fmt == "xent-config"


def test_cli_import_writes_a_tournament_with_the_config_judge_players_and_games(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    ran = CliRunner().invoke(APP, ["import-benchmark", str(CONFIGS["0.2"]), "--out", str(out)])
    assert ran.exit_code == 0, ran.output
    assert "6 games, 11 players, 20 rounds, 60 published maps" in ran.output
    doc = tomllib.loads((out / "tournament.toml").read_text(encoding="utf-8"))
    assert doc["judge"] == "hf:Qwen/Qwen3-14B-Base?tf32=0" and doc["rounds"] == 20
    assert doc["stories"] == "xent-maps:maps.json"  # beside the file (issue 31, item 7)
    specs = {p["name"]: p["player"] for p in doc["participants"]}
    reference = "prompt=xent-benchmark&temperature=none&timeout=600"
    assert specs["gpt-5"] == f"litellm:openai/gpt-5?max_tokens=none&{reference}"
    assert specs["grok-4-0709"] == f"litellm:xai/grok-4-0709?max_tokens=none&{reference}"
    assert specs["gemini-2.5-pro"] == f"litellm:gemini/gemini-2.5-pro?max_tokens=none&{reference}"
    assert specs["claude-opus-4-1-20250805"] == (
        f"litellm:anthropic/claude-opus-4-1-20250805?max_tokens=4096&{reference}")
    for name, spec in specs.items():  # every spec the import wrote is printed
        assert f"  {name}: {spec}" in ran.output
    assert [(g["name"], g["maps"], g["dialect"]) for g in doc["games"]] == [
        (name, 10, "xent@2025-09") for name in BUNDLED]  # the rules of xega 0.1.0, its version
    for game in config("0.2")["games"]:
        written = (out / "games" / f"{game['name']}.xent").read_text(encoding="utf-8")
        assert written == game["code"]
    # the file validates against the installed plugins (litellm specs, the xent-maps source)
    load_tournament(out / "tournament.toml", Registry.load())


def test_benchmark_0_1_players_keep_our_prompt(tmp_path: Path) -> None:
    """0.1's games (single, dex, multi) have no published presentation to follow."""
    toml = write_tournament(parse_config(config("0.1")), tmp_path / "old")
    doc = tomllib.loads(toml.read_text(encoding="utf-8"))
    assert {p["player"] for p in doc["participants"]} >= {
        "litellm:openai/o4-mini?max_tokens=none&temperature=none&timeout=600"}
    assert all("prompt=" not in p["player"] for p in doc["participants"])


def test_a_condensed_config_samples_its_maps_from_the_judge(tmp_path: Path) -> None:
    data = config("0.2")
    condensed = {
        "config_type": "condensed_xent_config", "metadata": data["metadata"],
        "players": data["players"][:1], "games": data["games"][:2],
        "expansion_config": {"num_maps_per_game": 3, "text_generation_config": {
            "generator_type": "JUDGE", "generator_config": {}, "max_length": 50}},
    }
    path = tmp_path / "condensed.json"
    path.write_text(json.dumps(condensed), encoding="utf-8")
    ran = CliRunner().invoke(APP, ["import-benchmark", str(path), "--out", str(tmp_path / "c")])
    assert ran.exit_code == 0, ran.output
    doc = tomllib.loads((tmp_path / "c" / "tournament.toml").read_text(encoding="utf-8"))
    assert "stories" not in doc and doc["maps"] == 3
    assert [g["maps"] for g in doc["games"]] == [3, 3]


def test_a_file_that_is_no_config_is_refused_in_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"config_type": "other"}', encoding="utf-8")
    ran = CliRunner().invoke(APP, ["import-benchmark", str(path)])
    assert ran.exit_code == 2
    assert "is not a Xent benchmark config" in ran.output and "Traceback" not in ran.output


@pytest.mark.parametrize("version", ["0.1", "0.2"])
def test_a_short_offline_run_plays_exactly_the_published_maps(tmp_path: Path, version: str) -> None:
    bench = parse_config(config(version))
    toml = write_tournament(
        bench, tmp_path / "t", judge="bundled", maps=2, rounds=2,
        players=[("scripted", "scripted:lantern harbour|velvet orbit")],
    )
    db = tmp_path / "arena.db"
    ran = CliRunner().invoke(APP, ["run", str(toml), "--db", f"sqlite:///{db}", "--no-progress"])
    assert ran.exit_code == 0, ran.output
    assert "0 error(s)" in ran.output
    published = published_maps(version)
    code = {g.name: g.code for g in bench.games}
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT g.name, g.source, m.story_source, m.stories_json, x.rounds, x.map_index "
            "FROM matches x JOIN games g ON g.id = x.game_id JOIN maps m ON m.id = x.map_id "
            "WHERE x.status IN ('done', 'no_result')"  # Alethiometer: these moves never pass
        ).fetchall()
        players = {r[0] for r in conn.execute("SELECT name FROM participants")}
    assert len(rows) == len(bench.games) * 2 and players == {"scripted"}
    for game, source, story_source, stories, rounds, index in rows:
        seed = story_source.removeprefix("xent-maps:")
        assert seed == bench.maps[game][index].name  # the map seed is the map's name
        texts = list(json.loads(stories).values())
        rebuilt = with_stories(code[game], texts)
        assert program(rebuilt) == program(published[(game, seed)]), (game, seed)
        assert source == code[game]  # the config's game code is what was played
        assert rounds == 2
