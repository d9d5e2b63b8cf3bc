"""Import a published Xent benchmark configuration (xentlabs/xent, MIT) as a tournament.

Three forms are read: the expanded form (``expanded_xent_config``, and ``expanded_xega_config``
as benchmark 0.2 spells it: games, and maps whose code has the story texts written in), the
condensed form (``condensed_xent_config``: games only; maps are sampled, here from the judge)
and the older form of benchmark 0.1 (``expanded_benchmark_config``: one entry per map and
player, the game code with its stories inline).

The importer writes, into one folder: ``tournament.toml`` (what `arena run` reads), each game's
code as ``games/<name>.xent`` (the config's own code, dialect xent), and ``maps.json`` (each
published map's story texts, named by the config's map seed) read by the ``xent-maps`` story
source. The config's code is parsed as Python syntax (``ast``), never executed; presentation
functions are not read at all.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.errors import ConfigError
from arena.lang.dialects import rules_for_reference_version
from arena.tournaments.stories.xent_maps import FORMAT, MapText

__all__ = [
    "CONFIG_TYPES", "XentBenchmark", "import_config", "is_xent_config", "parse_config",
    "write_tournament",
]

EXPANDED = ("expanded_xent_config", "expanded_xega_config")
CONDENSED = ("condensed_xent_config", "condensed_xega_config")
OLD = ("expanded_benchmark_config",)
CONFIG_TYPES = EXPANDED + CONDENSED + OLD
# The reference's provider names -> litellm's (https://docs.litellm.ai/docs/providers).
PROVIDERS = {"grok": "xai", "gemini": "gemini", "openai": "openai", "anthropic": "anthropic",
             "deepseek": "deepseek", "ollama": "ollama"}
# Player options passed on to the litellm player (others are dropped, model/provider go
# into the spec).
PASSED_OPTIONS = ("temperature", "max_tokens")
# Benchmark 0.1 names no round count (it replays for max_steps=100 instructions).
OLD_ROUNDS = 20
DEFAULT_MAPS = 10
PROMPT = "xent-benchmark"


def is_xent_config(obj: object) -> bool:
    """Whether parsed JSON is a Xent benchmark configuration of a form we read."""
    return isinstance(obj, Mapping) and obj.get("config_type") in CONFIG_TYPES


@dataclass(frozen=True)
class XentPlayer:
    ident: str
    provider: str
    model: str
    options: Mapping[str, object] = field(default_factory=dict)


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
    maps: Mapping[str, list[MapText]]  # per game name; empty for a condensed config
    maps_per_game: int = DEFAULT_MAPS
    dialect: str = rules_for_reference_version("xega", None).name  # its version's rules


def _bad(what: str) -> ConfigError:
    return ConfigError(
        f"The Xent benchmark config is malformed: {what}. Use a config as the reference "
        "publishes it (configs/benchmark0.2.json of xentlabs/xent)."
    )


def _get(obj: object, key: str, kind: type, where: str) -> object:
    value = obj.get(key) if isinstance(obj, Mapping) else None
    if not isinstance(value, kind):
        shape = {"str": "text", "list": "list"}.get(kind.__name__, "object")
        raise _bad(f"{where} has no '{key}' ({shape})")
    return value


def _player(obj: object) -> XentPlayer:
    ident = str(_get(obj, "id", str, "a player"))
    options = obj.get("options") if isinstance(obj, Mapping) else None
    options = options if isinstance(options, Mapping) else {}
    model = str(options.get("model") or ident)
    provider = str(options.get("provider") or "openai")
    rest = {k: v for k, v in options.items() if k in PASSED_OPTIONS}
    return XentPlayer(ident, provider, model, rest)


def _is_story(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
        node.func.id == "story"
    )


def _assigns(code: str) -> list[list[ast.keyword]]:
    """The keywords of each `assign(...)` line of xent code, in order (lines that are no
    Python call, such as comments, are skipped)."""
    out: list[list[ast.keyword]] = []
    for line in code.splitlines():
        try:
            tree = ast.parse(line.strip())
        except SyntaxError:
            continue
        for stmt in tree.body:
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and (
                call.func.id == "assign"
            ):
                out.append(call.keywords)
    return out


def map_stories(game_code: str, map_code: str) -> tuple[str, ...]:
    """The texts a map wrote where the game calls story(), in code order."""
    game_assigns, map_assigns = _assigns(game_code), _assigns(map_code)
    if len(game_assigns) != len(map_assigns):
        raise _bad("a map's code does not have its game's assign lines")
    texts: list[str] = []
    for game_kws, map_kws in zip(game_assigns, map_assigns, strict=True):
        values = {k.arg: k.value for k in map_kws}
        for kw in game_kws:
            if not _is_story(kw.value):
                continue
            value = values.get(kw.arg)
            if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
                raise _bad(f"a map has no story text for register '{kw.arg}'")
            texts.append(value.value)
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
        call = ast.parse(line).body[0].value  # type: ignore[attr-defined]
        parts = [f"{k.arg}=story()" for k in call.keywords]
        out.append(f"assign({', '.join(parts)})")
    return "\n".join(out) + "\n"


def _parse_old(obj: Mapping[str, object]) -> XentBenchmark:
    entries = _get(obj, "games", list, "the config")
    codes: dict[str, dict[str, str]] = {}  # game -> map seed -> code
    players: dict[str, XentPlayer] = {}
    for entry in entries:  # type: ignore[attr-defined]
        game = _get(entry, "game", Mapping, "a games entry")
        name = str(_get(game, "name", str, "a game"))
        seed = str(entry.get("map_seed", game.get("map_seed", "")))  # type: ignore[attr-defined]
        codes.setdefault(name, {})[seed] = str(_get(game, "code", str, "a game"))
        for p in _get(entry, "players", list, "a games entry"):  # type: ignore[attr-defined]
            made = _player(p)
            players.setdefault(made.ident, made)
    games, maps = [], {}
    for name, by_seed in codes.items():
        code = _old_game_code(list(by_seed.values()))
        games.append(XentGame(name, code))
        maps[name] = [MapText(s, map_stories(code, c)) for s, c in by_seed.items()]
    return XentBenchmark(
        benchmark_id=str(obj.get("benchmark_id") or "xent-benchmark"),
        judge_model=str(obj.get("judge_model") or "Qwen/Qwen3-14B-Base"),
        rounds=OLD_ROUNDS, games=tuple(games), players=tuple(players.values()), maps=maps,
        maps_per_game=max((len(m) for m in maps.values()), default=1),
    )


def parse_config(obj: object) -> XentBenchmark:
    """A parsed Xent benchmark configuration; ConfigError (one sentence) when malformed."""
    if not is_xent_config(obj):
        raise _bad(f"'config_type' must be one of {', '.join(CONFIG_TYPES)}")
    assert isinstance(obj, Mapping)
    if obj["config_type"] in OLD:
        return _parse_old(obj)
    meta = _get(obj, "metadata", Mapping, "the config")
    games = tuple(
        XentGame(str(_get(g, "name", str, "a game")), str(_get(g, "code", str, "a game")))
        for g in _get(obj, "games", list, "the config")  # type: ignore[attr-defined]
    )
    players = tuple(_player(p) for p in _get(obj, "players", list, "the config"))  # type: ignore[attr-defined]
    code = {g.name: g.code for g in games}
    maps: dict[str, list[MapText]] = {}
    per_game = DEFAULT_MAPS
    if obj["config_type"] in EXPANDED:
        for m in _get(obj, "maps", list, "the config"):  # type: ignore[attr-defined]
            name = str(_get(m, "name", str, "a map"))
            if name not in code:
                raise _bad(f"map '{m.get('map_seed')}' is of game '{name}', not in 'games'")
            seed = str(_get(m, "map_seed", str, "a map"))
            texts = map_stories(code[name], str(_get(m, "code", str, "a map")))
            maps.setdefault(name, []).append(MapText(seed, texts))
        per_game = max((len(v) for v in maps.values()), default=1)
    else:
        expansion = _get(obj, "expansion_config", Mapping, "the condensed config")
        per_game = int(expansion.get("num_maps_per_game", DEFAULT_MAPS))  # type: ignore[attr-defined]
    return XentBenchmark(
        benchmark_id=str(meta.get("benchmark_id") or "xent-benchmark"),  # type: ignore[attr-defined]
        judge_model=str(meta.get("judge_model") or "Qwen/Qwen3-14B-Base"),  # type: ignore[attr-defined]
        rounds=int(meta.get("num_rounds_per_game") or OLD_ROUNDS),  # type: ignore[attr-defined]
        games=games, players=players, maps=maps, maps_per_game=per_game,
        dialect=rules_for_reference_version(*_version(meta)).name,  # type: ignore[arg-type]
    )


def _version(meta: Mapping[str, object]) -> tuple[str, str | None]:
    """The reference package and version that made the config (arena.lang.dialects)."""
    for package in ("xent", "xega"):
        if isinstance(meta.get(f"{package}_version"), str):
            return package, str(meta[f"{package}_version"])
    return "xega", None


def _name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\-]", "-", text) or "x"


def _toml(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string


def player_spec(player: XentPlayer, prompt: str | None = PROMPT) -> str:
    """The litellm spec of a reference player (provider/model, options, benchmark prompts)."""
    provider = PROVIDERS.get(player.provider, player.provider)
    params = dict(player.options)
    if prompt:
        params["prompt"] = prompt
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"litellm:{provider}/{player.model}" + (f"?{query}" if query else "")


def _has_benchmark_prompts(bench: XentBenchmark) -> bool:
    from arena.games import xent_benchmark_game

    return all(xent_benchmark_game(g.name) is not None for g in bench.games)


def write_tournament(
    bench: XentBenchmark,
    out: Path,
    *,
    judge: str | None = None,
    players: Sequence[tuple[str, str]] | None = None,
    maps: int | None = None,
    rounds: int | None = None,
    prompt: str | None = PROMPT,
) -> Path:
    """Write tournament.toml, games/*.xent and maps.json into `out`; returns the toml's path.

    `judge`, `players` ((name, spec) pairs), `maps` and `rounds` override the config's (for
    a short offline run); the defaults play the benchmark as published."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "games").mkdir(exist_ok=True)
    lines = [
        f"# Imported from the Xent benchmark config '{bench.benchmark_id}' (xentlabs/xent, MIT).",
        f"name = {_toml(_name(bench.benchmark_id))}",
        'mode = "eval"',
        f"judge = {_toml(judge or 'hf:' + bench.judge_model)}",
        f"rounds = {rounds or bench.rounds}",
        f"maps = {min(maps or bench.maps_per_game, bench.maps_per_game)}",
    ]
    if bench.maps:
        maps_path = (out / "maps.json").resolve()
        document = {
            "format": FORMAT,
            "benchmark_id": bench.benchmark_id,
            "games": {
                g: [{"name": m.name, "stories": list(m.stories)} for m in found]
                for g, found in bench.maps.items()
            },
        }
        maps_path.write_text(json.dumps(document, ensure_ascii=False, indent=1), "utf-8")
        lines.append(f"stories = {_toml('xent-maps:' + str(maps_path))}")
    if prompt == PROMPT and not _has_benchmark_prompts(bench):
        prompt = None  # benchmark 0.1's games have no published presentation
    seats = players or [(_name(p.ident), player_spec(p, prompt)) for p in bench.players]
    for name, spec in seats:
        lines += ["", "[[participants]]", f"name = {_toml(name)}", f"player = {_toml(spec)}"]
    for game in bench.games:
        path = out / "games" / f"{_name(game.name)}.xent"
        path.write_text(game.code, encoding="utf-8")
        count = len(bench.maps.get(game.name, [])) or bench.maps_per_game
        lines += [
            "", "[[games]]", f"game = {_toml('games/' + path.name)}",
            f"name = {_toml(_name(game.name))}", f"dialect = {_toml(bench.dialect)}",
            f"maps = {min(maps or count, count)}",
        ]
    toml = out / "tournament.toml"
    toml.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return toml


def import_config(obj: object, out: Path, **overrides: object) -> tuple[XentBenchmark, Path]:
    """Parse a config and write its tournament into `out`."""
    bench = parse_config(obj)
    return bench, write_tournament(bench, out, **overrides)  # type: ignore[arg-type]


def config_from_file(path: Path, fmt: str | None) -> object | None:
    """The parsed config when `path` is a Xent benchmark config (`fmt` 'xent-config', or no
    `fmt` and JSON content that is one), else None (the caller imports results)."""
    if fmt not in (None, "xent-config"):
        return None
    if fmt is None and path.suffix.lower() in (".csv", ".jsonl", ".ndjson"):
        return None
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        if fmt is None:
            return None  # the results importer reports it
        raise ConfigError(f"Cannot read '{path}': {error}. Check the path.") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as error:
        if fmt is None:
            return None
        raise ConfigError(
            f"'{path.name}' is not JSON ({error.msg} at line {error.lineno}); a Xent "
            "benchmark config is a JSON file such as configs/benchmark0.2.json."
        ) from None
    if is_xent_config(obj):
        return obj  # type: ignore[no-any-return]
    if fmt is None:
        return None
    raise ConfigError(
        f"'{path.name}' is not a Xent benchmark config: its 'config_type' is "
        f"{obj.get('config_type') if isinstance(obj, Mapping) else None!r}, expected one of "
        f"{', '.join(CONFIG_TYPES)}. Pass the reference's configs/benchmark0.2.json."
    )


def import_config_command(
    obj: object, out: Path, judge: str | None, maps: int | None, rounds: int | None
) -> str:
    """`arena import --format xent-config`: write the tournament; the line to print."""
    bench, toml = import_config(obj, out, judge=judge, maps=maps, rounds=rounds)
    stored = sum(len(m) for m in bench.maps.values())
    where = f"{stored} published maps in {out / 'maps.json'}" if stored else (
        "maps sampled from the judge (a condensed config)"
    )
    return (
        f"wrote {toml}: {len(bench.games)} games, {len(bench.players)} players, "
        f"{bench.rounds if rounds is None else rounds} rounds, {where}. "
        f"Play it with: arena run {toml}"
    )
