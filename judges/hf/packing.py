"""Packing a batch's sequences into rows for one forward pass, sharing common prefixes.

Requests of one batch often share a prefix: the same story before different moves, the
same opener and story before different bridges. Sorted lexicographically, the sequences of
a *cluster* form a trie laid out in depth-first order: the shared prefix once, then each
sequence's own suffix. A token's position id is its depth, and it attends to its ancestors
and itself only (a 4D attention mask), so every sequence sees exactly its own tokens in
order and gets the outputs of a forward pass over it alone. Clusters are packed several to
a row (first-fit decreasing); the unused tail of a row is padding that attends to itself.

The cluster size cap and the row width are chosen to minimise the work: positions run
times (1 + width / attention_width), where the second term is attention's share (it is
computed densely over a row). Pure Python: no torch here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from arena.judges.hf.batching import choose_width, pack_rows

# Cluster size caps tried, in multiples of the longest sequence.
CAP_MULTIPLES = (1, 2, 3, 4)


@dataclass(frozen=True)
class RowLayout:
    """One packed row: token ids, position ids, and who sees whom.

    Query `i` may attend to key `j` iff `j <= i < ends[j]` (j is i or an ancestor of i in
    the depth-first layout). `paths[k]` gives, for sequence `k` of the batch, the layout
    index of each of its tokens.
    """

    tokens: list[int]
    positions: list[int]
    ends: list[int]
    paths: dict[int, list[int]]


def _lcp(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def cluster_by_prefix(seqs: Sequence[Sequence[int]], cap: int) -> list[list[int]]:
    """Indices grouped into clusters (each lexicographically sorted) whose trie has at most
    `cap` tokens; a sequence longer than `cap` is a cluster alone."""
    order = sorted(range(len(seqs)), key=lambda i: (tuple(seqs[i]), i))
    clusters: list[list[int]] = []
    current: list[int] = []
    size = 0
    for i in order:
        new = len(seqs[i]) - (_lcp(seqs[current[-1]], seqs[i]) if current else 0)
        if current and size + new > cap:
            clusters.append(current)
            current, size, new = [], 0, len(seqs[i])
        current.append(i)
        size += new
    if current:
        clusters.append(current)
    return clusters


def trie_size(seqs: Sequence[Sequence[int]], cluster: Sequence[int]) -> int:
    """Tokens of a cluster's trie (its members in lexicographic order)."""
    total = 0
    for k, i in enumerate(cluster):
        total += len(seqs[i]) - (_lcp(seqs[cluster[k - 1]], seqs[i]) if k else 0)
    return total


def plan_rows(
    seqs: Sequence[Sequence[int]], max_tokens: int, attention_width: float = math.inf
) -> list[list[list[int]]]:
    """Rows of clusters of sequence indices, for the least work within `max_tokens`
    (or within the cost of no sharing, if that is already over it)."""
    longest = max((len(s) for s in seqs), default=0)
    if longest == 0:
        return []
    best: list[list[list[int]]] = []
    best_work = math.inf
    budget = 0
    for multiple in CAP_MULTIPLES:
        clusters = cluster_by_prefix(seqs, multiple * longest)
        sizes = [trie_size(seqs, c) for c in clusters]
        width = choose_width(sizes, max_tokens, attention_width)
        rows = pack_rows(sizes, width)
        used = max(sum(sizes[c] for c in row) for row in rows)
        cells = len(rows) * used
        if multiple == 1:
            budget = max(max_tokens, cells)
        work = cells * (1.0 + used / attention_width)
        if cells <= budget and work < best_work:
            best_work = work
            best = [[clusters[c] for c in row] for row in rows]
    return best


def layout_row(seqs: Sequence[Sequence[int]], row: Sequence[Sequence[int]]) -> RowLayout:
    """The depth-first layout of a row's clusters (no padding: see `pad_row`)."""
    tokens: list[int] = []
    positions: list[int] = []
    parents: list[int] = []
    paths: dict[int, list[int]] = {}
    for cluster in row:
        previous: list[int] = []
        for k, i in enumerate(cluster):
            seq = seqs[i]
            shared = _lcp(seqs[cluster[k - 1]], seq) if k else 0
            path = previous[:shared]
            for depth in range(shared, len(seq)):
                parents.append(path[-1] if path else -1)
                path.append(len(tokens))
                tokens.append(seq[depth])
                positions.append(depth)
            paths[i] = path
            previous = path
    ends = [i + 1 for i in range(len(tokens))]
    for i in range(len(tokens) - 1, -1, -1):  # children come after their parent
        if parents[i] >= 0:
            ends[parents[i]] = max(ends[parents[i]], ends[i])
    return RowLayout(tokens, positions, ends, paths)


def pad_row(layout: RowLayout, width: int, pad_id: int) -> RowLayout:
    """`layout` widened to `width` with padding tokens that see only themselves."""
    extra = width - len(layout.tokens)
    start = len(layout.tokens)
    return RowLayout(
        tokens=layout.tokens + [pad_id] * extra,
        positions=layout.positions + [0] * extra,
        ends=layout.ends + [start + k + 1 for k in range(extra)],
        paths=layout.paths,
    )
