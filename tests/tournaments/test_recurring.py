"""Recurring tournaments: schedule commands and cron validation, one run of a schedule
(seeds, snapshots, leases), catching up a missed fire time, and `arena scheduler`
processes started on a 1-second interval: runs on time, picks up schedules added while it
runs, survives a restart, never overlaps runs of a schedule, also with two scheduler
processes on one database."""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from arena.errors import UnknownNameError
from arena.plugins.registry import Registry
from arena.storage import Store, sqlite_url
from arena.storage.live import scheduler_beats
from arena.storage.queries import match_counts
from arena.storage.schedule_runs import ScheduleRunRecord, acquire_lease, schedule_runs
from arena.storage.schedules import mark_schedule_run, schedules
from arena.storage.snapshots import rating_snapshots
from arena.tournaments.services.recurring.cli import main as recurring_main
from arena.tournaments.services.recurring.runner import MANUAL, run_schedule, run_seed
from arena.tournaments.services.recurring.schedules import ScheduleError, add_schedule, parse_cron
from arena.tournaments.services.recurring.service import SchedulerService
from tests.tournaments import arena_fixtures as fx

ROOT = Path(__file__).resolve().parents[2]
BUILTIN_ONLY = fx.SMALL.replace('player = "sleepy?words=2"', 'player = "random?words=2"').replace(
    'player = "sleepy?words=3"', 'player = "scripted:a story|the cat"'
)


@pytest.fixture(scope="module")
def registry() -> Registry:
    return fx.registry()


def cli(args: list[str]) -> int:
    try:
        recurring_main(args)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return 0


@pytest.mark.parametrize(
    ("cron", "field"),
    [
        ("0 25 * * *", "field 2 (hour) is '25'"),
        ("61 * * * *", "field 1 (minute) is '61'"),
        ("0 3 32 * *", "field 3 (day-of-month) is '32'"),
        ("0 3 * 13 *", "field 4 (month) is '13'"),
        ("0 3 * * 9", "field 5 (day-of-week) is '9'"),
        ("0 3 * * mon-xyz", "field 5 (day-of-week) is 'mon-xyz'"),
        ("70 0 3 * * *", "field 1 (second) is '70'"),
        ("0 3 * *", "it has 4 field(s)"),
        ("0 3 30 2 *", "never fires"),
    ],
)
def test_a_bad_cron_expression_names_the_bad_field(cron: str, field: str) -> None:
    with pytest.raises(ScheduleError) as error:
        parse_cron(cron)
    assert field in str(error.value) and f"'{cron}'" in str(error.value)
    assert "minute hour day-of-month month day-of-week" in str(error.value)


def test_weekday_numbers_follow_crontab_and_a_seconds_field_is_optional() -> None:
    start = datetime(2026, 1, 7, 12, 0, tzinfo=UTC)  # a Wednesday
    weekday = {
        expr: parse_cron(expr, "UTC").get_next_fire_time(None, start).strftime("%a")
        for expr in ("0 3 * * 0", "0 3 * * 1", "0 3 * * 7", "0 3 * * 5-6", "0 3 * * fri")
    }
    assert weekday == {
        "0 3 * * 0": "Sun", "0 3 * * 1": "Mon", "0 3 * * 7": "Sun", "0 3 * * 5-6": "Fri",
        "0 3 * * fri": "Fri",
    }
    every_2s = parse_cron("*/2 * * * * *", "UTC")
    assert every_2s.get_next_fire_time(None, start.replace(second=1)) == start.replace(second=2)
    daily = parse_cron("@daily", "Europe/Paris").get_next_fire_time(None, start)
    assert (daily.hour, str(daily.tzinfo)) == (0, "Europe/Paris")


def test_schedule_add_list_remove_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = fx.tournament_file(tmp_path, BUILTIN_ONLY)
    db = sqlite_url(tmp_path / "s.db")
    assert cli(["schedule", "add", str(path), "--cron", "0 3 * * 1", "--db", db]) == 0
    assert "schedule 'small' added: 0 3 * * 1" in capsys.readouterr().out
    assert cli(["schedule", "add", str(path), "--every", "2", "--name", "fast", "--db", db]) == 0
    assert cli(["schedule", "add", str(path), "--cron", "0 4 * * *", "--db", db]) == 2
    assert "already exists. Pass --replace" in capsys.readouterr().err
    assert cli(["schedule", "add", str(path), "--cron", "0 3 * * 8", "--name", "x", "--db", db]) == 2
    assert "field 5 (day-of-week) is '8'" in capsys.readouterr().err
    assert cli(["schedule", "add", str(path), "--cron", "* * * * *", "--every", "2", "--db", db]) == 2
    assert "exactly one of --cron" in capsys.readouterr().err
    assert cli(["schedule", "add", str(path), "--cron", "@daily", "--timezone", "Europe/Pariss", "--name", "y", "--db", db]) == 2
    assert "Did you mean 'Europe/Paris'?" in capsys.readouterr().err
    (tmp_path / "b").mkdir()
    broken = fx.tournament_file(tmp_path / "b", BUILTIN_ONLY.replace('"random?words=4"', '"randm"'))
    assert cli(["schedule", "add", str(broken), "--every", "5", "--name", "z", "--db", db]) == 2
    assert "Unknown player 'randm'. Did you mean 'random'?" in capsys.readouterr().err

    capsys.readouterr()
    assert cli(["schedule", "list", "--db", db]) == 0
    header, *lines = capsys.readouterr().out.strip().splitlines()
    assert header.split() == ["schedule", "when", "tournament", "file", "last", "run", "next", "run", "now"]
    assert [line.split()[:2] for line in lines] == [["fast", "every"], ["small", "0"]]
    assert all("never run" in line and str(path) in line for line in lines)
    store = Store.open(db)
    assert {s.name: (s.cron, s.interval_s) for s in schedules(store.engine)} == {
        "small": ("0 3 * * 1", None), "fast": ("", 2.0)
    }
    store.close()

    assert cli(["schedule", "remove", "smal", "--db", db]) == 2
    assert "Unknown schedule 'smal'. Did you mean 'small'?" in capsys.readouterr().err
    assert cli(["schedule", "remove", "small", "--db", db]) == 0
    capsys.readouterr()
    assert cli(["schedule", "list", "--db", db]) == 0
    assert capsys.readouterr().out.splitlines()[1].split()[0] == "fast"


def test_run_seeds_resume_an_unfinished_run_and_otherwise_move_on() -> None:
    def run(status: str, seed: int) -> ScheduleRunRecord:
        now = datetime.now(UTC)
        return ScheduleRunRecord(1, "s", "me", "scheduled", seed, status, None, None, 0, None, now, now)

    assert run_seed(7, "fresh", []) == 7
    second = run_seed(7, "fresh", [run("done", 7)])
    assert second != 7 and run_seed(7, "fresh", [run("done", 7)]) == second
    assert run_seed(7, "fresh", [run("done", 7), run("interrupted", 99)]) == 99
    assert run_seed(7, "fixed", [run("done", 7), run("done", 8)]) == 7


async def test_each_run_adds_matches_and_a_snapshot_and_a_held_lease_blocks_it(tmp_path: Path, registry: Registry, capsys: pytest.CaptureFixture[str]) -> None:
    path = fx.tournament_file(tmp_path, fx.SMALL)
    db = sqlite_url(tmp_path / "r.db")
    store = Store.open(db)
    add_schedule(store, path, every=3600, registry=registry)
    first = await run_schedule(store, "small", registry=registry, owner="me", trigger=MANUAL)
    second = await run_schedule(store, "small", registry=registry, owner="me", trigger=MANUAL)
    assert first is not None and second is not None
    assert (first.status, second.status, first.written, second.written) == ("done", "done", 12, 12)
    assert first.seed == 7 and second.seed != 7  # a fresh seed: new maps, new matches
    assert match_counts(store.engine, "small") == {"done": 24}
    snaps = {s.id: s.payload for s in rating_snapshots(store.engine, "small")}
    assert first.snapshot_id in snaps and second.snapshot_id in snaps
    assert snaps[first.snapshot_id]["matches"] == 12 and snaps[second.snapshot_id]["matches"] == 24
    assert {r["participant"] for r in snaps[second.snapshot_id]["rows"]} == {"alpha", "beta"}
    (record,) = schedules(store.engine)
    assert record.last_run_at is not None and record.lease_owner is None  # released

    assert acquire_lease(store.engine, "small", "another-process", 60)
    assert await run_schedule(store, "small", registry=registry, owner="me") is None
    capsys.readouterr()
    assert cli(["schedule", "list", "--db", db]) == 0
    listed = capsys.readouterr().out
    assert "done at" in listed and "running in another-process" in listed
    assert len(schedule_runs(store.engine, "small")) == 2
    with pytest.raises(UnknownNameError, match="Did you mean 'small'"):
        await run_schedule(store, "smal", registry=registry, owner="me")
    store.close()


async def test_a_run_that_fails_is_recorded_with_its_error(tmp_path: Path, registry: Registry) -> None:
    path = fx.tournament_file(tmp_path, fx.SMALL)
    store = Store.open(sqlite_url(tmp_path / "f.db"))
    add_schedule(store, path, every=3600, registry=registry)
    path.write_text(fx.SMALL.replace("maps = 2", "maps = 0"), encoding="utf-8")  # edited later
    failed = await run_schedule(store, "small", registry=registry, owner="me")
    assert failed is not None and failed.status == "failed"
    assert failed.error is not None and "maps = 0" in failed.error
    assert schedules(store.engine)[0].lease_owner is None
    store.close()


async def test_a_fire_time_missed_while_no_scheduler_ran_is_caught_up_once(tmp_path: Path, registry: Registry) -> None:
    path = fx.tournament_file(tmp_path, fx.SMALL)
    store = Store.open(sqlite_url(tmp_path / "m.db"))
    leap_day = "0 3 29 2 *"  # fires once in four years: never during the test by itself
    add_schedule(store, path, cron=leap_day, registry=registry)
    add_schedule(store, path, cron=leap_day, name="on-time", registry=registry)
    passed = datetime.now(UTC) - timedelta(hours=1)
    mark_schedule_run(store.engine, "small", passed - timedelta(days=1), passed)
    service = SchedulerService(store, registry, sync_s=0.2)
    stop = asyncio.Event()
    serving = asyncio.create_task(service.serve(stop))
    while not any(r.status == "done" for r in schedule_runs(store.engine, "small")):
        assert not serving.done()
        await asyncio.sleep(0.05)
    stop.set()
    await serving
    assert service.job_names() == ["on-time", "small"]
    (beat,) = scheduler_beats(store.engine)  # the dashboard sees the scheduler and its end
    assert (beat.owner, beat.status, beat.schedules, beat.stale) == (service.owner, "stopped", 2, False)
    assert [r.trigger for r in schedule_runs(store.engine, "small")] == ["scheduled"]
    assert schedule_runs(store.engine, "on-time") == []
    upcoming = {s.name: s.next_run_at for s in schedules(store.engine)}
    assert all(when is not None and (when.month, when.day) == (2, 29) for when in upcoming.values())
    store.close()


# ---------------------------------------------------------------- scheduler processes


def start_scheduler(db: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "tests.tournaments.scheduler_child", db, "0.3"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def stop(process: subprocess.Popen[str]) -> str:
    """SIGTERM, then the process's log; it must exit cleanly."""
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "stopped" in err
    return err


def wait_for(store: Store, count: int, status: str = "done", after: int = 0, limit_s: float = 120) -> int:
    """Until `count` runs with id > `after` have `status`; the last one's id. The bound
    only stops a hung test."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        found = [r.id for r in schedule_runs(store.engine, "small") if r.id > after and r.status == status]
        if len(found) >= count:
            return found[-1]
        time.sleep(0.05)
    raise AssertionError(f"fewer than {count} runs {status}: {schedule_runs(store.engine, 'small')}")


def test_scheduler_processes_run_on_time_survive_restarts_and_never_overlap(tmp_path: Path, registry: Registry) -> None:
    # A run takes longer than the 1 s interval: 12 matches, 2 at a time, slow moves.
    body = fx.SMALL.replace('"sleepy?words=3"', '"sleepy?words=3&delay=0.2"').replace("global = 4", "global = 2")
    path = fx.tournament_file(tmp_path, body)
    db = sqlite_url(tmp_path / "sched.db")
    store = Store.open(db)
    processes: list[subprocess.Popen[str]] = []
    try:
        processes.append(first := start_scheduler(db))
        time.sleep(0.5)
        add_schedule(store, path, every=1, registry=registry)  # picked up while running
        wait_for(store, 1, "running", after=wait_for(store, 2))  # 2 runs done, a third going
        stop(first)
        before = schedule_runs(store.engine, "small")
        assert [r.status for r in before] == ["done", "done", "interrupted"]

        # Restart, with two scheduler processes on the same database this time.
        processes += [second := start_scheduler(db), third := start_scheduler(db)]
        wait_for(store, 2, after=before[-1].id)
        logs = stop(second) + stop(third)
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.communicate()

    runs = schedule_runs(store.engine, "small")
    after = [r for r in runs if r.id > before[-1].id]
    assert {r.owner for r in before} == {before[0].owner}
    assert before[0].owner not in {r.owner for r in after}  # restarted processes ran these
    assert "already running in another process" in logs  # the two did compete
    # No two runs of the schedule ever overlapped, in one process or across processes.
    spans = sorted((r.started_at, r.finished_at) for r in runs)
    for (_, finished), (next_start, _) in itertools.pairwise(spans):
        assert finished is not None and finished <= next_start
    assert after[0].seed == before[-1].seed  # the restart resumed the interrupted run
    done = [r for r in runs if r.status == "done"]
    snaps = {s.id: s.payload for s in rating_snapshots(store.engine, "small", limit=100)}
    assert len(done) >= 4 and all(r.snapshot_id in snaps for r in done)
    counts = [snaps[r.snapshot_id]["matches"] for r in done]
    assert counts == sorted(counts) and counts[-1] > counts[0]  # ratings accumulate
    store.close()


def test_the_arena_scheduler_command_runs_a_schedule_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    path = fx.tournament_file(tmp_path, BUILTIN_ONLY)
    db = sqlite_url(tmp_path / "cmd.db")
    assert cli(["schedule", "add", str(path), "--every", "1", "--db", db]) == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "scheduler", "--db", db, "--sync-every", "0.5"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    store = Store.open(db)
    try:
        wait_for(store, 1)
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "schedule small: every 1s" in err and "run 1 done (12 match(es) stored" in err
    (run, *_) = schedule_runs(store.engine, "small")
    assert run.trigger == "scheduled" and run.snapshot_id is not None
    store.close()
