"""What the `llm` meta-sampler says to a model and how it reads the reply: the prompt (a
compact XGL reference shipped as package data, example games, the parent and a direction
of change), the extraction of the game from a reply, and the repair message listing the
static checker's diagnostics with their carets.

Replies are untrusted text: one over `MAX_REPLY_CHARS` is not read at all, extraction is a
single pass over lines, and nothing in a reply is ever executed (the checker parses it into
the project's own syntax tree).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import PurePath

from arena.errors import ArenaError, GameSyntaxError
from arena.match_setup import load_game_text

MAX_REPLY_CHARS = 200_000  # twice the checker's source limit; a longer reply is not read
KEPT_CHARS = 20_000  # of a reply, recorded and sent back to the model
SHOWN_PROBLEMS = 20  # diagnostics per repair message, like GameSyntaxError's listing
DIALECT_FENCES = ("xgl", "xent")
DIRECTIONS = (
    "change what the reward measures (other xent/xed terms, signs or weights)",
    "change the move lengths or add a constraint on the moves with ensure",
    "change who plays: add a second player (e.g. alice and bob) with their own rewards",
    "change what a player is shown (reveal more, or hide something and make it guess)",
    "repeat part of the game with beacon and replay so that moves build on each other",
    "change the data the game is played on (story calls) and what is done with it",
)


@cache
def xgl_reference() -> str:
    """The compact XGL reference the model is shown (package data)."""
    reference = files("arena.gamespace.sampling").joinpath("xgl_reference.txt")
    return reference.read_text(encoding="utf-8")


@dataclass(frozen=True)
class Example:
    """A game shown to the model: its name, file name and text."""

    name: str
    filename: str
    source: str


def fence_of(filename: str) -> str:
    """The fence label for a game file: its dialect suffix, else xgl."""
    suffix = PurePath(filename).suffix.lstrip(".")
    return suffix if suffix in DIALECT_FENCES else "xgl"


def _block(game: Example) -> str:
    return f"```{fence_of(game.filename)}\n{game.source.rstrip()}\n```"


def first_messages(
    parent: Example, examples: Sequence[Example], rng: random.Random
) -> list[dict[str, str]]:
    """The system message (task and XGL reference) and the user message (examples, the
    parent and one direction of change drawn with `rng`)."""
    system = (
        "You design Xent games: short programs in XGL, the Xent Game Language, in which "
        "players write texts and are scored by a language model judge's cross-entropy. "
        "Your games must pass the arena's static checker.\n\n" + xgl_reference()
    )
    parts = [
        f"Example game `{game.name}` ({game.filename}):\n{_block(game)}" for game in examples
    ]
    fence = fence_of(parent.filename)
    parts.append(f"The parent game `{parent.name}` ({parent.filename}):\n{_block(parent)}")
    parts.append(
        f"Write one new game that is a variant of `{parent.name}`: keep what makes it a game "
        f"of skill, but {rng.choice(DIRECTIONS)}. Start it with `#` header lines (a title, "
        "then `# measures: ...`), keep it under 48 lines, and reply with the complete game "
        f"in one ```{fence} fenced block."
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


def extract_game(reply: str) -> str:
    """The game in a reply: the last fenced block labelled xgl or xent, else the last
    fenced block, else the whole reply. A block left open (a reply cut at its token limit)
    runs to the end."""
    blocks: list[tuple[str, list[str]]] = []
    current: tuple[str, list[str]] | None = None
    for line in reply.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            if current is None:
                current = (stripped[3:].strip().lower(), [])
            else:
                blocks.append(current)
                current = None
        elif current is not None:
            current[1].append(line)
    if current is not None:
        blocks.append(current)
    if not blocks:
        return reply.strip() + "\n"
    labelled = [body for label, body in blocks if label in DIALECT_FENCES]
    return "\n".join((labelled or [body for _, body in blocks])[-1]).strip("\n") + "\n"


def check_problems(source: str, filename: str) -> list[str]:
    """Every problem the static checker finds in `source`, rendered with its caret listing
    (the function the pipeline's static stage uses); [] when the game checks."""
    try:
        game = load_game_text(source, filename)
    except GameSyntaxError as error:
        return [d.render() for d in error.diagnostics]
    except ArenaError as error:
        return [str(error)]
    if not game.program.instructions:
        return [f"{filename}: error: the reply holds no instruction, only comments or nothing."]
    return []


def too_long(chars: int) -> str:
    return (
        f"The reply was {chars:,} characters long and was not read: the arena reads at most "
        f"{MAX_REPLY_CHARS:,}, and a game has at most 64 short lines."
    )


def repair_message(problems: Sequence[str], filename: str) -> str:
    """The follow-up asking for a corrected game, listing the checker's diagnostics."""
    shown = list(problems[:SHOWN_PROBLEMS])
    more = len(problems) - len(shown)
    listing = "\n\n".join(shown) + (f"\n\n... and {more} more problem(s)." if more else "")
    return (
        "The arena's static checker rejected that game. Each problem gives the line and "
        f"column, the line itself and a caret (^) under the offending text:\n\n{listing}\n\n"
        "Fix every problem and reply with the complete corrected game in one "
        f"```{fence_of(filename)} fenced block."
    )


def clip(text: str, limit: int = KEPT_CHARS) -> str:
    """`text`, cut to `limit` characters with a note saying how much was cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit:,} more characters not kept]"
