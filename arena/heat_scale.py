"""The colour scale of per-token bits: a diverging scale centred on 0 and clipped, so one
extreme token does not wash the rest out. The value shaded is a token's contribution to the
seat's reward (coefficient x bits): one colour means gain and the other loss whatever the
term's sign. The dashboard's replay and the play page shade with it alike.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

GAIN_RGB = (33, 102, 172)  # blue: bits gained by the seat
LOSS_RGB = (178, 24, 43)  # red: bits lost by the seat
CLIP_QUANTILE = 0.95  # the scale ends at this quantile of |value| (rarer extremes saturate)
MIN_CLIP_BITS = 0.5
_DARK_TEXT_FROM = 0.55  # share of the scale from which text turns white


def clip_bits(values: Iterable[float]) -> float:
    """Where the colour scale saturates: the `CLIP_QUANTILE` of |value|, rounded up to a
    half bit, at least `MIN_CLIP_BITS`."""
    sizes = sorted(abs(v) for v in values if math.isfinite(v))
    if not sizes:
        return MIN_CLIP_BITS
    at = sizes[min(len(sizes) - 1, math.ceil(CLIP_QUANTILE * len(sizes)) - 1)]
    return max(MIN_CLIP_BITS, math.ceil(at * 2) / 2)


def shade(value: float, clip: float) -> tuple[str, str]:
    """(background, text colour) of a token worth `value` bits to the seat: white at 0,
    the gain or loss colour at +-`clip` and beyond."""
    share = min(abs(value) / clip, 1.0) if clip > 0 and math.isfinite(value) else 0.0
    end = GAIN_RGB if value >= 0 else LOSS_RGB
    rgb = [round(255 + (c - 255) * share) for c in end]
    return "#{:02x}{:02x}{:02x}".format(*rgb), "#ffffff" if share >= _DARK_TEXT_FROM else "#111111"
