"""The built-in fine-tuning mechanism, registered through the same `arena_finetuners` hook as
a third-party plugin's. It lives beside the hf player because it trains that player's model
(the arena core never imports the players package)."""

from __future__ import annotations

from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_types import FineTunerEntry
from arena.plugins.registry import Registry
from arena.specs import Spec


def _make_reinforce(spec: Spec, registry: Registry) -> object:
    from arena.players.finetune.reinforce import (
        create_reinforce,  # torch is imported only when tuning
    )

    return create_reinforce(spec, registry)


@hookimpl
def arena_finetuners() -> list[FineTunerEntry]:
    from arena.players.finetune.reinforce import SPEC_PARAMS

    return [
        FineTunerEntry(
            "reinforce",
            _make_reinforce,
            "REINFORCE with a baseline on a local transformers (hf:) player, AdamW "
            "(paper §4.3.2)",
            SPEC_PARAMS,
        )
    ]
