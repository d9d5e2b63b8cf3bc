"""Extracting moves from a model's reply.

The one documented format is one tag per requested register::

    <move register="t">the move text</move>

Rules, applied in this order:

1. Reasoning is removed first: every ``<think>...</think>`` block, an unclosed ``<think>``
   up to the end of the reply, and everything before a stray ``</think>`` (chat templates
   that open the think block inside the prompt leave only its end in the reply).
2. The *last* tag for a register wins (models often draft and then correct themselves).
3. The tag name and attribute are case-insensitive; the register may be quoted with ``"``,
   ``'`` or not at all. For a single-register request a bare ``<move>...</move>`` counts too.
4. An unclosed final tag (the reply hit its token limit) is used only for a register that
   has no closed tag.
5. Move text is stripped of surrounding whitespace and otherwise kept verbatim.

A reply without a move for some register gives `MissingMoveTags`, which carries the text
of a corrective message for one retry.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

_THINK_BLOCK = re.compile(r"<think\b[^>]*>.*?</think\s*>", re.IGNORECASE | re.DOTALL)
_THINK_OPEN = re.compile(r"<think\b[^>]*>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think\s*>", re.IGNORECASE)
_REGISTER_ATTR = r"""\s+register\s*=\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_]+))\s*"""
_TAG = re.compile(rf"<move(?:{_REGISTER_ATTR})?\s*>(.*?)</move\s*>", re.IGNORECASE | re.DOTALL)
_OPEN_TAG = re.compile(rf"<move(?:{_REGISTER_ATTR})?\s*>", re.IGNORECASE)


def move_tag(register: str, text: str = "...") -> str:
    """The tag a player writes for `register`, e.g. ``<move register="t">...</move>``."""
    return f'<move register="{register}">{text}</move>'


def strip_thinking(reply: str) -> str:
    """The reply without its reasoning (closed, unclosed and half-open think blocks)."""
    text = _THINK_BLOCK.sub("", reply)
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:  # a block whose opening tag was in the prompt
        text = text[closes[-1].end() :]
    opened = _THINK_OPEN.search(text)
    if opened:  # a block the model never closed: nothing after it is an answer
        text = text[: opened.start()]
    return text


@dataclass(frozen=True)
class MissingMoveTags:
    """A reply that lacks a move for some requested registers.

    Attributes:
        missing: the registers without a move, in request order.
        found: the moves that were present.
        reply: the reply with reasoning removed (for error messages).
    """

    missing: tuple[str, ...]
    found: dict[str, str] = field(default_factory=dict)
    reply: str = ""

    def correction(self) -> str:
        """The corrective user message sent back to the model once."""
        tags = "\n".join(move_tag(r, "your move") for r in self.missing)
        which = ", ".join(self.missing)
        return (
            f"Your reply did not contain a move for register(s) {which} in the required "
            f"format. Answer again with exactly one tag per register and nothing else:\n{tags}"
        )

    def describe(self) -> str:
        """A one-line description for errors: what was missing and how the reply began."""
        excerpt = " ".join(self.reply.split())[:120]
        return f"no <move> tag for {', '.join(self.missing)}; the reply began: {excerpt!r}"


def _register_of(match: re.Match[str], position: int = 1) -> str | None:
    groups = match.group(position, position + 1, position + 2)
    return next((g for g in groups if g is not None), None)


def parse_reply(reply: str, registers: Sequence[str]) -> dict[str, str] | MissingMoveTags:
    """The moves in `reply` for `registers` (register -> text), or `MissingMoveTags`."""
    text = strip_thinking(reply)
    wanted = set(registers)
    single = registers[0] if len(registers) == 1 else None
    moves: dict[str, str] = {}
    last_end = 0
    for match in _TAG.finditer(text):
        last_end = match.end()
        register = _register_of(match)
        register = register.strip() if register is not None else single
        if register in wanted:
            moves[register] = match.group(4).strip()
    _add_unclosed(text[last_end:], moves, wanted, single)
    missing = tuple(r for r in registers if r not in moves)
    if missing:
        return MissingMoveTags(missing=missing, found=moves, reply=text.strip())
    return {r: moves[r] for r in registers}


def _add_unclosed(
    tail: str, moves: dict[str, str], wanted: set[str], single: str | None
) -> None:
    opens = list(_OPEN_TAG.finditer(tail))
    if not opens:
        return
    last = opens[-1]
    register = _register_of(last)
    register = register.strip() if register is not None else single
    if register in wanted and register not in moves:
        moves[register] = tail[last.end() :].strip()
