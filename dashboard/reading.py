"""Replay as reading: a judged text shown as flowing text, each token shaded by what it
gave the rewarded seat, on a diverging scale centred on 0 and clipped, so one extreme token
does not wash the rest out; the exact bits are in each token's hover title.

The value shaded is a token's contribution to the seat's reward, coefficient x bits, so one
colour means gain and the other loss whatever the term's sign. Player text is always HTML-
escaped (`html.escape`, quotes included): it can never become markup.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence

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


def token_spans(tokens: Sequence[str], bits: Sequence[float], coefficient: int, clip: float,
                seat: str) -> str:
    """The tokens as escaped, shaded spans that wrap like text; hover: exact bits."""
    spans = []
    for index, (token, value) in enumerate(zip(tokens, bits, strict=True)):
        gained = coefficient * value
        background, ink = shade(gained, clip)
        title = (f"token {index}: {token!r}: {gained:+.3f} bits for {seat} "
                 f"(term value {value:.3f} x coefficient {coefficient:+d})")
        spans.append(
            f'<span class="xa-token" data-bits="{gained:.6g}" title="{html.escape(title)}" '
            f'style="background:{background};color:{ink}">{html.escape(token)}</span>'
        )
    return "".join(spans)


def reading_html(label: str, tokens: Sequence[str], bits: Sequence[float], coefficient: int,
                 clip: float, seat: str) -> str:
    """One judged text as a labelled block of reading (whitespace and line breaks kept)."""
    return (
        '<div class="xa-reading" style="margin:0.2rem 0 0.8rem 0">'
        f'<div style="font-size:0.85rem;color:#444">{html.escape(label)}</div>'
        '<div style="white-space:pre-wrap;word-break:break-word;line-height:1.7;'
        'font-family:ui-monospace,monospace;font-size:0.95rem">'
        f"{token_spans(tokens, bits, coefficient, clip, seat)}</div></div>"
    )


def legend_html(clip: float, seat: str) -> str:
    """The scale's key: which colour is gain and which is loss for `seat`, and where it
    saturates."""
    stops = ", ".join(shade(v * clip, clip)[0] for v in (-1.0, -0.5, 0.0, 0.5, 1.0))
    who = html.escape(seat)
    return (
        '<div class="xa-legend" style="display:flex;flex-wrap:wrap;align-items:center;'
        'gap:0.5rem;font-size:0.85rem;margin:0.3rem 0">'
        f'<span>&minus;{clip:g} bits or less: <b>loss</b> for {who}</span>'
        f'<span style="display:inline-block;width:12rem;height:0.9rem;'
        f'background:linear-gradient(to right, {stops});border:1px solid #999"></span>'
        f'<span>+{clip:g} bits or more: <b>gain</b> for {who}</span>'
        '<span style="color:#555">(white: 0; hover a token for its exact bits)</span></div>'
    )
