"""Cutting a text into one piece per token, so that the pieces concatenate to the text.

Byte-level BPE tokenizers (GPT-2, Llama 3, Qwen, the bundled judge) are cut exactly from the
bytes each token stands for. Offsets reported with `trim_offsets` are not reliable for that
(a lone-space token reports an empty span at either of its ends), so they are only the
fallback for other tokenizers. A character whose bytes span several tokens goes to the token
holding its last byte; the others get empty pieces.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence


@functools.cache
def byte_level_alphabet() -> dict[str, int]:
    """The byte-level BPE alphabet: one printable character per byte value.

    Bytes that are printable Latin-1 stand for themselves; the others (control characters,
    space, a few Latin-1 gaps) are shifted to code points 256 and up, in byte order.
    """
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    table: dict[str, int] = {chr(b): b for b in printable}
    shifted = 0
    for b in range(256):
        if b not in printable:
            table[chr(256 + shifted)] = b
            shifted += 1
    return table


def token_byte_lengths(tokens: Sequence[str]) -> list[int] | None:
    """Bytes each byte-level token stands for; None when a token is not byte-level text."""
    alphabet = _alphabet_set()
    if not all(tok and alphabet.issuperset(tok) for tok in tokens):
        return None
    return [len(tok) for tok in tokens]


@functools.cache
def _alphabet_set() -> frozenset[str]:
    return frozenset(byte_level_alphabet())


def byte_length_table(vocab: Mapping[str, int]) -> list[int]:
    """Bytes per token id for a byte-level vocabulary (-1 for ids whose text is not
    byte-level, or that the vocabulary skips): a lookup replaces per-token string checks."""
    table = [-1] * (max(vocab.values(), default=-1) + 1)
    alphabet = _alphabet_set()
    for tok, i in vocab.items():
        if tok and alphabet.issuperset(tok):
            table[i] = len(tok)
    return table


def _cut(text: str, bounds: Sequence[int], added_prefix: int) -> list[str]:
    """Slice `text` at `bounds` (indices into `added_prefix` chars + `text`)."""
    cut = [max(0, b - added_prefix) for b in bounds]
    return [text[cut[i] : cut[i + 1]] for i in range(len(cut) - 1)]


def pieces_from_bytes(
    text: str, byte_lengths: Sequence[int], added_prefix: str = ""
) -> list[str] | None:
    """Pieces of `text` for tokens covering `byte_lengths` bytes of `added_prefix + text`.

    None when the lengths do not add up to the UTF-8 size of the tokenised string.
    """
    full = added_prefix + text
    if full.isascii():  # one byte per character: byte bounds are character bounds
        if sum(byte_lengths) != len(full):
            return None
        return _cut(text, [0, *itertools.accumulate(byte_lengths)], len(added_prefix))
    data = full.encode("utf-8")
    if sum(byte_lengths) != len(data):
        return None
    # chars_done[k]: characters whose last byte lies before byte k
    chars_done = [0] * (len(data) + 1)
    ends = itertools.accumulate(_utf8_size(ch) for ch in full)
    for i, pos in enumerate(ends):
        chars_done[pos] = i + 1
    chars_done = list(itertools.accumulate(chars_done, max))
    bounds = [chars_done[at] for at in itertools.accumulate(byte_lengths, initial=0)]
    return _cut(text, bounds, len(added_prefix))


def _utf8_size(ch: str) -> int:
    code = ord(ch)
    return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4


def pieces_from_offsets(
    text: str, offsets: Sequence[tuple[int, int]], added_prefix: int = 0
) -> list[str]:
    """Pieces of `text` from token offsets into `added_prefix` chars + `text` (fallback).

    Boundaries come from token *end* offsets: with `trim_offsets` a token " cat" may report
    (4, 7) instead of (3, 7), and ends keep the space with the token that holds it.
    """
    n = len(offsets)
    full = len(text) + added_prefix
    bounds = [0]
    for i, (_, end) in enumerate(offsets):
        bounds.append(full if i == n - 1 else min(full, max(bounds[-1], end)))
    return _cut(text, bounds, added_prefix)
