"""The hostile programs of the limits tests, in one place, so that the tests and
`benchmarks/limits_headroom.py` (which times each one at the default limits) play the same
attacks. Each entry names the limit that must stop it at the defaults."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Hostile:
    """An attack game and the limit that stops it at the default limits."""

    name: str
    source: str
    limit: str
    at_load: bool = False  # stopped by the checker, before any map is made
    role: str = "black"  # the one seat that plays


def _doubled(register: str, passes: int) -> str:
    """Lines that double `register` `passes + 1` times: "ab" -> 3 * 2**(passes + 1) - 1
    characters (a list: 2**(passes + 1) items)."""
    return f'assign({register}="ab")\nbeacon(flag_1)\nassign({register}={register}+{register})\n' + (
        f"replay(flag_1, {passes})\n"
    )


# Issue 24 item 6: a string doubled to 786,431 characters, then scored in a loop; on the
# n-gram judge it ran ~28 minutes before max_judge_chars (then 100 million) fired.
JUDGE_REPLAY = (
    "elicit(t, 5)\n" + _doubled("s", 17) + "beacon(flag_2)\nreward(xent(s))\nreplay(flag_2, 5000)\n"
)
# The worst case for the judge budget: the string is just under it, so the judge really
# scores it (393,215 characters) once before the second request is refused.
JUDGE_REPLAY_WORST = JUDGE_REPLAY.replace("replay(flag_1, 17)", "replay(flag_1, 16)")
# Issue 24 item 6: 5,400 story(4000) sites took ~1.5 hours per map (90 per line, 60 lines).
STORY_SITES = "".join(
    "assign(s=" + "+".join(["story(4000)"] * 90) + ")\n" for _ in range(60)
) + "elicit(t, 5)\n"
# Many sites without a length: each asks for the default length.
STORY_DEFAULTS = "".join(
    "assign(s=" + "+".join(["story()"] * 90) + ")\n" for _ in range(10)
) + "elicit(t, 5)\n"

HOSTILE: tuple[Hostile, ...] = (
    Hostile(
        "doubling_string", _doubled("s", 60) + "elicit(t, 5)\nreward(xent(s | t))\n",
        "max_value_chars",
    ),
    Hostile(
        "doubling_list",
        'assign(l=["ab"])\nbeacon(flag_1)\nassign(l=l+l)\nreplay(flag_1, 60)\nelicit(t, 5)\n',
        "max_list_items",
    ),
    Hostile(
        "list_of_long_strings",
        _doubled("s", 13)
        + "assign(l=[s, s, s])\nbeacon(flag_2)\nassign(l=l+l)\nreplay(flag_2, 60)\nelicit(t, 5)\n",
        "max_value_chars",
    ),
    Hostile(
        "filling_registers",
        _doubled("s", 17) + "assign(t=s, x=s, y=s, p=s, s0=s, s1=s)\nelicit(t2, 5)\n",
        "max_register_chars",
    ),
    Hostile(
        "rebuilding_in_a_loop",
        _doubled("s", 15) + 'beacon(flag_2)\nassign(t=s + "x")\nreplay(flag_2, 5000)\nelicit(x, 5)\n',
        "max_round_chars",
    ),
    Hostile(
        "revealing_in_a_loop",
        _doubled("s", 15) + "beacon(flag_2)\nreveal(alice, s)\nreplay(flag_2, 5000)\n"
        "elicit(alice, x, 5)\n",
        "max_round_chars",
        role="alice",
    ),
    Hostile(
        "tokenising_in_a_loop",
        _doubled("s", 13)
        + "beacon(flag_2)\nassign(x=first_n_tokens(s, 2))\nreplay(flag_2, 5000)\nelicit(t, 5)\n",
        "max_judge_chars",
    ),
    Hostile("scoring_in_a_loop", JUDGE_REPLAY, "max_judge_chars"),
    Hostile("scoring_in_a_loop_worst_case", JUDGE_REPLAY_WORST, "max_judge_chars"),
    Hostile("many_long_stories", STORY_SITES, "max_map_story_tokens", at_load=True),
    Hostile("many_default_stories", STORY_DEFAULTS, "max_map_story_tokens", at_load=True),
)
