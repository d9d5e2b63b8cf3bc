"""Write a published Xent benchmark configuration (xentlabs/xent, MIT) as a tournament folder
(`arena import-benchmark`).

Three forms are read: the expanded form (``expanded_xent_config``, and ``expanded_xega_config``
as benchmark 0.2 spells it: games, and maps whose code has the story texts written in), the
condensed form (``condensed_xent_config``: games only; maps are sampled, here from the judge)
and the older form of benchmark 0.1 (``expanded_benchmark_config``: one entry per map and
player, the game code with its stories inline).

The importer writes, into one folder: ``tournament.toml`` (what `arena run` reads, written
from `TournamentConfig` by its own serialiser), each game's code as ``games/<name>.xent``
(the config's own code, dialect xent), and ``maps.json`` (each published map's story texts,
named by the config's map seed; `MapsFile`) read by the ``xent-maps`` story source through a
path relative to the tournament file, so the folder can be moved.

A config is somebody else's file (docs/threats.md, "Imported benchmark configs"): its code is
parsed as Python syntax (``ast``), never executed, and presentation functions are not read;
every value that reaches the tournament file is checked against a strict rule and refused
with one sentence otherwise. A player is a provider from a fixed list and a model name of
letters, digits and ``._:-``, nothing more: the player's other options (an ``api_base``, a
key variable, a URL, a temperature) are never read, so an imported file cannot send the
organiser's keys anywhere. The settings the players run with are the reference's own
(`REFERENCE_SETTINGS`), written into each spec where the user can change them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from arena.errors import ConfigError
from arena.file_input import FileInputError, loads_json, read_regular_file
from arena.lang.dialects import rules_for_reference_version
from arena.specs import NAME_RE, Spec, shorten
from arena.tournaments.planning.config import (
    MAX_MAPS,
    MAX_ROUNDS,
    TournamentConfig,
    load_tournament,
    parse_tournament,
)
from arena.tournaments.planning.stories.xent_maps import NAME as MAPS_SOURCE
from arena.tournaments.planning.stories.xent_maps import MapsFile, MapText

__all__ = [
    "CONFIG_TYPES", "PROVIDERS", "REFERENCE_SETTINGS", "XentBenchmark", "import_config",
    "is_xent_config", "parse_config", "player_spec", "read_config", "write_tournament",
]

EXPANDED = ("expanded_xent_config", "expanded_xega_config")
CONDENSED = ("condensed_xent_config", "condensed_xega_config")
OLD = ("expanded_benchmark_config",)
CONFIG_TYPES = EXPANDED + CONDENSED + OLD
MAX_CONFIG_BYTES = 64 * 2**20  # benchmark 0.2 is 0.3 MiB
MAX_NAME_CHARS = 100


@dataclass(frozen=True)
class Provider:
    """A provider the reference runs (`KNOWN_PROVIDER` of its player_configuration.py): its
    litellm prefix (https://docs.litellm.ai/docs/providers) and the output limit the
    reference's client sends (None: none)."""

    litellm: str
    max_tokens: int | None = None


# The reference's provider names -> what its client does. Anthropic's API requires an
# output limit; the reference sends 4096. `huggingface` (a local model) is not imported:
# a config may not name a path or model that this machine loads.
PROVIDERS: Mapping[str, Provider] = {
    "openai": Provider("openai"), "anthropic": Provider("anthropic", max_tokens=4096),
    "gemini": Provider("gemini"), "grok": Provider("xai"), "deepseek": Provider("deepseek"),
    "moonshot": Provider("moonshot"), "ollama": Provider("ollama"),
}
# The reference's calls: no temperature (the provider's default), the SDKs' 600 s timeout.
REFERENCE_TIMEOUT = 600
REFERENCE_SETTINGS: Mapping[str, str] = {
    "temperature": "none", "max_tokens": "none", "timeout": str(REFERENCE_TIMEOUT),
}
# A move may wait out its request's full timeout and a retry after it.
MOVE_TIMEOUT = 3 * REFERENCE_TIMEOUT
# Benchmark 0.1 names no round count (it replays for max_steps=100 instructions).
OLD_ROUNDS = 20
DEFAULT_MAPS = 10
PROMPT = "xent-benchmark"
# A model name as providers spell them (gpt-5, claude-opus-4-1-20250805, llama3:8b): no '/',
# '?', '&', '=', '@', space or quote, so it can name nothing but a model of its provider.
MODEL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:\-]{0,199}$")
# A Hugging Face repository id (org/name), never a path: the judge's model.
REPO_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]{0,95}/[A-Za-z0-9][A-Za-z0-9._\-]{0,95}$")
HEADER = (
    "Written by `arena import-benchmark` from a Xent benchmark config (xentlabs/xent, MIT).",
    "The players run with the reference's model settings: temperature=none (not sent: the",
    "provider's default), max_tokens=none (no output limit; Anthropic: max_tokens=4096),",
    f"timeout={REFERENCE_TIMEOUT} s per request. Change a participant's player spec to "
    "override them",
    "(e.g. temperature=0.2&max_tokens=2048), or rerun with --player-param.",
)


def is_xent_config(obj: object) -> bool:
    """Whether parsed JSON is a Xent benchmark configuration of a form we read."""
    return isinstance(obj, Mapping) and obj.get("config_type") in CONFIG_TYPES


@dataclass(frozen=True)
class XentPlayer:
    ident: str
    provider: str  # a key of PROVIDERS
    model: str  # matches MODEL_RE
    ignored: tuple[str, ...] = ()  # option names of the config not read


@dataclass(frozen=True)
class XentGame:
    name: str
    code: str  # with story() call sites, as the config's games carry it


@dataclass(frozen=True)
class XentBenchmark:
    benchmark_id: str
    judge_model: str
    rounds: int
    games: tuple[XentGame, ...]
    players: tuple[XentPlayer, ...]
    maps: Mapping[str, list[MapText]] = field(default_factory=dict)  # empty: condensed
    maps_per_game: int = DEFAULT_MAPS
    dialect: str = rules_for_reference_version("xega", None).name  # its version's rules


def _bad(what: str) -> ConfigError:
    return ConfigError(
        f"The Xent benchmark config is malformed: {what}. Use a config as the reference "
        "publishes it (configs/benchmark0.2.json of xentlabs/xent)."
    )


def _show(value: object) -> str:
    """An untrusted value in a message: one printable line, long ones cut."""
    return shorten(value if isinstance(value, str) else repr(value), 60)


def _value(obj: object, key: str, kind: type, shape: str, where: str) -> object:
    value = obj.get(key) if isinstance(obj, Mapping) else None
    if not isinstance(value, kind):
        raise _bad(f"{where} has no '{key}' ({shape})")
    return value


def _str(obj: object, key: str, where: str) -> str:
    return cast(str, _value(obj, key, str, "text", where))


def _list(obj: object, key: str, where: str) -> list[object]:
    return cast(list[object], _value(obj, key, list, "list", where))


def _map(obj: object, key: str, where: str) -> Mapping[str, object]:
    return cast(Mapping[str, object], _value(obj, key, Mapping, "object", where))


def _label(value: object, where: str) -> str:
    """A name that becomes a participant, game or map name: the arena's name rule."""
    if not isinstance(value, str) or len(value) > MAX_NAME_CHARS or not NAME_RE.fullmatch(value):
        raise _bad(
            f"{where} is '{_show(value)}'; a name has 1 to {MAX_NAME_CHARS} letters, digits, "
            "'_', '.' or '-'"
        )
    return value


def _count(value: object, where: str, maximum: int) -> int:
    """A whole number from 1 to `maximum` (JSON's 20; not "20", 20.0, "1e12" or true)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
        shown = shorten(repr(value), 60)
        raise _bad(f"{where} is {shown}; it must be a whole number from 1 to {maximum}")
    return value


def _player(obj: object, where: str) -> XentPlayer:
    ident = _label(_str(obj, "id", where), f"{where}.id")
    options = obj.get("options") if isinstance(obj, Mapping) else None
    options = options if isinstance(options, Mapping) else {}
    model = options.get("model") or ident
    if not isinstance(model, str) or not MODEL_RE.fullmatch(model):
        raise _bad(
            f"{where} ({ident}) has the model '{_show(model)}'; a model name has letters, "
            "digits, '.', '_', ':' or '-' only (no '/', '?', '&', '=' or URL). Add such a "
            "player to the written tournament file yourself"
        )
    provider = options.get("provider") or "openai"
    if provider not in PROVIDERS:
        extra = (
            " (a local Hugging Face model is never loaded from an imported file: add it to "
            "the tournament file yourself as hf:...)" if provider == "huggingface" else ""
        )
        raise _bad(
            f"{where} ({ident}) has the provider '{_show(provider)}'{extra}; valid "
            f"providers: {', '.join(PROVIDERS)}"
        )
    ignored = tuple(sorted(_show(k) for k in options if k not in ("model", "provider")))
    return XentPlayer(ident, str(provider), model, ignored)


def _parse_line(line: str) -> ast.Module | None:
    """A line of xent code as Python syntax, or None when it is none (a comment, a rule of
    another syntax); deep nesting is None too, never a MemoryError or RecursionError."""
    try:
        return ast.parse(line.strip())
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _is_story(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
        node.func.id == "story"
    )


def _assign_call(line: str) -> ast.Call | None:
    tree = _parse_line(line)
    for stmt in tree.body if tree is not None else ():
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and (
            call.func.id == "assign"
        ):
            return call
    return None


def _assigns(code: str) -> list[list[ast.keyword]]:
    """The keywords of each `assign(...)` line of xent code, in order."""
    return [call.keywords for line in code.splitlines() if (call := _assign_call(line))]


def _text(value: str, where: str) -> str:
    """A story text; a lone surrogate (which no database stores) is refused here."""
    if any("\ud800" <= c <= "\udfff" for c in value):
        raise _bad(f"{where} holds a lone surrogate (an invalid \\ud800-\\udfff escape)")
    return value


def map_stories(game_code: str, map_code: str, where: str = "a map") -> tuple[str, ...]:
    """The texts a map wrote where the game calls story(), in code order."""
    game_assigns, map_assigns = _assigns(game_code), _assigns(map_code)
    if len(game_assigns) != len(map_assigns):
        raise _bad(f"{where}'s code does not have its game's assign lines")
    texts: list[str] = []
    for game_kws, map_kws in zip(game_assigns, map_assigns, strict=True):
        values = {k.arg: k.value for k in map_kws}
        for kw in game_kws:
            if not _is_story(kw.value):
                continue
            value = values.get(kw.arg)
            if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
                raise _bad(f"{where} has no story text for register '{_show(kw.arg)}'")
            texts.append(_text(value.value, where))
    return tuple(texts)


def _old_game_code(codes: Sequence[str]) -> str:
    """Benchmark 0.1's code with story() where the maps of one game differ (their stories)."""
    lines = codes[0].splitlines()
    per_map = [c.splitlines() for c in codes]
    out = []
    for i, line in enumerate(lines):
        variants = {m[i] if i < len(m) else "" for m in per_map}
        if len(variants) == 1 or not line.startswith("assign("):
            out.append(line)
            continue
        call = _assign_call(line)
        if call is None:
            raise _bad(f"line {i + 1} of a game's code is no assign(...) call")
        parts = [f"{_label(k.arg, 'a register')}=story()" for k in call.keywords]
        out.append(f"assign({', '.join(parts)})")
    return "\n".join(out) + "\n"


def _unique(names: Sequence[str], what: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise _bad(f"two {what} are named '{name}'")
        seen.add(name)


def _parse_old(obj: Mapping[str, object]) -> XentBenchmark:
    entries = _list(obj, "games", "the config")
    codes: dict[str, dict[str, str]] = {}  # game -> map seed -> code
    players: dict[str, XentPlayer] = {}
    for i, entry in enumerate(entries):
        game = _map(entry, "game", f"games[{i}]")
        name = _label(_str(game, "name", f"games[{i}].game"), f"games[{i}].game.name")
        seed = entry.get("map_seed", game.get("map_seed")) if isinstance(entry, Mapping) else None
        seed = _label(str(seed) if isinstance(seed, int) else seed, f"games[{i}].map_seed")
        codes.setdefault(name, {})[seed] = _str(game, "code", f"games[{i}].game")
        for j, p in enumerate(_list(entry, "players", f"games[{i}]")):
            made = _player(p, f"games[{i}].players[{j}]")
            players.setdefault(made.ident, made)
    games, maps = [], {}
    for name, by_seed in codes.items():
        code = _old_game_code(list(by_seed.values()))
        games.append(XentGame(name, code))
        maps[name] = [
            MapText(s, map_stories(code, c, f"map '{s}'")) for s, c in by_seed.items()
        ]
    return XentBenchmark(
        benchmark_id=_benchmark_id(obj.get("benchmark_id")),
        judge_model=_judge_model(obj.get("judge_model")),
        rounds=OLD_ROUNDS, games=tuple(games), players=tuple(players.values()), maps=maps,
        maps_per_game=max((len(m) for m in maps.values()), default=1),
    )


def _benchmark_id(value: object) -> str:
    """The tournament's name: the config's id with characters outside the name rule as '-'."""
    text = value if isinstance(value, str) and value else "xent-benchmark"
    return re.sub(r"[^A-Za-z0-9_.\-]", "-", text[:MAX_NAME_CHARS])


def _judge_model(value: object) -> str:
    if value is None:
        return "Qwen/Qwen3-14B-Base"
    if not isinstance(value, str) or not REPO_RE.fullmatch(value) or ".." in value:
        raise _bad(
            f"its judge_model is '{_show(value)}'; it must be a Hugging Face model id such "
            "as Qwen/Qwen3-14B-Base (never a path). Pass --judge to choose the judge yourself"
        )
    return value


def parse_config(obj: object) -> XentBenchmark:
    """A parsed Xent benchmark configuration; ConfigError (one sentence) when malformed."""
    if not is_xent_config(obj):
        raise _bad(f"'config_type' must be one of {', '.join(CONFIG_TYPES)}")
    assert isinstance(obj, Mapping)
    bench = _parse_old(obj) if obj["config_type"] in OLD else _parse_new(obj)
    _unique([g.name for g in bench.games], "games")
    _unique([p.ident for p in bench.players], "players")
    return bench


def _parse_new(obj: Mapping[str, object]) -> XentBenchmark:
    meta = _map(obj, "metadata", "the config")
    games = tuple(
        XentGame(
            _label(_str(g, "name", f"games[{i}]"), f"games[{i}].name"),
            str(_str(g, "code", f"games[{i}]")),
        )
        for i, g in enumerate(_list(obj, "games", "the config"))
    )
    players = tuple(
        _player(p, f"players[{i}]")
        for i, p in enumerate(_list(obj, "players", "the config"))
    )
    code = {g.name: g.code for g in games}
    maps: dict[str, list[MapText]] = {}
    if obj["config_type"] in EXPANDED:
        for i, m in enumerate(_list(obj, "maps", "the config")):
            name = _str(m, "name", f"maps[{i}]")
            if name not in code:
                raise _bad(f"maps[{i}] is of game '{_show(name)}', which is not in 'games'")
            seed = _label(_str(m, "map_seed", f"maps[{i}]"), f"maps[{i}].map_seed")
            texts = map_stories(code[name], str(_str(m, "code", f"maps[{i}]")),
                                f"maps[{i}]")
            maps.setdefault(name, []).append(MapText(seed, texts))
        per_game = max((len(v) for v in maps.values()), default=1)
        if per_game > MAX_MAPS:
            raise _bad(f"a game has {per_game} maps, over the maximum of {MAX_MAPS}")
    else:
        expansion = _map(obj, "expansion_config", "the condensed config")
        per_game = _count(
            expansion.get("num_maps_per_game", DEFAULT_MAPS),
            "expansion_config.num_maps_per_game", MAX_MAPS,
        )
    rounds = meta.get("num_rounds_per_game")
    return XentBenchmark(
        benchmark_id=_benchmark_id(meta.get("benchmark_id")),
        judge_model=_judge_model(meta.get("judge_model")),
        rounds=OLD_ROUNDS if rounds is None else _count(
            rounds, "metadata.num_rounds_per_game", MAX_ROUNDS),
        games=games, players=players, maps=maps, maps_per_game=per_game,
        dialect=rules_for_reference_version(*_version(meta)).name,
    )


def _version(meta: Mapping[str, object]) -> tuple[str, str | None]:
    """The reference package and version that made the config (arena.lang.dialects)."""
    for package in ("xent", "xega"):
        if isinstance(meta.get(f"{package}_version"), str):
            return package, str(meta[f"{package}_version"])
    return "xega", None


def player_spec(
    player: XentPlayer, prompt: str | None = PROMPT, params: Mapping[str, str] | None = None
) -> str:
    """The litellm spec of a reference player: provider/model, the reference's settings
    (`params` from the user override them), the benchmark's prompts. Built as a `Spec`,
    whose canonical text escapes every parameter value."""
    provider = PROVIDERS[player.provider]
    settings = dict(REFERENCE_SETTINGS)
    if provider.max_tokens is not None:
        settings["max_tokens"] = str(provider.max_tokens)
    if prompt:
        settings["prompt"] = prompt
    settings.update(params or {})
    return Spec("litellm", f"{provider.litellm}/{player.model}", settings).canonical


def _has_benchmark_prompts(bench: XentBenchmark) -> bool:
    from arena.games import xent_benchmark_game

    return all(xent_benchmark_game(g.name) is not None for g in bench.games)


def tournament_config(
    bench: XentBenchmark,
    out: Path,
    *,
    judge: str | None = None,
    players: Sequence[tuple[str, str]] | None = None,
    maps: int | None = None,
    rounds: int | None = None,
    prompt: str | None = PROMPT,
    player_params: Mapping[str, str] | None = None,
) -> TournamentConfig:
    """The tournament of `bench` as a validated `TournamentConfig` whose files are in `out`
    (see `write_tournament`); `TournamentConfigError` listing what does not validate."""
    if prompt == PROMPT and not _has_benchmark_prompts(bench):
        prompt = None  # benchmark 0.1's games have no published presentation
    seats = players or [(p.ident, player_spec(p, prompt, player_params)) for p in bench.players]
    data: dict[str, object] = {
        "name": bench.benchmark_id,
        "mode": "eval",
        "judge": judge or f"hf:{bench.judge_model}?tf32=0",  # float32 as the reference ran it
        "rounds": rounds or bench.rounds,
        "maps": min(maps or bench.maps_per_game, bench.maps_per_game),
        "move_timeout": float(MOVE_TIMEOUT),
        "participants": [{"name": name, "player": spec} for name, spec in seats],
        "games": [
            {
                "game": f"games/{game.name}.xent", "name": game.name, "dialect": bench.dialect,
                "maps": min(maps or count, count),
            }
            for game in bench.games
            for count in [len(bench.maps.get(game.name, [])) or bench.maps_per_game]
        ],
    }
    if bench.maps:
        data["stories"] = f"{MAPS_SOURCE}:maps.json"  # relative: read beside the file
    return parse_tournament(data, str(out / "tournament.toml"), base_dir=out)


def write_tournament(
    bench: XentBenchmark,
    out: Path,
    *,
    judge: str | None = None,
    players: Sequence[tuple[str, str]] | None = None,
    maps: int | None = None,
    rounds: int | None = None,
    prompt: str | None = PROMPT,
    player_params: Mapping[str, str] | None = None,
) -> Path:
    """Write tournament.toml, games/*.xent and maps.json into `out`; returns the toml's path.

    `judge`, `players` ((name, spec) pairs), `maps` and `rounds` override the config's (for
    a short offline run), `player_params` the reference's settings of every imported
    player; the defaults play the benchmark as published. Everything is validated before
    the first file is written."""
    config = tournament_config(
        bench, out, judge=judge, players=players, maps=maps, rounds=rounds, prompt=prompt,
        player_params=player_params,
    )
    out.mkdir(parents=True, exist_ok=True)
    (out / "games").mkdir(exist_ok=True)
    for game in bench.games:
        (out / "games" / f"{game.name}.xent").write_text(game.code, encoding="utf-8")
    if bench.maps:
        document = MapsFile.of(bench.benchmark_id, bench.maps)
        (out / "maps.json").write_text(document.model_dump_json(indent=1), encoding="utf-8")
    toml = out / "tournament.toml"
    toml.write_text(config.to_toml(HEADER), encoding="utf-8")
    return toml


def import_config(obj: object, out: Path, **overrides: object) -> tuple[XentBenchmark, Path]:
    """Parse a config and write its tournament into `out`."""
    bench = parse_config(obj)
    return bench, write_tournament(bench, out, **overrides)  # type: ignore[arg-type]


def read_config(path: Path) -> object:
    """The parsed Xent benchmark config in `path`; ConfigError with one sentence when it
    cannot be read or is not one (a file of match results is pointed to `arena import`)."""
    if path.suffix.lower() in (".csv", ".jsonl", ".ndjson"):
        raise _results_file(path, path.suffix.lower().lstrip("."))
    try:
        data = read_regular_file(path, MAX_CONFIG_BYTES)
    except FileInputError as error:
        raise ConfigError(
            f"Cannot read '{path}': it {error}. Pass the Xent benchmark config, a JSON file "
            "such as configs/benchmark0.2.json."
        ) from None
    except OSError as error:
        raise ConfigError(f"Cannot read '{path}': {error.strerror}. Check the path.") from None
    try:
        obj = loads_json(data.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"'{path.name}' is not UTF-8 text (byte {error.start}); a Xent benchmark config "
            "is a JSON file such as configs/benchmark0.2.json."
        ) from None
    except FileInputError as error:
        raise ConfigError(
            f"'{path.name}' {error}; a Xent benchmark config is a JSON file such as "
            "configs/benchmark0.2.json."
        ) from None
    except ValueError as error:  # json.JSONDecodeError
        raise ConfigError(
            f"'{path.name}' is not JSON ({shorten(str(error))}); a Xent benchmark config is a "
            "JSON file such as configs/benchmark0.2.json."
        ) from None
    if is_xent_config(obj):
        return obj
    from arena.tournaments.services.exchange.formats import JSON_FORMATS

    for name, recognises in JSON_FORMATS:
        if recognises(obj):
            raise _results_file(path, name)
    kind = obj.get("config_type") if isinstance(obj, Mapping) else None
    raise ConfigError(
        f"'{path.name}' is not a Xent benchmark config: its 'config_type' is "
        f"'{_show(kind)}', expected one of {', '.join(CONFIG_TYPES)}. Pass the reference's "
        "configs/benchmark0.2.json."
    )


def _results_file(path: Path, fmt: str) -> ConfigError:
    return ConfigError(
        f"'{path.name}' holds match results ({fmt}), not a Xent benchmark config: "
        "`arena import-benchmark` writes a tournament from a config. Store results with: "
        f"arena import {path} --tournament NAME"
    )


def import_config_command(
    obj: object, out: Path, judge: str | None, maps: int | None, rounds: int | None,
    player_params: Mapping[str, str] | None = None,
) -> list[str]:
    """`arena import-benchmark`: write the tournament; the lines to print, every
    participant's spec among them (what will be called, and with what)."""
    bench, toml = import_config(
        obj, out, judge=judge, maps=maps, rounds=rounds, player_params=player_params
    )
    config = load_tournament(toml)  # what `arena run` will read
    stored = sum(len(m) for m in bench.maps.values())
    where = f"{stored} published maps in {out / 'maps.json'}" if stored else (
        "maps sampled from the judge (a condensed config)"
    )
    lines = [
        f"wrote {toml}: {len(bench.games)} games, {len(bench.players)} players, "
        f"{config.rounds} rounds, {where}; judge {config.judge}.",
        "participants (edit their specs in the file to change a setting):",
    ]
    lines += [f"  {p.name}: {p.player}" for p in config.participants]
    for player in bench.players:
        if player.ignored:
            lines.append(
                f"note: options of '{player.ident}' not read from the config: "
                f"{', '.join(player.ignored)} (only model and provider are)."
            )
    lines.append(f"Play it with: arena run {toml}")
    return lines
