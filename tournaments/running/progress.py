"""Progress of a tournament run: a protocol for the executor, a rich progress bar showing
the phase (making maps k/N, then playing), matches stored / total, ETA, errors and the
judge's batch statistics, and the same as lines of text for a run whose output is not a
terminal (`progress_line`, from the run's heartbeat).

The ETA counts only the time since the first match could start (`MatchClock`): a run that
spent minutes making maps would otherwise report the preparation as slow play.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from arena.storage.live import PREPARING, RunProgress
from arena.storage.records import MATCH_ERROR, FinishedMatch

JudgeMetrics = Callable[[], Mapping[str, float]]
BAR_WIDTH = 30  # the bar leaves room for counts and ETA at 100 columns


class ProgressSink(Protocol):
    def start(self, total: int, done: int) -> None:
        """`total` matches in the schedule, `done` of them already stored."""

    def preparing(self, done: int, total: int) -> None:
        """`done` of the `total` maps this run needs are made (or found stored)."""

    def playing(self) -> None:
        """A first map is ready: matches start now (further maps are made meanwhile)."""

    def stored(self, match: FinishedMatch, written: bool) -> None:
        """A match reached the database (`written` is False for a duplicate key)."""

    def close(self) -> None: ...


class NoProgress:
    def start(self, total: int, done: int) -> None:
        pass

    def preparing(self, done: int, total: int) -> None:
        pass

    def playing(self) -> None:
        pass

    def stored(self, match: FinishedMatch, written: bool) -> None:
        pass

    def close(self) -> None:
        pass


class MatchClock:
    """Matches per second since play began (not since the run began) and the ETA of the
    rest; `clock` is injectable for tests."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._since: float | None = None
        self.done = 0

    def playing(self) -> None:
        if self._since is None:
            self._since = self._clock()

    @property
    def started(self) -> bool:
        return self._since is not None

    def stored(self) -> None:
        self.playing()  # a sink that never heard `playing` starts the clock at the first
        self.done += 1

    def per_s(self) -> float:
        if self._since is None or self.done == 0:
            return 0.0
        return self.done / max(self._clock() - self._since, 1e-9)

    def eta_s(self, remaining: int) -> float | None:
        """Seconds left for `remaining` matches at the rate so far (None before a match)."""
        rate = self.per_s()
        return None if rate <= 0 else max(remaining, 0) / rate


def judge_metrics(judge: object) -> JudgeMetrics | None:
    """The judge's `metrics()` (a JudgePool has one), or None."""
    metrics = getattr(judge, "metrics", None)
    return metrics if callable(metrics) else None


# The most telling of a JudgePool's statistics, shown first when present.
PREFERRED = ("batches", "mean_batch_size", "cache_hits", "tokens_per_s", "mean_queue_wait_ms")


def format_metrics(metrics: Mapping[str, float], limit: int = 5) -> str:
    """A short 'key=value' line of the judge's statistics (preferred keys first)."""
    keys = [k for k in PREFERRED if k in metrics] or list(metrics)
    shown = []
    for key in keys[:limit]:
        value = float(metrics[key])
        shown.append(f"{key}={value:g}" if value.is_integer() else f"{key}={value:.2f}")
    return " ".join(shown)


def clock_text(seconds: float | None) -> str:
    if seconds is None:
        return "-:--:--"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


def start_line(progress: RunProgress, run: str) -> str:
    """What a run says when it starts; `run` names it ("run 1 of live")."""
    before = f", {progress.done_before} already stored" if progress.done_before else ""
    return f"{run} started: {progress.total} matches planned{before}"


def progress_line(progress: RunProgress, run: str, now: float | None = None) -> str:
    """One line of a run's progress (phase, maps k/N, matches k/N, ETA) from its heartbeat,
    what the dashboard's Live page shows; `now` (a `time.time()`) for the elapsed time."""
    stored = progress.done_before + progress.done
    parts = [f"{run}: {progress.phase or 'running'}"]
    if progress.maps_total:
        parts.append(f"maps {progress.maps_done}/{progress.maps_total}")
    parts.append(f"matches {stored}/{progress.total}")
    if progress.errors or progress.forfeits:
        parts.append(f"errors {progress.errors}, forfeits {progress.forfeits}")
    if progress.eta_s is None:  # no rate yet: say when there will be one
        parts.append("ETA after preparation" if progress.phase == PREPARING
                     else "ETA after the first matches")
    else:
        parts.append(f"ETA {clock_text(progress.eta_s)}")
    if progress.started_at is not None:
        began = progress.started_at.timestamp()
        parts.append(f"elapsed {clock_text(max((now or time.time()) - began, 0.0))}")
    return ", ".join(parts)


class RichProgress:
    """A live bar on stderr: one line with the phase, counts, ETA and errors (kept whole at
    100 columns), and the judge's metrics (if any) on a line of their own below it."""

    def __init__(self, title: str, metrics: JudgeMetrics | None = None,
                 console: Any | None = None) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.text import Text

        self._metrics = metrics
        self._errors = 0
        self._total = 0
        self._done = 0
        self._clock = MatchClock()
        self._status = "starting"
        self._judge = ""
        owner = self

        class _TwoLines(Progress):
            def get_renderables(self) -> Any:
                yield self.make_tasks_table(self.tasks)
                if owner._judge:
                    yield Text(owner._judge, no_wrap=True, overflow="ellipsis")

        self._progress = _TwoLines(
            TextColumn("[bold]{task.description}"),
            BarColumn(bar_width=BAR_WIDTH),
            MofNCompleteColumn(),
            TextColumn("{task.fields[status]}"),
            TimeElapsedColumn(),
            console=console or Console(stderr=True),
            transient=False,
        )
        self._task = self._progress.add_task(title, total=None, status=self._status,
                                             start=False)

    def _show(self, advance: int = 0) -> None:
        self._progress.update(self._task, advance=advance, status=self._status)

    def start(self, total: int, done: int) -> None:
        self._total, self._done = total, done
        self._progress.update(self._task, total=total, completed=done)
        self._progress.start_task(self._task)
        self._progress.start()

    def preparing(self, done: int, total: int) -> None:
        if self._clock.started:  # play has begun: the bar keeps the ETA
            return
        self._status = f"preparing maps {done}/{total}"
        self._show()

    def playing(self) -> None:
        self._clock.playing()
        self._status = f"ETA {clock_text(None)} errors {self._errors}"
        self._show()

    def stored(self, match: FinishedMatch, written: bool) -> None:
        if match.status == MATCH_ERROR:
            self._errors += 1
        self._done += 1
        self._clock.stored()
        eta = self._clock.eta_s(self._total - self._done)
        self._status = f"ETA {clock_text(eta)} errors {self._errors}"
        if self._metrics is not None:
            try:
                self._judge = "judge " + format_metrics(self._metrics())
            except Exception:  # statistics are a nicety; never let them stop a run
                self._judge = ""
        self._show(advance=1)

    def render_text(self, width: int) -> str:
        """What the bar shows now, as plain text `width` columns wide (for tests)."""
        import io

        from rich.console import Console, Group

        console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
        console.print(Group(*self._progress.get_renderables()))
        return console.export_text()

    def close(self) -> None:
        self._progress.stop()
