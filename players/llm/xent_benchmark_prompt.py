"""The published Xent benchmark's prompts (`litellm:...?prompt=xent-benchmark`).

The benchmark (xentlabs/xent, configs/benchmark0.2.json) shows each LLM player one text per
turn, made by a per-game presentation: a header (rules and game code), the story, every
earlier round with its per-token score breakdown, the best score so far. This module renders
the same text from a `MoveRequest` for the six benchmark games, so our numbers sit beside the
published ones. The headers are the benchmark's texts (xent_benchmark_headers.json, MIT);
the rendering is ours. Its conventions, followed to the character:

- scores are shown x10 and rounded (Python's round), per token as ``token|value``;
- a block opens ``<tag>`` and indents its lines by two spaces; a line with a newline inside
  is indented once, except where the benchmark splits a score into lines;
- the benchmark numbers instruction lines from 0 (we number them from 1).

- a token is shown as the judge's tokenizer decodes it alone (`TokenScores.shown`), so a
  character whose bytes span several tokens is U+FFFD in each of them, as in the benchmark.

The text is identical to the reference's on every turn of recorded matches of the six
games (tests/games/test_xent_reference_oracle.py; docs/xent-benchmark.md lists what is
not). Replies are read as the benchmark's player reads them (`benchmark_move`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from arena.errors import PermanentPlayerError
from arena.games import XENT_BENCHMARK_GAMES, xent_benchmark_game
from arena.protocols.player import HistoryItem, MoveRequest

__all__ = ["GAMES", "benchmark_game", "benchmark_move", "render_xent_benchmark"]

SCALE = 10  # the benchmark shows scores x10
ALETHIOMETER_REASON = "Contains invalid symbols not in the allowed set"
HORIZON_REASONS = (
    "Failed to beat baseline comparison for likelihood of `t1`",
    "Failed to beat baseline comparison for likelihood of `t2`",
)


@cache
def _headers() -> dict[str, list[str | dict[str, str]]]:
    text = files("arena.players.llm").joinpath("xent_benchmark_headers.json").read_text("utf-8")
    return json.loads(text)["headers"]  # type: ignore[no-any-return]


class Lines:
    """Text built line by line inside nested ``<tag>`` blocks."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0

    def add(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    def add_split(self, text: str) -> None:
        """Each line of `text` (as str.splitlines cuts it) at the current depth."""
        for line in text.splitlines():
            self.add(line)

    @contextmanager
    def block(self, tag: str) -> Iterator[None]:
        self.add(f"<{tag}>")
        self.depth += 1
        yield
        self.depth -= 1
        self.add(f"</{tag}>")

    def current_round(self, number: int) -> None:
        with self.block(f"round{number}"):
            self.add("<current/>")

    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass(frozen=True)
class Reward:
    """One reward instruction's per-token values (coefficient applied), as the benchmark
    keeps a reward: token strings and values in bits."""

    pairs: tuple[tuple[str, float], ...]

    @property
    def total(self) -> float:
        return sum(value for _, value in self.pairs)

    @property
    def shown(self) -> int:
        return round(self.total * SCALE)

    def tokens(self) -> str:
        return " ".join(f"{token}|{round(value * SCALE)}" for token, value in self.pairs)

    def breakdown(self) -> str:
        return f"Total: {self.shown}\nPer-token: {self.tokens()}"


def _reward(item: HistoryItem) -> Reward:
    pairs = tuple(
        (token, bits * term.coefficient)
        for term in item.terms
        for token, bits in zip(term.shown or term.tokens, term.bits, strict=False)
    )
    return Reward(pairs)


def _rewards(items: Sequence[HistoryItem]) -> list[Reward]:
    return [_reward(i) for i in items if i.kind == "reward"]


@dataclass(frozen=True)
class Attempt:
    text: str
    failed: bool


def _attempts(items: Sequence[HistoryItem]) -> list[Attempt]:
    """Each move with whether the next entry is a failed ensure (a rejected attempt)."""
    out = []
    for index, item in enumerate(items):
        if item.kind == "move":
            nxt = items[index + 1] if index + 1 < len(items) else None
            failed = nxt is not None and nxt.kind == "failed_ensure"
            out.append(Attempt("".join(item.moves.values()), failed))
    return out


def _attempt_line(attempt: Attempt, reason: str) -> str:
    if attempt.failed:
        return f"<invalidMove>{attempt.text}</invalidMove> ({reason})"
    return f"<move>{attempt.text}</move>"


def _first_move(items: Sequence[HistoryItem]) -> str:
    return next(a.text for a in _attempts(items))


def _revealed(items: Sequence[HistoryItem], label: str) -> str:
    found = [i.reveal.value for i in items if i.kind == "reveal" and i.reveal is not None]
    labels = [i.reveal.label for i in items if i.kind == "reveal" and i.reveal is not None]
    return found[labels.index(label)] if label in labels else found[0]


def _move_and_prefix(out: Lines, move: str, prefix: str) -> None:
    if move == prefix:
        out.add(f"<prefix>{move}</prefix>")
    else:
        out.add(f"<move>{move}</move>")
        out.add(f"<prefix>{prefix}</prefix>")


def _header(game: str, request: MoveRequest) -> str:
    return "".join(
        piece if isinstance(piece, str) else request.visible.get(piece["register"], "")
        for piece in _headers()[game]
    )


def _done(request: MoveRequest) -> list[Sequence[HistoryItem]]:
    return [r.history for r in request.previous_rounds]


def _best_reward(request: MoveRequest) -> float | None:
    """The highest single reward of every round so far, x10 (None before any)."""
    totals = [r.total * SCALE for items in _done(request) for r in _rewards(items)]
    totals += [r.total * SCALE for r in _rewards(request.history)]
    return max(totals) if totals else None


def _condense(request: MoveRequest, out: Lines) -> None:
    out.add("")
    out.add("The story:")
    with out.block("story"):
        out.add(request.visible["s"])
    rounds = _done(request)
    if not rounds:
        out.add("First round starting.")
    else:
        with out.block("gameHistory"):
            for number, items in enumerate(rounds):
                with out.block(f"round{number}"):
                    _move_and_prefix(out, _first_move(items), _revealed(items, "x1"))
                    with out.block("score"):
                        out.add_split(_rewards(items)[0].breakdown())
            out.current_round(len(rounds))
        out.add("")
        best = _best_reward(request)
        if best is not None:
            out.add(f"Best score achieved: {best:.3f}")
        out.add("Remember: You want to maximize your score. Higher is better!")
        out.add("")
    out.add("Provide your prefix in <move></move> tags.")


def _contrast(request: MoveRequest, out: Lines) -> None:
    out.add("")
    out.add("The two stories to contrast:")
    out.add(f"Make this predictable: <story1>{request.visible['s1']}</story1>")
    out.add(f"Make this surprising: <story2>{request.visible['s2']}</story2>")
    rounds = _done(request)
    if not rounds:
        out.add("")
        out.add("Round 1 starting.")
    else:
        out.add("")
        out.add("--- Play History ---")
        out.add("")
        best: int | None = None
        with out.block("gameHistory"):
            for number, items in enumerate(rounds):
                helped, hindered = _rewards(items)[:2]
                contrast = helped.shown + hindered.shown
                best = contrast if best is None or contrast > best else best
                with out.block(f"round{number}"):
                    _move_and_prefix(out, _first_move(items), _revealed(items, "x1"))
                    with out.block("scores"):
                        with out.block("story1_predictability"):
                            out.add_split(helped.breakdown())
                        with out.block("story2_surprise"):
                            out.add_split(hindered.breakdown())
                        out.add(f"<contrastScore>{contrast}</contrastScore>")
            out.current_round(len(rounds))
        out.add("")
        if best is not None:
            out.add(f"Best contrast score achieved: {best}")
            out.add("Remember: maximize your score by helping story 1 while hindering story 2!")
        out.add("")
    out.add("Provide your prefix in <move></move> tags.")


def _alethiometer(request: MoveRequest, out: Lines) -> None:
    story = request.visible["s"]
    out.add("")
    out.add(f"<targetStory>{story}</targetStory>")
    out.add("")
    out.add("<validSymbols>")
    out.add(request.visible["s1"])
    out.add("</validSymbols>")
    out.add("")
    out.add("A history of your play so far:")
    out.add("")
    best: int | None = None
    with out.block("fullHistory"):
        for number, items in enumerate(_done(request), start=1):
            attempts = _attempts(items)
            if not attempts:
                continue
            rewards = _rewards(items)
            with out.block(f"round{number}"):
                with out.block("symbolSelection"):
                    for attempt in attempts:
                        out.add(_attempt_line(attempt, ALETHIOMETER_REASON))
                if rewards:
                    with out.block("score"):
                        out.add_split(rewards[0].breakdown())
                    shown = rewards[0].shown
                    best = shown if best is None or shown > best else best
        current = f"round{len(request.previous_rounds) + 1}"
        with out.block(current), out.block("symbolSelection"):
            for attempt in _attempts(request.history):
                if attempt.failed:
                    out.add(_attempt_line(attempt, ALETHIOMETER_REASON))
            out.add("You are HERE. Provide a valid symbol sequence.")
    out.add("")
    out.add("Current game status:")
    out.add(f"Target story: {story}")
    if best is not None:
        out.add(f"Best score achieved: {best:.1f}")
    out.add("")
    out.add(
        "Remember: Use only the valid symbols shown above. Each symbol can appear multiple times."
    )
    out.add("")
    out.add("Provide your symbol sequence in <move></move> tags.")


def _two_ways(request: MoveRequest, out: Lines) -> None:
    best: float | None = None
    scored = [(n, items) for n, items in enumerate(_done(request), start=1) if _rewards(items)]
    if scored:
        out.add("")
        with out.block("gameHistory"):
            for number, items in scored:
                rewards = _rewards(items)
                if len(rewards) < 2:
                    continue
                forward, backward = rewards[0], rewards[1]
                total = forward.total + backward.total
                best = total if best is None or total > best else best
                if not _attempts(items):
                    continue
                with out.block(f"round{number}"):
                    out.add(f"<bridge>{_first_move(items)}</bridge>")
                    for tag, reward in (("scoreABC", forward), ("scoreCBA", backward)):
                        with out.block(tag):
                            out.add(f"Total: {reward.total:.3f}")
                            out.add(f"Per-token: {reward.tokens()}")
                    out.add(f"<totalScore>{total:.3f}</totalScore>")
    out.add("")
    out.add("Current game status:")
    out.add(f"<storyA>{request.visible['s1']}</storyA>")
    out.add(f"<storyC>{request.visible['s2']}</storyC>")
    out.add("")
    out.add(
        'Your goal: Create a bridge text B that makes both "A→B→C" and "C→B→A" flow naturally.'
    )
    if best is not None:
        out.add(f"Best score so far: {best:.3f}")
    out.add("")
    out.add("Provide your bridge text in <move></move> tags.")


def _synthesize(request: MoveRequest, out: Lines) -> None:
    out.add("")
    out.add("The three stories to synthesize:")
    for n in (1, 2, 3):
        out.add(f"<story{n}>{request.visible[f's{n}']}</story{n}>")
    out.add("")
    out.add("--- Play History ---")
    out.add("")
    best: int | None = None
    rounds = _done(request)
    with out.block("gameHistory"):
        for number, items in enumerate(rounds):
            with out.block(f"round{number}"):
                _move_and_prefix(out, _first_move(items), _revealed(items, "x1"))
                total = 0
                with out.block("scores"):
                    for n, reward in enumerate(_rewards(items), start=1):
                        with out.block(f"story{n}"):
                            total += reward.shown
                            out.add_split(reward.breakdown())
                    out.add(f"<totalScore>{total}</totalScore>")
                best = total if best is None or total > best else best
        out.current_round(len(rounds))
    out.add("")
    if best is not None:
        out.add(f"Best total score achieved: {best}")
        out.add("Remember: You want to maximize your total score across all three stories!")
        out.add("")
    out.add("Provide your prefix in <move></move> tags.")


def _second_elicit_line(code: str) -> int | None:
    """The line (from 1) of the game's second elicit: Horizon's t2."""
    lines = [n for n, text in enumerate(code.splitlines(), 1) if text.strip().startswith("elicit(")]
    return lines[1] if len(lines) > 1 else None


def _horizon(request: MoveRequest, out: Lines) -> None:
    second = _second_elicit_line(request.game.code)

    def split(
        items: Sequence[HistoryItem], current: bool
    ) -> tuple[list[HistoryItem], list[HistoryItem]]:
        """t1's and t2's entries. The benchmark splits a finished round before the second
        elicit's line and the current one after it (so there the t2 moves so far count as
        t1 attempts and their failed ensures as neither): so do we."""
        if second is None:
            return list(items), []
        cut = second + 1 if current else second
        return [i for i in items if i.line < cut], [i for i in items if i.line >= cut]

    out.add("A history of your play so far:")
    out.add("")
    rounds = _done(request)
    with out.block("fullHistory"):
        for number, items in enumerate(rounds):
            first, then = split(items, current=False)
            with out.block(f"round_{number}"):
                with out.block("t1_selection"):
                    for attempt in _attempts(first):
                        out.add(_attempt_line(attempt, HORIZON_REASONS[0]))
                with out.block("t2_selection"):
                    for attempt in _attempts(then):
                        out.add(_attempt_line(attempt, HORIZON_REASONS[1]))
                with out.block("reward"):
                    out.add(_rewards(items)[0].breakdown())
        first, then = split(request.history, current=True)
        with out.block(f"round_{len(rounds)}"):
            attempts = _attempts(first)
            with out.block("t1_selection"):
                for attempt in attempts:
                    out.add(_attempt_line(attempt, HORIZON_REASONS[0]))
                if all(a.failed for a in attempts):
                    out.add("You are HERE. You must now attempt to set `t1`")
            if any(not a.failed for a in attempts):
                with out.block("t2_selection"):
                    for attempt in _attempts(then):
                        out.add(_attempt_line(attempt, HORIZON_REASONS[1]))
                    out.add("You are HERE. Make another move to successfully set `t2`")
    out.add("")
    out.add("Now provide your next move within the <move></move> tags.")


GAMES: dict[str, Callable[[MoveRequest, Lines], None]] = {
    "Condense": _condense,
    "Contrast": _contrast,
    "Alethiometer": _alethiometer,
    "Two-Ways": _two_ways,
    "Synthesize": _synthesize,
    "Horizon": _horizon,
}
assert tuple(GAMES) == XENT_BENCHMARK_GAMES, "one presentation per benchmark game"


def benchmark_game(name: str) -> str | None:
    """The benchmark game a game name stands for ("Two-Ways", "two_ways"), or None."""
    return xent_benchmark_game(name)


def render_xent_benchmark(request: MoveRequest) -> str:
    """The text the benchmark's presentation shows for this turn."""
    game = benchmark_game(request.game.name)
    if game is None:
        raise PermanentPlayerError(
            f"prompt=xent-benchmark renders the published benchmark's six games only "
            f"({', '.join(GAMES)}), not '{request.game.name}'. Drop prompt= for other games."
        )
    out = Lines()
    out.lines.append(_header(game, request))
    GAMES[game](request, out)
    return out.text()


_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_MOVE = re.compile(r"<move>(.*?)</move>", re.DOTALL)


def benchmark_move(reply: str, registers: Sequence[str]) -> dict[str, str]:
    """The move as the benchmark's player reads a reply: reasoning in <think> tags dropped,
    then the last <move>...</move> as is (spaces kept), else the whole remaining reply."""
    text = _THINK.sub("", reply)
    found = _MOVE.findall(text)
    move = found[-1] if found else text
    return dict.fromkeys(registers, move)
