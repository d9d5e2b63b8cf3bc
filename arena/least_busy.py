"""Least-busy choice among interchangeable servers (remote judge replicas, Ray judge
actors): the one home of the rule, so both kinds of judge client spread calls alike."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class LeastBusy:
    """Which of `n` interchangeable servers takes the next call: the one with the fewest
    calls in flight; ties go to the one that has received fewer calls, so idle servers
    alternate. Shared by remote judge replicas and Ray judge actors."""

    def __init__(self, n: int) -> None:
        if n < 1:
            raise ValueError("LeastBusy needs at least one server")
        self.in_flight = [0] * n
        self.calls = [0] * n  # calls sent to each server, for operators

    @contextmanager
    def pick(self) -> Iterator[int]:
        """The chosen server's index, counted as busy until the block ends."""
        index = min(range(len(self.in_flight)), key=lambda i: (self.in_flight[i], self.calls[i]))
        self.in_flight[index] += 1
        self.calls[index] += 1
        try:
            yield index
        finally:
            self.in_flight[index] -= 1
