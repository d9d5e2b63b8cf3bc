"""The two dialects of the language (XGL.md section 9): the one type every layer shares."""

from __future__ import annotations

from typing import Literal

Dialect = Literal["xgl", "xent"]
DIALECTS: tuple[Dialect, ...] = ("xgl", "xent")
