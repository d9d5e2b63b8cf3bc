"""Replay as reading: a judged text shown as flowing text, each token shaded by what it
gave the rewarded seat, on a diverging scale centred on 0 and clipped, so one extreme token
does not wash the rest out; the exact bits are in each token's hover title.

The value shaded is a token's contribution to the seat's reward, coefficient x bits, so one
colour means gain and the other loss whatever the term's sign. Player text is always HTML-
escaped (`html.escape`, quotes included): it can never become markup.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

# The colour scale lives in the core: the play page shades a person's rewards with it too.
from arena.heat_scale import CLIP_QUANTILE, GAIN_RGB, LOSS_RGB, MIN_CLIP_BITS, clip_bits, shade

__all__ = ["CLIP_QUANTILE", "GAIN_RGB", "LOSS_RGB", "MIN_CLIP_BITS", "clip_bits", "legend_html",
           "reading_html", "shade", "token_spans"]


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
