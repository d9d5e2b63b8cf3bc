"""prompt=xent-benchmark renders the text the published benchmark's presentation functions
render, checked against the reference itself: its presentation sdk (from the `xent` wheel,
downloaded with pip into build/) runs the presentation functions of the vendored config on
the same state and history, as the comparison oracle (test only; the product never runs
them)."""

from __future__ import annotations

import ast
import asyncio
import importlib
import json
import subprocess
import sys
import types
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.match_setup import build_match, load_game_text
from arena.players.llm.prompting import PromptOptions, build_messages
from arena.players.llm.xent_benchmark_prompt import (
    GAMES,
    benchmark_game,
    benchmark_move,
    render_xent_benchmark,
)
from arena.plugins.registry import Registry
from arena.protocols.player import (
    GameView,
    HistoryItem,
    MoveRequest,
    RevealedValue,
    RewardTermView,
    RoundMemory,
)

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "tests" / "data" / "xent_configs" / "benchmark0.2.json"
HEADERS = ROOT / "players" / "llm" / "xent_benchmark_headers.json"
WHEEL_DIR = ROOT / "build" / "xent-wheel"
VERSION = "0.5.0"

Present = Callable[[Mapping[str, Any], list[dict[str, Any]]], str]


def _games() -> list[dict[str, str]]:
    return json.loads(CONFIG.read_text(encoding="utf-8"))["games"]  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def reference() -> types.SimpleNamespace:
    """The reference's sdk modules from its wheel (pip download once, cached in build/)."""
    unpacked = WHEEL_DIR / "unpacked"
    if not (unpacked / "xent" / "presentation" / "sdk.py").exists():
        WHEEL_DIR.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", f"xent=={VERSION}", "--no-deps",
             "--python-version", "3.12", "--only-binary=:all:", "-d", str(WHEEL_DIR)],
            check=True, capture_output=True, timeout=300,
        )
        wheel = next(WHEEL_DIR.glob(f"xent-{VERSION}-*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(unpacked)
    sys.path.insert(0, str(unpacked))
    try:
        sdk = importlib.import_module("xent.presentation.sdk")
        x_string = importlib.import_module("xent.common.x_string")
        txl = importlib.import_module("xent.common.token_xent_list")
    finally:
        sys.path.remove(str(unpacked))
    # The config's functions import the sdk under the package's former name, xega.
    for name in ("xega", "xega.presentation"):
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.modules["xega.presentation.sdk"] = sdk
    return types.SimpleNamespace(
        sdk=sdk, XString=x_string.XString, TokenXentList=txl.TokenXentList
    )


@pytest.fixture(scope="session")
def presenters(reference: types.SimpleNamespace) -> dict[str, Present]:
    """Each game's published `present(state, history)` (the oracle, run in the test)."""
    out: dict[str, Present] = {}
    for game in _games():
        namespace: dict[str, Any] = {}
        exec(compile(game["presentation_function"], game["name"], "exec"), namespace)  # the oracle (test only)
        out[game["name"]] = namespace["present"]
    return out


def events(
    request: MoveRequest, ref: types.SimpleNamespace
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The reference's state and event history for our request: the same rounds, moves,
    failed ensures, reveals and rewards (per-token values with the coefficient applied),
    line numbers from 0 as the reference counts them."""
    state = {k: ref.XString(v) for k, v in request.visible.items()}

    def round_events(items: Sequence[HistoryItem], index: int, done: bool) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"type": "round_started", "round_index": index, "line_num": 1}]
        for item in items:
            line = item.line - 1
            if item.kind == "move":
                for name, text in item.moves.items():
                    out.append({"type": "elicit_request", "var_name": name, "line_num": line})
                    out.append({"type": "elicit_response", "response": text, "line_num": line})
            elif item.kind == "failed_ensure":
                out.append({"type": "failed_ensure", "line_num": line, "beacon": "previous_elicit",
                            "ensure_results": [False]})
            elif item.kind == "reveal":
                assert item.reveal is not None
                out.append({"type": "reveal", "line_num": line,
                            "values": {item.reveal.label: ref.XString(item.reveal.value)}})
            else:
                pairs = [(tok, bits * t.coefficient) for t in item.terms
                         for tok, bits in zip(t.tokens, t.bits, strict=True)]
                out.append({"type": "reward", "line_num": line, "value": ref.TokenXentList(pairs)})
        if done:
            out.append({"type": "round_finished", "round_index": index, "line_num": 99})
        else:
            out.append({"type": "elicit_request", "var_name": request.registers[0],
                        "line_num": request.line - 1})
        return out

    history: list[dict[str, Any]] = []
    for number, memory in enumerate(request.previous_rounds):
        history += round_events(memory.history, number, done=True)
    history += round_events(request.history, len(request.previous_rounds), done=False)
    return state, history


class Recorder:
    """A player that keeps every request and plays a fixed list of moves in turn."""

    def __init__(self, moves: Sequence[str]) -> None:
        self.moves, self.requests = list(moves), []  # type: ignore[var-annotated]

    @property
    def name(self) -> str:
        return "recorder"

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        self.requests.append(request)
        text = self.moves[(len(self.requests) - 1) % len(self.moves)]
        return dict.fromkeys(request.registers, text)


# Moves that make failed ensures where the game has one (invalid symbols; unlikely t1/t2).
MOVES = {
    "Alethiometer": ["owl moon", "banana split", "sun tree", "horse"],
    "Horizon": ["the sun", "zzz qqq", "rain fell", "and then"],
}


@pytest.fixture(scope="session")
def recorded() -> dict[str, list[MoveRequest]]:
    """Every request of three-round matches of the six games (config code, bundled judge)."""
    registry = Registry.load()
    judge = registry.create_judge("bundled")

    async def play() -> dict[str, list[MoveRequest]]:
        out = {}
        for game in _games():
            loaded = load_game_text(game["code"], f"{game['name']}.xent", dialect="xent",
                                    name=game["name"])
            player = Recorder(MOVES.get(game["name"], ["Lantern harbour at dusk", "the end of"]))
            match = await build_match(loaded, {"black": player}, judge=judge, registry=None,
                                      rounds=3)
            result = await match.play()
            assert result.error is None, result.error
            out[game["name"]] = player.requests
        await judge.aclose()
        return out

    return asyncio.run(play())


def term(tokens: Sequence[str], bits: Sequence[float], coefficient: int = 1) -> RewardTermView:
    return RewardTermView("xed(s | x1)", coefficient, tuple(bits), tuple(tokens),
                          coefficient * sum(bits))


def request(game: str, code: str, visible: dict[str, str], rounds: list[list[HistoryItem]],
            current: list[HistoryItem], line: int, register: str) -> MoveRequest:
    memories = tuple(RoundMemory(n + 1, tuple(items), 0.0) for n, items in enumerate(rounds))
    return MoveRequest(
        game=GameView(game, code, "xent"), role="black", round=len(rounds) + 1, rounds=5,
        line=line, registers=(register,), max_len=10, visible=visible, reveals=(),
        history=tuple(current), previous_rounds=memories,
    )


def synthetic() -> list[MoveRequest]:
    """Hand-made turns the recorded matches do not reach: tokens with line breaks and
    spaces, negative and .5 values (rounding), failed t2 attempts in Horizon's current
    round, a round that scored a tie."""
    codes = {g["name"]: g["code"] for g in _games()}
    nl = term(["\n", " the", "\n\nEnd", "\u2028x"], [0.25, -1.05, 2.5, 0.049])
    story = "Line one\nline two"
    reveal = HistoryItem("reveal", 4, reveal=RevealedValue("x1", "harbour", 4))
    condense = request("Condense", codes["Condense"], {"s": story, "x": "", "x1": ""}, [
        [HistoryItem("move", 2, moves={"x": "harbour"}), reveal,
         HistoryItem("reward", 5, terms=(nl,))],
        [HistoryItem("move", 2, moves={"x": "a harbour"}), reveal,
         HistoryItem("reward", 5, terms=(term(["a"], [-0.05]),))],
    ], [], 2, "x")
    horizon_code = codes["Horizon"]
    bad1 = [HistoryItem("move", 4, moves={"x1": "aa"}),
            HistoryItem("failed_ensure", 5, condition="xed(x1 | s) >= xed(t2 | t1)")]
    good1 = [HistoryItem("move", 4, moves={"x1": "bb"})]
    bad2 = [HistoryItem("move", 7, moves={"x2": "cc"}),
            HistoryItem("failed_ensure", 8, condition="xed(x2 | s + x1) >= xed(t2 | t1)")]
    done = [*bad1, *good1, *bad2, HistoryItem("move", 7, moves={"x2": "dd"}),
            HistoryItem("reward", 10, terms=(term([" x", "\n"], [-1.5, 0.5]),))]
    visible = {"s": story, "t1": "After the rain", "t2": " I eat food", "x1": "", "x2": ""}
    horizon = [
        request("Horizon", horizon_code, visible, [done], [*bad1, *good1, *bad2], 7, "x2"),
        request("Horizon", horizon_code, visible, [done], bad1, 4, "x1"),
        request("Horizon", horizon_code, visible, [], [], 4, "x1"),
    ]
    alethiometer = request(
        "Alethiometer", codes["Alethiometer"], {"s": story, "s1": "owl sun", "x": "", "x1": ""},
        [[HistoryItem("move", 3, moves={"x": "cat"}),
          HistoryItem("failed_ensure", 4, condition="only_uses_words(s1, x)"),
          HistoryItem("move", 3, moves={"x": "owl"}), HistoryItem("reward", 6, terms=(nl,))]],
        [HistoryItem("move", 3, moves={"x": "dog"}),
         HistoryItem("failed_ensure", 4, condition="only_uses_words(s1, x)")], 3, "x",
    )
    return [condense, *horizon, alethiometer]


def test_the_headers_are_the_configs_own(reference: types.SimpleNamespace) -> None:
    """players/llm/xent_benchmark_headers.json holds each function's header text, read from the
    config by its syntax tree (the Horizon header's story as the register it shows)."""
    ours = json.loads(HEADERS.read_text(encoding="utf-8"))["headers"]
    for game in _games():
        tree = ast.parse(game["presentation_function"])
        found = next(
            node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "header" for t in node.targets)
        )
        pieces: list[object] = (
            [found.value] if isinstance(found, ast.Constant) else
            [v.value if isinstance(v, ast.Constant) else {"register": "s"}
             for v in found.values]  # type: ignore[attr-defined]
        )
        assert ours[game["name"]] == pieces, game["name"]


def test_recorded_turns_render_exactly_as_the_reference(
    reference: types.SimpleNamespace, presenters: dict[str, Present],
    recorded: dict[str, list[MoveRequest]],
) -> None:
    compared = 0
    for game, requests in recorded.items():
        assert len(requests) >= 3, game  # three rounds at least
        for turn in requests:
            state, history = events(turn, reference)
            theirs = presenters[game](state, history)
            assert render_xent_benchmark(turn) == theirs, (game, turn.round, turn.line)
            compared += 1
    assert set(recorded) == set(GAMES) and compared >= 20


def test_hand_made_edge_turns_render_exactly_as_the_reference(
    reference: types.SimpleNamespace, presenters: dict[str, Present]
) -> None:
    for turn in synthetic():
        state, history = events(turn, reference)
        theirs = presenters[turn.game.name](state, history)
        assert render_xent_benchmark(turn) == theirs, (turn.game.name, turn.line)


def test_the_option_sends_the_text_as_one_user_message(
    recorded: dict[str, list[MoveRequest]],
) -> None:
    turn = recorded["Condense"][-1]
    messages = build_messages(turn, PromptOptions(style="xent-benchmark"))
    assert messages == [{"role": "user", "content": render_xent_benchmark(turn)}]
    assert "<gameCode>\nassign(s=story())" in messages[0]["content"]
    assert "Best score achieved: " in messages[0]["content"]
    assert build_messages(turn)[0]["role"] == "system"  # the default prompt is unchanged


def test_game_names_and_an_unknown_game() -> None:
    assert benchmark_game("two_ways") == "Two-Ways" and benchmark_game("condense") == "Condense"
    assert benchmark_game("single_text") is None
    turn = request("single_text", "elicit(x, 3)", {}, [], [], 1, "x")
    with pytest.raises(Exception, match="six games only"):
        render_xent_benchmark(turn)


def test_a_litellm_player_sends_the_benchmark_text_of_a_published_map(tmp_path: Path) -> None:
    """End to end: the imported Condense game on its first published map, a litellm player
    with prompt=xent-benchmark against an OpenAI-compatible server on loopback: the model
    receives one user message, the benchmark's text with the published story."""
    pytest.importorskip("litellm")
    from arena.runtime.maps import resolve_map
    from arena.tournaments.planning.stories.xent_maps import XentMapsSource
    from arena.tournaments.services.exchange.xent_config import parse_config
    from tests.support.openai_compat_server import ServerState, start_server

    bench = parse_config(json.loads(CONFIG.read_text(encoding="utf-8")))
    game = next(g for g in _games() if g["name"] == "Condense")
    story = bench.maps["Condense"][0].stories[0]
    registry = Registry.load()
    judge = registry.create_judge("bundled")
    state = ServerState(default={"reply": "<move>lantern harbour</move>"})

    async def play() -> None:
        loaded = load_game_text(game["code"], "Condense.xent", dialect="xent", name="Condense")
        source = XentMapsSource(bench.maps).for_map("Condense", 0)
        game_map = await resolve_map(loaded.program, 0, source)
        async with start_server(state=state) as base:
            spec = f"litellm:openai/bench?api_base={base}&prompt=xent-benchmark&retries=0"
            async with await build_match(
                loaded, {"black": spec}, judge=judge, registry=registry, rounds=2
            ) as match:
                result = await match.play(game_map)
        assert result.error is None, result.error
        await judge.aclose()

    asyncio.run(play())
    assert len(state.requests) == 2
    first, second = (r.body["messages"] for r in state.requests)
    assert [m["role"] for m in first] == ["user"] and [m["role"] for m in second] == ["user"]
    assert first[0]["content"].startswith("You are playing a text game that uses the cross")
    assert f"<story>\n  {story}\n</story>" in first[0]["content"]  # byte-identical story
    assert first[0]["content"].endswith("First round starting.\nProvide your prefix in "
                                        "<move></move> tags.")
    assert "<round0>\n    <prefix>lantern harbour</prefix>\n    <score>\n      Total: " in (
        second[0]["content"])
    assert "Best score achieved: " in second[0]["content"]


def test_replies_are_read_as_the_benchmarks_player_reads_them() -> None:
    registers = ("x",)
    assert benchmark_move("<move>a</move> then <move> b c </move>", registers) == {"x": " b c "}
    assert benchmark_move("<think><move>no</move></think><move>yes</move>", registers) == {
        "x": "yes"}
    assert benchmark_move("no tags at all", registers) == {"x": "no tags at all"}
