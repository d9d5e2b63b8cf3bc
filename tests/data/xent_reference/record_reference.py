"""Record the reference implementation's behaviour as test data (see README.md here).

Run with a Python that can import the reference package (xentlabs/xent, `src/` of the
commit named on the command line) and its own dependencies; nothing of this project is
imported. It plays scripted replies through the reference's own runtime, player parsing and
the config's presentation functions, on the bundled judge's weights, and writes what
happened to JSON. It only calls the reference; none of its code is copied here.

    python record_reference.py matches CONFIG JUDGE_DIR OUT.json
    python record_reference.py words OUT.json          # only_uses_words of the package
    python record_reference.py cuts JUDGE_DIR OUT.json  # first_n_tokens of the judge
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

# Moves for the move-length cases: each is cut to `n` tokens of the judge as written.
CUTS = [
    ("tree serpent", 2), ("tree serpent", 3), ("tree serpent owl moon", 3),
    (" tree serpent", 2), ("Hello, world! How are you?", 4), ("café naïve", 3),
    ("「橋」 bridge", 4), ("emoji ✨📜 here", 4), ("a  b   c", 3), ("\n\nline", 2),
    ("short", 10), ("", 5), ("don't stop", 2), ("x" * 30, 5),
]

# Texts for the only_uses_words cases, against the Alethiometer's symbol list.
SYMBOLS = (
    "alpha-omega anchor angel ant apple baby beehive bird bread bull camel candle cauldron "
    "chameleon compass cornucopia crocodile dolphin elephant globe griffin helmet horse "
    "hourglass lute madonna marionette moon owl serpent sun sword thunderbolt tree "
    "walled-garden wild-man"
)
WORD_TEXTS = [
    "owl moon", "bee hive", "he ant", "owl  moon", "Sun moon", "alpha-omega, sun", "",
    " owl", "owl ", "tree ser", "a", "wild-man sun walled-garden baby", "owl\tmoon",
    "omega", "lute madonna", "owl moon owl", "hive", "x",
]


def _judge_copy(judge_dir: Path, into: Path) -> Path:
    """The bundled judge's files with a tokenizer_config this transformers reads (the
    tokenizer itself, tokenizer.json, and the weights are unchanged)."""
    target = into / "bundled"
    shutil.copytree(judge_dir, target)
    config = json.loads((target / "tokenizer_config.json").read_text())
    config.pop("backend", None)
    config["tokenizer_class"] = "PreTrainedTokenizerFast"
    (target / "tokenizer_config.json").write_text(json.dumps(config))
    return target


# ----------------------------------------------------------------------------- matches


def _horizon_replies(story: str) -> list[str]:
    """Horizon's moves from the map's story; a one-token move scores 0 bits (its only token
    is never scored), which fails the ensures here."""
    w = story.split()
    return [
        "<move>.</move>",  # fails the first ensure
        f"<move>{' '.join(w[:2])}</move>",
        "<move>ok</move>",  # fails the second ensure
        f"<move>{' '.join(w[2:4])}</move>",
        f"<think>copy</think><move>{' '.join(w[:3])}</move>",
        "Q",  # no move tags: the whole reply; fails the second ensure
        f"<move>{' '.join(w[3:5])}</move>",
        f"<move>{' '.join(w[5:8])}</move>",
        f"<move>{' '.join(w[8:10])}</move>",
    ]


SCRIPTS: dict[str, list[str]] = {
    "Condense": [
        "<think>The story is about code.</think>I will answer.\n<move>Palindrome checker: "
        "reverse a string in Python code, then compare</move>",
        "<move>first</move> then <move> mirror world reversed text</move>",
        "no tags here, just a prefix",
    ],
    "Contrast": [
        "<move>tree serpent owl moon river</move>",
        "<move>  Keeper, storm! lamps glow over the ocean at night and</move>",
        "<move>café naïve ✨ stars</move>",
    ],
    "Synthesize": [
        "<move>hill kites, keeper of dawn</move>",
        "<move>\nA story of many things, told twice over and over again</move>",
        "<move>「橋」 bridge ✨📜</move>",
    ],
    "Two-Ways": [
        "<move> and later,</move>",
        "<move>Then, after the storm passed, everyone went home happily</move>",
        "<move>「橋」 bridge</move>",
    ],
    "Alethiometer": [
        "<move>bee hive</move>",
        "<move>Sun moon</move>",
        "<move>owl  moon</move>",
        "<move>alpha-omega, sun</move>",
        "<move>he ant tree serpent owl moon sun sword thunderbolt tree walled-garden "
        "wild-man baby beehive bird bread bull camel candle cauldron chameleon</move>",
    ],
}

# (game, map index) played for 3 rounds: an all-ASCII map and one with characters that the
# bundled judge splits across tokens.
MATCHES = [
    ("Condense", 0), ("Condense", 9), ("Contrast", 0), ("Contrast", 8),
    ("Synthesize", 0), ("Synthesize", 6), ("Two-Ways", 0), ("Two-Ways", 1),
    ("Alethiometer", 0), ("Alethiometer", 5), ("Horizon", 0), ("Horizon", 3),
]
# Matches that end with no result: an ensure failed 101 times, a provider error.
NO_RESULT = [
    ("Alethiometer", 1, ["<move>banana split</move>"]),
    ("Condense", 1, ["<move>harbour lights</move>", "!api-error"]),
]
API_ERROR = "!api-error"


def _stringify(value: Any) -> Any:
    return str(value) if value.__class__.__name__ == "XString" else value


def _event(event: dict[str, Any]) -> dict[str, Any]:
    """An event of the reference's history as JSON (token lists as [token, value] pairs
    with the list's scale applied, as the presentation sdk reads them)."""
    out: dict[str, Any] = {"type": event["type"], "line_num": event["line_num"]}
    if event["type"] == "elicit_response":
        out["response"] = event["response"]
    elif event["type"] == "reveal":
        out["values"] = {k: _stringify(v) for k, v in event["values"].items()}
    elif event["type"] == "reward":
        value = event["value"]
        out["total"] = value.total_xent()
        out["pairs"] = [[t, v * value.scale] for t, v in value.pairs]
    elif event["type"] == "failed_ensure":
        out["results"] = [bool(r) for r in event["ensure_results"]]
    elif event["type"] == "elicit_request":
        out["var_name"] = event["var_name"]
        out["max_len"] = event["max_len"]
    return out


async def _play(config: dict[str, Any], judge: Any, game: str, index: int,
                replies: list[str], hashed: bool) -> dict[str, Any]:
    default_players = importlib.import_module("xega.runtime.default_players")
    players = importlib.import_module("xega.runtime.players")
    errors = importlib.import_module("xega.common.errors")
    run_benchmark = importlib.import_module("xega.benchmark.run_benchmark")
    turns: list[dict[str, Any]] = []

    class ScriptedClient:
        """Stands for the provider: answers each request with the next scripted reply
        (the last one again when the script runs out)."""

        async def request(self, messages: list[dict[str, str]]) -> tuple[str, dict[str, int]]:
            (message,) = messages
            reply = replies[min(len(turns), len(replies) - 1)]
            prompt = message["content"]
            turns.append({
                "prompt_sha256" if hashed else "prompt":
                    hashlib.sha256(prompt.encode()).hexdigest() if hashed else prompt,
                "reply": reply,
            })
            if reply == API_ERROR:
                raise errors.XegaApiError("scripted provider failure", provider="openai")
            return reply, {"input_tokens": 0, "output_tokens": 0}

    class ScriptedPlayer(default_players.DefaultXGP):
        def __init__(self, name: str, ident: str, options: Any, game_map: Any) -> None:
            default_players.XGP.__init__(self, name, ident, options, game_map)
            self.client = ScriptedClient()
            self.game_code = game_map["game_map"]["code"]
            self.event_history = []
            self.conversation = []
            self.reminder_message = None
            self.presentation_function = default_players.get_presentation_function(game_map)

        async def make_move(self, var_name: str, registers: Any) -> Any:
            move, usage = await super().make_move(var_name, registers)
            turns[-1]["move"] = move
            return move, usage

    # This match's player (its own script and turns): the reference's registry of types.
    players.player_constructors.pop("scripted", None)
    players.register_player_type("scripted", ScriptedPlayer)
    game_map = [m for m in config["maps"] if m["name"] == game][index]
    metadata = dict(config["metadata"], num_rounds_per_game=3)
    executable = {
        "game_map": game_map, "metadata": metadata,
        "player": {"name": "black", "id": "scripted", "player_type": "scripted",
                   "options": {}},
    }
    result = await run_benchmark.run_game(executable, judge)
    out: dict[str, Any] = {"game": game, "map_seed": game_map["map_seed"], "rounds": 3,
                           "replies": replies, "turns": turns}
    if result is None:
        out["result"] = None  # the reference stores nothing for this map
        return out
    out["result"] = {
        "score": result["score"],
        "rounds": [
            {"score": r["score"], "events": [_event(e) for e in r["history"]]}
            for r in result["round_results"]
        ],
    }
    return out


def record_matches(config_path: Path, judge_dir: Path, out: Path) -> None:
    judge_module = importlib.import_module("xega.runtime.judge")
    config = json.loads(config_path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        copy = _judge_copy(judge_dir, Path(tmp))
        judge = judge_module.Judge("bundled", hf_dir_path=str(copy.parent))
        matches = []
        for game, index in MATCHES:
            maps = [m for m in config["maps"] if m["name"] == game]
            replies = SCRIPTS.get(game) or _horizon_replies(
                _story_of(maps[index]["code"])
            )
            matches.append(asyncio.run(_play(config, judge, game, index, replies, False)))
        no_result = [
            asyncio.run(_play(config, judge, game, index, replies, True))
            for game, index, replies in NO_RESULT
        ]
    document = {"matches": matches, "no_result": no_result}
    out.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def _story_of(map_code: str) -> str:
    import ast

    call = ast.parse(map_code.splitlines()[0].strip()).body[0].value  # type: ignore[attr-defined]
    return str(call.keywords[0].value.value)


# ------------------------------------------------------------------------ small cases


def record_words(package: str, out: Path) -> None:
    variables = importlib.import_module(f"{package}.runtime.variables")
    cases = [
        {"allowed": SYMBOLS, "text": t, "result": bool(variables.only_uses_words(SYMBOLS, t))}
        for t in WORD_TEXTS
    ]
    out.write_text(json.dumps(cases, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def record_cuts(judge_dir: Path, out: Path) -> None:
    judge_module = importlib.import_module("xega.runtime.judge")
    with tempfile.TemporaryDirectory() as tmp:
        copy = _judge_copy(judge_dir, Path(tmp))
        judge = judge_module.Judge("bundled", hf_dir_path=str(copy.parent))
        cases = [
            {"move": move, "n": n, "tokens": judge.num_tokens(move),
             "cut": str(judge.first_n_tokens(move, n))}
            for move, n in CUTS
        ]
    out.write_text(json.dumps(cases, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "matches":
        record_matches(Path(args[0]), Path(args[1]), Path(args[2]))
    elif command == "words":
        record_words(args[0], Path(args[1]))
    elif command == "cuts":
        record_cuts(Path(args[0]), Path(args[1]))
    else:
        raise SystemExit(f"unknown command {command!r}: matches, words or cuts")
