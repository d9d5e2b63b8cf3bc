"""The built-in players, registered through the `arena_players` hook like any plugin, and
the model-driven `llm` meta-sampler (`arena_samplers`), which shares their model code."""

from __future__ import annotations

from collections.abc import Callable

from arena.lang.limits import MOVE_WORDS_CEILING
from arena.players.llm.player import SPEC_PARAMS as LLM_PARAMS
from arena.players.llm.player import create_llm_player
from arena.players.llm.player import parse_settings as llm_settings
from arena.players.llm.sampler import SPEC_PARAMS as LLM_SAMPLER_PARAMS
from arena.players.llm.sampler import create_llm_sampler
from arena.players.local.hf_player import SPEC_PARAMS as HF_PARAMS
from arena.players.local.hf_player import create_hf_player
from arena.players.local.hf_player import parse_settings as hf_settings
from arena.players.local.random_words import create_random_player
from arena.players.local.scripted import create_scripted_player
from arena.players.local.search_player import (
    MAX_BEAM,
    MAX_BUDGET,
    check_search_spec,
    create_search_player,
)
from arena.players.people.web import PARAMS as WEB_PARAMS
from arena.players.people.web import create_human
from arena.players.remote.player import SPEC_PARAMS as REMOTE_PARAMS
from arena.players.remote.player import create_remote_player
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_types import PlayerContext, PlayerEntry, PlayerFactory, SamplerEntry
from arena.spec_params import Param, SpecParams
from arena.specs import Spec


def _by_building(factory: PlayerFactory) -> Callable[[Spec], object]:
    """A spec check for players whose construction is cheap and has no side effects (no
    model is loaded, no server started, nothing read from the network)."""
    return lambda spec: factory(spec, PlayerContext())


@hookimpl
def arena_players() -> list[PlayerEntry]:
    return [
        PlayerEntry(
            "random",
            create_random_player,
            "Seeded random English words (a baseline).",
            check=_by_building(create_random_player),
            params=SpecParams(params=(
                Param("words", "int", help="words per move (default: 1..max_len)", minimum=1,
                      maximum=MOVE_WORDS_CEILING),
                Param("seed", "int", 0, "extra seed"),
            )),
        ),
        PlayerEntry(
            "scripted",
            create_scripted_player,
            "Plays a fixed script of moves, one per register, cycling (for tests).",
            check=_by_building(create_scripted_player),
            params=SpecParams(
                arg="move1|move2|... (<raise> fails, <none> returns None)",
                arg_required=True,
                params=(Param("per_round", "bool", False, "restart the script each round"),),
            ),
        ),
        PlayerEntry(
            "litellm",
            create_llm_player,
            "Any model litellm reaches (hosted APIs; vLLM, Ollama, llama.cpp via api_base).",
            LLM_PARAMS,
            check=llm_settings,
        ),
        PlayerEntry(
            "hf",
            create_hf_player,
            "A local transformers causal LM (chat template when it has one).",
            HF_PARAMS,
            check=hf_settings,
        ),
        PlayerEntry(
            "search",
            create_search_player,
            "Judge-guided beam search over word sequences (a strong baseline).",
            check=check_search_spec,
            params=SpecParams(params=(
                Param("budget", "int", 64, "simulations per move", minimum=1,
                      maximum=MAX_BUDGET),
                Param("beam", "int", 4, "candidates kept per generation", minimum=1,
                      maximum=MAX_BEAM),
                Param("seed", "int", 0, "extra seed"),
                Param("vocab", "str", help="extra candidate words, comma-separated"),
            )),
        ),
        PlayerEntry(
            "human",
            create_human,
            "A person: at the terminal ('human'), or in the browser through the play server "
            "('human:web?name=<person>').",
            check=_by_building(create_human),
            params=SpecParams(
                arg="'web' for a browser seat (default: the terminal)",
                params=(Param("code", "bool", True, "show the game code (terminal)"),
                        *WEB_PARAMS),
            ),
        ),
        PlayerEntry(
            "remote",
            create_remote_player,
            "An external agent over a websocket (see examples/remote_agent.py).",
            REMOTE_PARAMS,
            check=_by_building(create_remote_player),
        ),
    ]


@hookimpl
def arena_samplers() -> list[SamplerEntry]:
    return [
        SamplerEntry(
            "llm",
            create_llm_sampler,
            "A language model writes variants of the game, repaired against the checker",
            params=LLM_SAMPLER_PARAMS,
        )
    ]
