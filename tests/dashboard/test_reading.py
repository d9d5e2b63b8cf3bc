"""Replay as reading: tokens as escaped, shaded text on a diverging scale centred on 0 (gain
one colour, loss the other, whatever the term's sign), clipped, exact bits on hover; the
replay chart draws every seat even when their scores coincide; the seat's rewards as it
received them."""

from __future__ import annotations

import html
import re

import pandas as pd

from arena.dashboard import charts, reading
from arena.dashboard.seatview import received_terms, received_total
from arena.events import Reward, RewardTerm, SeatRewardTerm


def test_a_loss_and_a_gain_get_the_two_ends_of_the_scale_and_zero_is_white() -> None:
    clip = 4.0
    assert reading.shade(0.0, clip)[0] == "#ffffff"
    gain, loss = reading.shade(clip, clip)[0], reading.shade(-clip, clip)[0]
    assert gain == "#{:02x}{:02x}{:02x}".format(*reading.GAIN_RGB)
    assert loss == "#{:02x}{:02x}{:02x}".format(*reading.LOSS_RGB)
    assert reading.shade(40.0, clip)[0] == gain  # clipped, not off the scale
    assert reading.shade(clip / 2, clip)[0] not in (gain, "#ffffff")  # graded, not saturated


def test_a_negative_coefficient_turns_surprise_into_loss() -> None:
    # the old heat map showed "darker = more surprising" whatever the term's sign
    plus = reading.token_spans(["a"], [3.0], 1, 3.0, "bob")
    minus = reading.token_spans(["a"], [3.0], -1, 3.0, "bob")
    assert reading.shade(3.0, 3.0)[0] in plus and reading.shade(-3.0, 3.0)[0] in minus
    assert "-3.000 bits for bob" in minus and "+3.000 bits for bob" in plus


def test_the_clip_ignores_one_extreme_token() -> None:
    values = [0.5, 1.0, 1.5, 2.0] * 10 + [60.0]
    assert reading.clip_bits(values) == 2.0  # not 60: the rest would be near white
    assert reading.clip_bits([]) == reading.MIN_CLIP_BITS


def test_player_text_is_escaped_and_reads_back_exactly() -> None:
    tokens = ["<script>", "alert(1)", "</script>", " &amp;", ' "q" ', "\n", "<b>x</b>"]
    block = reading.reading_html("xed(t | s) <i>", tokens, [1.0] * len(tokens), 1, 2.0,
                                 "<bob>")
    assert "<script" not in block and "<b>x" not in block and "<i>" not in block
    assert "&lt;bob&gt;" in block
    spans = re.findall(r'<span class="xa-token"[^>]*>([^<]*)</span>', block)
    assert html.unescape("".join(spans)) == "".join(tokens)  # flowing text, line break kept
    titles = re.findall(r'title="([^"]*)"', block)
    assert len(titles) == len(tokens) and all('"' not in t for t in titles)
    assert "white-space:pre-wrap" in block  # wraps like text, no fixed grid


def test_the_legend_names_gain_and_loss_for_the_seat() -> None:
    legend = reading.legend_html(2.5, "alice")
    assert "&minus;2.5 bits or less: <b>loss</b> for alice" in legend
    assert "+2.5 bits or more: <b>gain</b> for alice" in legend
    assert "flex-wrap:wrap" in legend  # wraps on a narrow page instead of being cut off


def test_every_seat_of_the_replay_chart_stays_visible() -> None:
    scores = pd.DataFrame({"round": [1, 2, 1, 2], "seat": ["alice", "alice", "bob", "bob"],
                           "score": [1.0, 2.0, 1.0, 2.0]})  # equal scores: lines coincide
    spec = charts.round_scores(scores).to_dict()
    line, points = spec["layer"]
    assert line["encoding"]["strokeDash"]["field"] == "seat"
    assert points["encoding"]["shape"]["field"] == "seat"
    assert points["mark"]["filled"] is False  # hollow: a marker on top leaves the one below
    sizes = {row["seat"]: row["marker"] for row in next(iter(spec["datasets"].values()))}
    assert sizes["alice"] > sizes["bob"]  # nested, not one marker hiding the other


def test_a_seat_gets_its_reward_as_it_received_it() -> None:
    term = RewardTerm(source="xed(s | s0)", kind="xed", coefficient=1, target="secret story",
                      context="guess", tokens=["secret", " story"], bits=[2.0, 1.234567],
                      total=3.234567)
    hidden = SeatRewardTerm(source="xed(s | s0)", coefficient=1, tokens=[], bits=[],
                            total=3.23, hidden=True)
    given = Reward(round=1, line=3, player="bob", total=3.234567, terms=[term],
                   seat_view=[hidden])
    assert received_terms(given) == [hidden] and received_total(given) == 3.23
    # a transcript stored before seat views: the total only, rounded, no tokens
    old = Reward(round=1, line=3, player="bob", total=3.234567, terms=[term])
    (only,) = received_terms(old)
    assert only.hidden and only.tokens == [] and only.total == 3.23
