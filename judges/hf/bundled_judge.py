"""The bundled offline judge: a small GPT-2 shipped as package data in `judges/hf/bundled/`.

It was trained by `python -m arena.judges.hf.training.train` on the procedural story corpus of
`arena.judges.hf.training.corpus` (see `training_info.json` next to the weights) and loads through
the same `HFJudge.from_pretrained` path as any hub model, so it needs torch but no network.
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Mapping
from pathlib import Path

from arena.errors import JudgeError, UnknownNameError
from arena.protocols.judge import Judge

BUNDLED_FILES = ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json")
PARAMS = ("device", "dtype", "attn")
RETRAIN = "python -m arena.judges.hf.training.train --out judges/hf/bundled"


def bundled_model_path() -> Path:
    """The folder holding the bundled checkpoint; `JudgeError` if a file is missing."""
    path = Path(str(importlib.resources.files("arena.judges.hf").joinpath("bundled")))
    missing = [name for name in BUNDLED_FILES if not (path / name).is_file()]
    if missing:
        raise JudgeError(
            f"The bundled judge checkpoint is incomplete at {path}: missing "
            f"{', '.join(missing)}. Reinstall xent-arena, or rebuild it with `{RETRAIN}`."
        )
    return path


def check_bundled_params(params: Mapping[str, str]) -> None:
    """`UnknownNameError` for a parameter the bundled judge does not take."""
    for key in params:
        if key not in PARAMS:
            raise UnknownNameError(
                "bundled judge parameter", key, PARAMS, "Remove it or use one of those."
            )


def create_bundled_judge(params: Mapping[str, str]) -> Judge:
    """The bundled judge; parameters: device (default cpu), dtype (float32), attn."""
    check_bundled_params(params)
    from arena.judges.hf.judge import HFJudge

    return HFJudge.from_pretrained(
        str(bundled_model_path()),
        device=params.get("device", "cpu"),
        dtype=params.get("dtype", "float32"),
        attn_implementation=params.get("attn") or None,
        name="bundled",
    )
