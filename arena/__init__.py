"""Xent Arena: Cross-Entropy games, judges, players, tournaments and ratings.

This façade is all a plugin needs: the protocols to implement, the hook marker, the event
types and the error tree.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from arena.errors import (
    ArenaError,
    ConfigError,
    GameRuntimeError,
    GameSyntaxError,
    JudgeError,
    MissingExtraError,
    PlayerError,
    PluginError,
    UnknownNameError,
)
from arena.events import Event
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_types import (
    FineTunerEntry,
    GameEntry,
    JudgeEntry,
    PlayerContext,
    PlayerEntry,
    StorySourceEntry,
)
from arena.protocols.finetune import FineTuner, FineTuneRequest, FineTuneResult
from arena.protocols.judge import (
    GenerateRequest,
    Judge,
    JudgeInfo,
    ScoreRequest,
    TokenScores,
)
from arena.protocols.player import (
    GameView,
    HistoryItem,
    MoveRequest,
    Player,
    RevealedValue,
    RewardTermView,
    RoundMemory,
)
from arena.protocols.story import MapBoundStorySource, StoryRequest, StorySource
from arena.spec_params import Param, SpecParams
from arena.specs import Spec, parse_spec

try:  # the one version source is pyproject.toml's [project] version, read from the metadata
    __version__ = version("xent-arena")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "ArenaError",
    "ConfigError",
    "Event",
    "FineTuneRequest",
    "FineTuneResult",
    "FineTuner",
    "FineTunerEntry",
    "GameEntry",
    "GameRuntimeError",
    "GameSyntaxError",
    "GameView",
    "GenerateRequest",
    "HistoryItem",
    "Judge",
    "JudgeEntry",
    "JudgeError",
    "JudgeInfo",
    "MapBoundStorySource",
    "MissingExtraError",
    "MoveRequest",
    "Param",
    "Player",
    "PlayerContext",
    "PlayerEntry",
    "PlayerError",
    "PluginError",
    "RevealedValue",
    "RewardTermView",
    "RoundMemory",
    "ScoreRequest",
    "Spec",
    "SpecParams",
    "StoryRequest",
    "StorySource",
    "StorySourceEntry",
    "TokenScores",
    "UnknownNameError",
    "__version__",
    "hookimpl",
    "parse_spec",
]
