"""Prompts for LLM players, built from a `MoveRequest` and nothing else.

A `MoveRequest` is exactly the player's information set (XGL.md section 4), so building
the prompt from it alone is what keeps hidden registers out of every model's context.
The prompt has two parts: a fixed system text (who the player is, how XGL works, the
answer format) and a user text with the game code, the visible state, the player's own
history with reward feedback (per-token only over texts the player has seen), and the
task. Feedback is bounded: at most `PromptOptions.max_feedback_tokens` tokens per reward
term and the most recent `PromptOptions.max_previous_rounds` earlier rounds are shown.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from arena.players.llm.reply_parsing import move_tag
from arena.protocols.player import (
    HistoryItem,
    MoveRequest,
    RewardTermView,
    RoundMemory,
)
from arena.runtime.code_hidden import NO_LINE, code_is_hidden

XGL_EXPLANATION = """\
How XGL games work:
- A game is a short program run line by line. Its state is a set of text registers:
  s, t, x, y, p (writable), a, b, c (constants set at the start), each also with the
  suffixes 0-3 (s0, s1, ...), and list registers l, l0-l3. Registers a*, b*, p* are public;
  all others are private unless revealed to you.
- assign(r=expr, ...) sets registers. `x + y` joins two texts (dialect xgl inserts one
  space between them; dialect xent joins them as they are). `x // y` keeps the part of x
  before the first y; `x % y` keeps the part after it. story() is a text fixed by the map.
- elicit(player, r1, ..., n) asks that player for one text per register r1, ...; each move
  is cut to at most n tokens of the judge model.
- reveal(player, e, ...) shows the values of the expressions to that player.
- reward(player, amount) gives the player a score in bits computed by the judge, a language
  model. xent(s | t) is the cross-entropy of text s given text t as context (how surprising
  s is after t); xed(s | t) = xent(s) - xent(s | t) is how much t helps predict s;
  nex = -xent and dex = -xed. Scores are sums over s's tokens. You are told every token's
  value where you have seen all the texts involved; terms involving text hidden from you
  are told as their total only.
- ensure(condition, ...) requires conditions; if one fails the last elicit is asked again
  and the player is told which condition failed. Too many failures forfeit the round.
- beacon(flag) and replay(flag, n) repeat a block of lines up to n more times.
- Players: black, white, alice, bob, carol, david, env. Black, white and env see every
  register. Black and white are opponents: a reward to one is the negative for the other.
  Other players see only public registers, what was revealed to them, their own moves and
  their own rewards. Another player's moves stay hidden unless revealed.
- Your goal is to maximise the total reward you receive in the round."""


PROMPT_STYLES = ("arena", "xent-benchmark")
XENT_BENCHMARK = "xent-benchmark"


@dataclass(frozen=True)
class PromptOptions:
    """How a prompt is rendered.

    Attributes:
        cot: ask for step-by-step reasoning in <think> tags before the answer (the parser
            discards it).
        max_feedback_tokens: per-token values shown per reward term; the rest are summed.
        max_previous_rounds: earlier rounds shown to a main character (most recent kept).
        style: "arena" (ours) or "xent-benchmark" (the published benchmark's text).
    """

    cot: bool = False
    max_feedback_tokens: int = 40
    max_previous_rounds: int = 5
    style: str = "arena"  # or "xent-benchmark": the published benchmark's prompts


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _numbered(code: str) -> str:
    lines = code.rstrip("\n").split("\n")
    width = len(str(len(lines)))
    return "\n".join(f"{i:>{width}} | {line}" for i, line in enumerate(lines, start=1))


def answer_format(registers: Sequence[str], cot: bool) -> str:
    """The instructions for the reply: one `<move register=...>` tag per register."""
    tags = "\n".join(move_tag(r, f"your move for {r}") for r in registers)
    think = (
        "First think step by step inside <think>...</think>; that part is ignored. Then "
        if cot
        else "Do not explain. "
    )
    return (
        f"{think}Write your answer as exactly one tag per register:\n{tags}\n"
        "Only the text inside the tags is your move. If you write a tag twice, the last "
        "one counts."
    )


def system_text(request: MoveRequest, options: PromptOptions) -> str:
    """The fixed part: the role and the rules of XGL."""
    sight = (
        "You are omniscient: you see every register."
        if request.omniscient
        else "You see only the public registers, what was revealed to you, your own moves "
        "and your own rewards."
    )
    return (
        f"You are a player in a Cross-Entropy game written in XGL. You play the role "
        f"'{request.role}'. {sight}\n\n{XGL_EXPLANATION}"
    )


def render_term(term: RewardTermView, max_tokens: int) -> str:
    """One reward term with its per-token values (bits, before the coefficient); terms over
    text hidden from the player come as one total without values (XGL.md section 4)."""
    if term.hidden:
        return (
            f"  {term.source}: {term.total:+.2f} bits in all (these terms involve text hidden "
            "from you: total only, no per-token values)"
        )
    counted = f" counted x{term.coefficient}" if term.coefficient != 1 else ""
    head = f"  {term.source}{counted}: {term.total:+.2f} bits"
    shown = term.bits[:max_tokens]
    cells = [f"{_quote(tok)} {bit:+.2f}" for tok, bit in zip(term.tokens, shown, strict=False)]
    rest = term.bits[max_tokens:]
    if rest:
        cells.append(f"... {len(rest)} more tokens totalling {sum(rest):+.2f}")
    return head + ("\n    per token (bits): " + ", ".join(cells) if cells else "")


def _at_line(line: int) -> str:
    """ "line N: " for a history entry; nothing when the code, and so every line number, is
    hidden (`arena.runtime.code_hidden`)."""
    return "" if line == NO_LINE else f"line {line}: "


def render_item(item: HistoryItem, options: PromptOptions, *, inline_reveals: bool) -> str:
    """One history entry as a line (plus per-token lines for rewards)."""
    where = _at_line(item.line)
    if item.kind == "move":
        parts = []
        for register, text in item.moves.items():
            cut = " (cut to the length limit)" if register in item.cut else ""
            parts.append(f"{register} = {_quote(text)}{cut}")
        return f"- {where}you played " + "; ".join(parts)
    if item.kind == "reward":
        terms = "\n".join(render_term(t, options.max_feedback_tokens) for t in item.terms)
        return f"- {where}you received {item.reward:+.2f} bits\n{terms}".rstrip()
    if item.kind == "failed_ensure":
        return f"- {where}your move failed the condition {item.condition}"
    if item.reveal is not None:
        shown = f" = {_quote(item.reveal.value)}" if inline_reveals else " (see above)"
        return f"- {where}{item.reveal.label} was revealed to you{shown}"
    return f"- {where}{item.kind}"


def _history(items: Sequence[HistoryItem], options: PromptOptions, *, inline: bool) -> str:
    if not items:
        return "(nothing yet)"
    return "\n".join(render_item(i, options, inline_reveals=inline) for i in items)


def _previous_rounds(rounds: Sequence[RoundMemory], options: PromptOptions) -> str:
    kept = list(rounds)[-options.max_previous_rounds :] if options.max_previous_rounds else []
    skipped = len(rounds) - len(kept)
    parts = [f"({skipped} earlier rounds not shown)"] if skipped else []
    for memory in kept:
        score = "forfeited" if memory.score is None else f"score {memory.score:+.2f} bits"
        parts.append(
            f"Round {memory.round} ({score}):\n{_history(memory.history, options, inline=True)}"
        )
    return "\n".join(parts)


def user_text(request: MoveRequest, options: PromptOptions) -> str:
    """The per-request part: game, visible state, own history and the task."""
    game = request.game
    meta = f"Game '{game.name}' (dialect {game.dialect}"
    meta += f", version {game.version})" if game.version else ")"
    if code_is_hidden(game):
        sections = [f"{meta}: its code is not shown to you; below is all you know."]
    else:
        sections = [f"{meta}:\n{_numbered(game.code)}"]
    if game.header:
        sections.append(f"About the game: {game.header}")
    visible = "\n".join(f"{r} = {_quote(v)}" for r, v in sorted(request.visible.items()))
    sections.append("Registers you can see now:\n" + (visible or "(none)"))
    if request.reveals:
        reveals = "\n".join(
            f"{r.label} = {_quote(r.value)}"
            + ("" if r.line == NO_LINE else f" (revealed at line {r.line})")
            for r in request.reveals
        )
        sections.append("Revealed to you (values as they were when revealed):\n" + reveals)
    if request.previous_rounds:
        sections.append(
            "Your earlier rounds of this match:\n"
            + _previous_rounds(request.previous_rounds, options)
        )
    sections.append(
        f"This round so far (round {request.round} of {request.rounds}):\n"
        + _history(request.history, options, inline=False)
    )
    sections.append(task_text(request, options))
    return "\n\n".join(sections)


def task_text(request: MoveRequest, options: PromptOptions) -> str:
    """What to do now: the registers, the length limit, and a failed condition if any."""
    names = ", ".join(request.registers)
    elicit = f"the elicit at line {request.line} asks you"
    if request.line == NO_LINE:  # the code, and so every line number, is hidden
        elicit = "you are asked"
    text = (
        f"Your turn: {elicit}, {request.role}, for "
        f"{names}. Each move may be at most {request.max_len} judge tokens (roughly "
        f"{max(1, request.max_len * 3 // 4)} words); longer moves are cut."
    )
    if request.failed_condition:
        text += (
            f"\nAttempt {request.attempt}: your previous move made the condition "
            f"{request.failed_condition} fail. Choose a move that satisfies it."
        )
    return f"{text}\n{answer_format(request.registers, options.cot)}"


def build_messages(
    request: MoveRequest, options: PromptOptions | None = None
) -> list[dict[str, str]]:
    """Chat messages (system + user) for `request`; with style "xent-benchmark" the one
    user message the published Xent benchmark sends (`xent_benchmark_prompt`)."""
    opts = options or PromptOptions()
    if opts.style == XENT_BENCHMARK:
        from arena.players.llm.xent_benchmark_prompt import render_xent_benchmark

        return [{"role": "user", "content": render_xent_benchmark(request)}]
    return [
        {"role": "system", "content": system_text(request, opts)},
        {"role": "user", "content": user_text(request, opts)},
    ]


def build_prompt_text(request: MoveRequest, options: PromptOptions | None = None) -> str:
    """A plain completion prompt (for models without a chat template), ending in
    "Answer:" and a newline; callers may append an opening tag as a cue."""
    opts = options or PromptOptions()
    return f"{system_text(request, opts)}\n\n{user_text(request, opts)}\n\nAnswer:\n"
