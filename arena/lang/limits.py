"""Resource limits of a game: how big its source, its values and a round's work may grow.

The instruction budget bounds how long a round runs, but not how much it builds: a string
doubled in a loop reaches gigabytes in sixty steps. These limits bound every way a game
can amplify text (source size, literals, values, registers, text produced, text sent to
the judge, story lengths), so that no game, however hostile, exhausts the host. The
defaults sit one to two orders of magnitude above what the bundled games use.

Set them in a tournament file under `[limits]` or with `arena play --limit NAME=VALUE`.
"""

from __future__ import annotations

from typing import Final

from pydantic import BaseModel, ConfigDict, Field

# The judge budget of a round is a fixed amount of judge work, not a time: what the `ngram`
# judge scores in about JUDGE_SECONDS on one core (the bundled transformer is about 3x
# slower). Counting characters keeps outcomes deterministic; a time would not be.
JUDGE_CHARS_PER_SECOND: Final = 40_000
JUDGE_SECONDS: Final = 10
# The length a story() without one asks for (arena.runtime.maps uses it too).
DEFAULT_STORY_TOKENS: Final = 60


class ResourceLimits(BaseModel):
    """Every size limit of a game. Source limits apply when a game is loaded (a
    GameSyntaxError); the others while a round runs (a GameRuntimeError)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # -- checked when the game is loaded
    max_source_chars: int = Field(
        default=100_000, ge=1, description="characters in the whole game source"
    )
    max_line_chars: int = Field(default=10_000, ge=1, description="characters in one line")
    max_literal_chars: int = Field(
        default=5_000, ge=1, description="characters in one string literal, quotes excluded"
    )
    max_story_tokens: int = Field(
        default=4_000, ge=1, description="tokens a story(n) call may ask the story source for"
    )
    max_map_story_tokens: int = Field(
        default=4_000,
        ge=1,
        description="tokens all story() calls of a game together may ask the story source "
        f"for when a map is made (a story() without a length counts {DEFAULT_STORY_TOKENS})",
    )
    max_move_tokens: int = Field(
        default=4_000, ge=1, description="judge tokens an elicit may ask for (its max_len)"
    )
    # -- checked while a round runs
    max_value_chars: int = Field(
        default=1_000_000,
        ge=1,
        description="characters in one value: a string, or all items of a list together",
    )
    max_list_items: int = Field(default=100_000, ge=1, description="items in one list")
    max_register_chars: int = Field(
        default=4_000_000, ge=1, description="characters held by all registers together"
    )
    max_round_chars: int = Field(
        default=200_000_000,
        ge=1,
        description="characters a round may produce: computed values, moves, and text shown "
        "to players (reveals and the registers of each elicit)",
    )
    max_judge_chars: int = Field(
        default=JUDGE_CHARS_PER_SECOND * JUDGE_SECONDS,
        ge=1,
        description="characters a round may send to the judge (targets and contexts scored, "
        "texts tokenised); characters, not tokens, because tokens are only known after the "
        "judge has done the work",
    )

    def exceeded(self, name: str, what: str, actual: int) -> str:
        """"<what> is <actual>, over the limit <name> = <limit> (<what it counts>)": which
        limit was hit and by how much; callers add `raise_hint(name)` where it fits."""
        unit = _UNITS.get(name, "characters")
        return (
            f"{what} is {actual:,} {unit}, over the limit {name} = {getattr(self, name):,} "
            f"({describe(name)})"
        )


_UNITS: Final = {
    "max_list_items": "items",
    "max_story_tokens": "tokens",
    "max_map_story_tokens": "tokens",
    "max_move_tokens": "tokens",
}
# The most words a built-in player builds for one move, whatever max_len it is asked for:
# a request from a remote arena or raised limits never makes a player build gigabytes.
MOVE_WORDS_CEILING: Final = 100_000
DEFAULT_LIMITS: Final = ResourceLimits()
LIMIT_NAMES: Final = tuple(ResourceLimits.model_fields)


def admitting(source: str, limits: ResourceLimits = DEFAULT_LIMITS) -> ResourceLimits:
    """`limits` with load-time limits wide enough for `source`: for code the arena has
    already checked under its own (possibly raised) limits, e.g. a game a player receives."""
    size = max(1, len(source))
    return limits.model_copy(
        update={
            "max_source_chars": max(size, limits.max_source_chars),
            "max_line_chars": max(size, limits.max_line_chars),
            "max_literal_chars": max(size, limits.max_literal_chars),
            "max_story_tokens": 2**62,
            "max_map_story_tokens": 2**62,
            "max_move_tokens": 2**62,
        }
    )


def describe(name: str) -> str:
    """What the limit `name` counts."""
    return ResourceLimits.model_fields[name].description or name


def raise_hint(name: str) -> str:
    """How a user raises the limit `name` (a clause, to follow "; " or start a sentence)."""
    return (
        f"if the game really needs more, raise it with `{name} = N` under [limits] in the "
        f"tournament file, or with `arena play --limit {name}=N`"
    )


def limit_message(limits: ResourceLimits, name: str, what: str, actual: int) -> str:
    """One or two sentences for a runtime error: the limit hit and how to raise it."""
    hint = raise_hint(name)
    return f"{limits.exceeded(name, what, actual)}. {hint[0].upper()}{hint[1:]}."
