"""A story source's file path in a tournament file is read from the file's folder.

Game paths already are (`load_game_ref(..., base_dir=...)`); a story source whose spec
declares its ':' argument a path (`SpecParams.arg_is_path`: `corpus:`, `xent-maps:`) gets
the same, so that a tournament folder (e.g. the one `arena import-benchmark` writes) can
be moved or run from anywhere. The spec's text (`raw`) is kept: stored map names made from
it do not change with the folder the file is run from.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from arena.specs import Spec, parse_spec

if TYPE_CHECKING:
    from arena.plugins.registry import Registry

__all__ = ["story_spec"]


def story_spec(text: str, base_dir: Path, registry: Registry) -> Spec:
    """The parsed story source spec `text` of a tournament file in `base_dir`, its path
    argument (if the source declares one) made absolute from `base_dir`."""
    spec = parse_spec(text)
    declared = getattr(registry.story_source_entry(spec.name), "params", None)
    if declared is None or not declared.arg_is_path or not spec.arg:
        return spec
    path = Path(spec.arg).expanduser()
    if path.is_absolute():
        return spec
    return Spec(spec.name, str(base_dir / path), spec.params, raw=spec.raw)
