"""Batch planning under a padded-token budget (shared by the HF judge and the pool)."""

from __future__ import annotations

import math
from collections.abc import Sequence

# Width search for packed rows: candidate widths per batch, and the batch size above which
# first-fit already fills rows well (and the search would cost too much Python time).
WIDTH_SEARCH_STEPS = 16
WIDTH_SEARCH_MAX_SEQUENCES = 256


def padded_cost(lengths: Sequence[int]) -> int:
    """Token positions a right-padded batch runs through the model: rows × longest row."""
    return len(lengths) * max(lengths, default=0)


def plan_batches(
    lengths: Sequence[int], max_batch_tokens: int, max_batch_size: int = 1 << 30
) -> list[list[int]]:
    """Group indices into batches of similar length whose padded cost fits the budget.

    Indices are sorted by decreasing length (little padding); a batch grows while
    `rows × longest ≤ max_batch_tokens` and `rows ≤ max_batch_size`. A sequence longer
    than the budget forms a batch alone.
    """
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        longest = lengths[current[0]] if current else lengths[i]
        if current and (
            (len(current) + 1) * longest > max_batch_tokens or len(current) >= max_batch_size
        ):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


def pack_rows(lengths: Sequence[int], width: int) -> list[list[int]]:
    """First-fit decreasing: indices grouped into rows of at most `width` tokens each
    (a sequence longer than `width` gets a row of its own)."""
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    rows: list[list[int]] = []
    room: list[int] = []
    for i in order:
        n = lengths[i]
        for r, free in enumerate(room):
            if n <= free:
                rows[r].append(i)
                room[r] -= n
                break
        else:
            rows.append([i])
            room.append(width - n)
    return rows


def packed_cost(lengths: Sequence[int]) -> int:
    """Token positions of a packed batch: rows of the longest sequence's width."""
    width = max(lengths, default=0)
    return len(pack_rows(lengths, width)) * width


def plan_packed_batches(
    lengths: Sequence[int], max_batch_tokens: int, max_batch_size: int = 1 << 30
) -> list[list[int]]:
    """Like `plan_batches` for a backend that packs several sequences per row.

    Indices in decreasing length order fill a batch (first-fit decreasing into rows as
    wide as its first, longest sequence) while `rows × width ≤ max_batch_tokens` and the
    batch holds at most `max_batch_size` sequences. A longer sequence forms a batch alone.
    """
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    batches: list[list[int]] = []
    current: list[int] = []
    room: list[int] = []  # free tokens left in each row of the current batch
    for i in order:
        n = lengths[i]
        if current:
            width = lengths[current[0]]
            fits = next((r for r, free in enumerate(room) if n <= free), None)
            rows = len(room) + (fits is None)
            if rows * width <= max_batch_tokens and len(current) < max_batch_size:
                current.append(i)
                if fits is None:
                    room.append(width - n)
                else:
                    room[fits] -= n
                continue
            batches.append(current)
        current, room = [i], [0]  # the first, longest sequence sets the row width
    if current:
        batches.append(current)
    return batches


def choose_width(lengths: Sequence[int], max_tokens: int, attention_width: float = math.inf) -> int:
    """Row width for packing `lengths` (at least the longest, at most twice it).

    Rows exactly as wide as the longest sequence often leave a gap in each row (two
    sequences just over half the width cannot share one); a slightly wider row can close
    it. Minimises the work `rows × width × (1 + width / attention_width)`, where
    `attention_width` is the context length at which attention costs as much as the rest
    of a position's forward pass, among widths whose `rows × width` stays within
    `max_tokens` (or within the longest width's cost, if that is already over it).
    """
    longest = max(lengths, default=0)
    if longest == 0 or len(lengths) > WIDTH_SEARCH_MAX_SEQUENCES:
        return longest

    def work(width: int) -> tuple[float, int]:
        cells = len(pack_rows(lengths, width)) * width
        return cells * (1.0 + width / attention_width), cells

    best, (best_work, cells) = longest, work(longest)
    budget = max(max_tokens, cells)
    step = max(1, longest // WIDTH_SEARCH_STEPS)
    for width in range(longest + step, 2 * longest + 1, step):
        w, cells = work(width)
        if cells <= budget and w < best_work:
            best, best_work = width, w
    return best


def row_passes(sizes: Sequence[int], chunk_tokens: int | None) -> list[tuple[int, int, int]]:
    """Rows (tokens used in each, longest first) cut into passes of consecutive rows:
    (start, stop, width), each `width` its longest row and `rows × width` at most
    `chunk_tokens` (a row wider than that is a pass alone). One pass when `chunk_tokens` is
    None."""
    if not sizes:
        return []
    if not chunk_tokens:
        return [(0, len(sizes), max(sizes))]
    passes = []
    start = 0
    while start < len(sizes):
        width = sizes[start]
        stop = start + max(1, chunk_tokens // max(1, width))
        stop = min(stop, len(sizes))
        passes.append((start, stop, max(sizes[start:stop])))
        start = stop
    return passes
