"""Recurring tournaments: schedules kept in the arena database (`arena schedule ...`).

A schedule names a tournament file and when to run it: a crontab expression (five fields,
or six with seconds first, or @daily-style nicknames), or a fixed interval in seconds
(`--every`). The database is the source of truth; `arena scheduler` reads it.

Day-of-week numbers follow crontab (0 and 7 are Sunday), not APScheduler 3's own numbering
(0 is Monday): numbers are translated to day names before APScheduler sees them.

Each run of a schedule plays the tournament with its own seed (`seeds = "fresh"`, the
default), so every run adds new matches on new maps to the same tournament and its ratings
accumulate; `seeds = "fixed"` replays the file's seed, so a run plays only what is missing
(new participants or games added to the file).
"""

from __future__ import annotations

import difflib
import zoneinfo
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any, Literal, get_args

from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from arena.errors import ArenaError, UnknownNameError
from arena.plugins.registry import Registry
from arena.specs import NAME_RE
from arena.storage import Store
from arena.storage.schedules import ScheduleRecord
from arena.tournaments.planning.config import load_tournament
from arena.tournaments.running.prepare import prepare_tournament

SeedPolicy = Literal["fresh", "fixed"]
SEED_POLICIES: tuple[SeedPolicy, ...] = get_args(SeedPolicy)
CRON_FIELDS = ("minute", "hour", "day-of-month", "month", "day-of-week")
_APS_FIELDS = {"second": "second", "minute": "minute", "hour": "hour",
               "day-of-month": "day", "month": "month", "day-of-week": "day_of_week"}
NICKNAMES = {
    "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
CRON_HELP = (
    "Write five fields 'minute hour day-of-month month day-of-week' (e.g. '0 3 * * *' = "
    "every day at 03:00, '*/15 * * * 1-5' = every 15 minutes on weekdays), six with "
    "seconds first ('*/10 * * * * *'), or a nickname (" + ", ".join(NICKNAMES) + ")."
)


class ScheduleError(ArenaError):
    """A bad schedule: cron expression, interval, time zone, name or file."""


def _day_number(token: str) -> int:
    if token.isdigit():
        number = int(token)
        if number > 7:
            raise ValueError(f"day {number} is out of range (0-7, 0 and 7 are Sunday)")
        return number
    name = token.lower()[:3]
    if name not in _DAYS:
        raise ValueError(f"'{token}' is not a day (sun, mon, ... sat or 0-7)")
    return _DAYS.index(name)


def crontab_weekdays(field: str) -> str:
    """A crontab day-of-week field with its numbers as day names (0 and 7 = sun), the form
    on which crontab and APScheduler 3 agree; fields without digits are returned as is."""
    if not any(ch.isdigit() for ch in field):
        return field
    days: set[int] = set()
    for part in field.split(","):
        body, slash, step_text = part.partition("/")
        step = int(step_text) if step_text.isdigit() and int(step_text) > 0 else 0
        if slash and not step:
            raise ValueError(f"step '{step_text}' must be a positive whole number")
        if body == "*":
            low, high = 0, 6
        elif "-" in body:
            start, _, end = body.partition("-")
            low, high = _day_number(start), _day_number(end)
            if high < low:
                raise ValueError(f"range '{body}' runs backwards")
        else:
            low = _day_number(body)
            high = 7 if slash else low  # crontab's 'N/step' means N, N+step, ... to the end
        days.update(day % 7 for day in range(low, high + 1, step or 1))
    return ",".join(_DAYS[day] for day in sorted(days))


def _timezone(name: str | None) -> tzinfo | None:
    if not name:
        return None  # APScheduler's default: the machine's local zone
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        close = difflib.get_close_matches(name, zoneinfo.available_timezones(), n=1)
        hint = f" Did you mean '{close[0]}'?" if close else ""
        raise ScheduleError(
            f"Unknown time zone '{name}'.{hint} Use an IANA name such as 'UTC' or "
            "'Europe/Paris', or leave it out for this machine's zone."
        ) from None


def parse_cron(text: str, timezone: str | None = None) -> CronTrigger:
    """An APScheduler trigger for a crontab expression; `ScheduleError` naming the bad field."""
    expression = NICKNAMES.get(text.strip().lower(), text.strip())
    fields = expression.split()
    if len(fields) not in (5, 6):
        raise ScheduleError(
            f"Bad cron expression '{text}': it has {len(fields)} field(s). {CRON_HELP}"
        )
    names = (("second",) if len(fields) == 6 else ()) + CRON_FIELDS
    values = dict(zip(names, fields, strict=True))
    zone = _timezone(timezone)
    for position, (name, value) in enumerate(values.items(), start=1):
        try:
            if name == "day-of-week":
                values[name] = value = crontab_weekdays(value)
            CronTrigger(**{_APS_FIELDS[name]: value}, timezone="UTC")
        except ValueError as error:
            raise ScheduleError(
                f"Bad cron expression '{text}': field {position} ({name}) is "
                f"'{fields[position - 1]}': {error}. {CRON_HELP}"
            ) from None
    if len(fields) == 5:
        trigger = CronTrigger.from_crontab(" ".join(values.values()), timezone=zone)
    else:
        trigger = CronTrigger(**{_APS_FIELDS[k]: v for k, v in values.items()}, timezone=zone)
    if trigger.get_next_fire_time(None, datetime.now(trigger.timezone)) is None:
        raise ScheduleError(
            f"The cron expression '{text}' never fires (e.g. February 30th). {CRON_HELP}"
        )
    return trigger


def interval_trigger(seconds: float, timezone: str | None = None) -> IntervalTrigger:
    if not seconds > 0:
        raise ScheduleError(f"--every must be a positive number of seconds, got {seconds}.")
    return IntervalTrigger(seconds=seconds, timezone=_timezone(timezone))


def trigger_for(record: ScheduleRecord) -> BaseTrigger:
    """The APScheduler trigger of a stored schedule."""
    timezone = record.args.get("timezone")
    if record.interval_s is not None:
        return interval_trigger(record.interval_s, timezone)
    return parse_cron(record.cron, timezone)


def describe_trigger(record: ScheduleRecord) -> str:
    zone = record.args.get("timezone")
    when = f"every {record.interval_s:g}s" if record.interval_s is not None else record.cron
    return f"{when} ({zone})" if zone else when


def next_run_time(record: ScheduleRecord, now: datetime) -> datetime | None:
    """When the schedule fires next after `now` (an aware datetime)."""
    fire: datetime | None = trigger_for(record).get_next_fire_time(None, now)
    return fire


def find_schedule(store: Store, name: str) -> ScheduleRecord:
    found = {s.name: s for s in store.schedules()}
    if name not in found:
        raise UnknownNameError(
            "schedule", name, found, "Run `arena schedule list` to see the schedules."
        )
    return found[name]


def add_schedule(
    store: Store,
    file: str | Path,
    *,
    cron: str | None = None,
    every: float | None = None,
    name: str | None = None,
    seeds: str = "fresh",
    timezone: str | None = None,
    concurrency: int | None = None,
    replace: bool = False,
    registry: Registry,
) -> ScheduleRecord:
    """Check the trigger and the tournament file (against the installed plugins), then
    store the schedule; its name defaults to the tournament's name."""
    if (cron is None) == (every is None):
        raise ScheduleError(
            "Give exactly one of --cron 'EXPR' and --every SECONDS. " + CRON_HELP
        )
    if seeds not in SEED_POLICIES:
        raise UnknownNameError("seed policy", seeds, SEED_POLICIES)
    if cron is not None:
        parse_cron(cron, timezone)
    else:
        interval_trigger(float(every or 0), timezone)
    path = Path(file).expanduser().resolve()
    config = load_tournament(path, db=store)  # a scope:NAME reads the schedule's database
    prepare_tournament(config, registry, str(path))
    label = name or config.name
    if not NAME_RE.fullmatch(label):
        raise ScheduleError(
            f"The schedule name {label[:80]!r} may hold only letters, digits, '_', '.' and "
            "'-'. Pass e.g. --name nightly."
        )
    if not replace and any(s.name == label for s in store.schedules()):
        raise ScheduleError(
            f"A schedule named '{label}' already exists. Pass --replace to change it, "
            "--name to add another one, or `arena schedule remove " + label + "` first."
        )
    args: dict[str, Any] = {"seeds": seeds}
    if timezone:
        args["timezone"] = timezone
    if concurrency:
        args["concurrency"] = concurrency
    store.save_schedule(
        label, cron or "", str(path), args,
        interval_s=None if every is None else float(every),
    )
    return find_schedule(store, label)


def remove_schedule(store: Store, name: str) -> None:
    """Delete a schedule (its past runs, matches and snapshots stay)."""
    find_schedule(store, name)
    store.delete_schedule(name)
