"""The play server's state and the runs it starts: who is connected, the matches in play,
and how a page match is played (docs/play.md).

A page match is a run of the ladder tournament like any other (`ladder.py`): prepared, then
played by the executor the config names through `play_config`, stored, rated by snapshots.
The person's match runs first with the server's desk lent to its players (`HumanDesk.lend`
through `Registry.with_desk`); once it is stored, the ladder's models play the same map and
a rating snapshot is stored, and the person hears their rating. A tournament file's run
(`--tournament`) is played the same way, its `human:web` entrants answering from the page.

Safety (docs/threats.md, "The play page"): a person acts only with their own secret
(`people.py`); the other seats are the organiser's list (`opponents.py`); starts are capped
(`caps.py`). What a person receives is built by `frames.py` only.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import itertools
import logging
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from arena.errors import ArenaError
from arena.events import Event
from arena.plugins.registry import Registry
from arena.storage import MATCH_ERROR, Store
from arena.storage.match_keys import short_key
from arena.tournaments.play.caps import Caps, Window, seconds_text
from arena.tournaments.play.desk import HumanDesk, MatchNote
from arena.tournaments.play.frames import (
    Frame,
    queue_frame,
    rating_frame,
    request_frame,
    seat_frame,
)
from arena.tournaments.play.hosts import HostRule
from arena.tournaments.play.ladder import (
    SOURCE,
    Ladder,
    PageMatch,
    human_seats,
    person_participant,
)
from arena.tournaments.play.opponents import DEFAULT_OPPONENTS, Opponents
from arena.tournaments.play.people import PeopleBook, person_name_problem
from arena.tournaments.running.prepare import PreparedTournament
from arena.tournaments.services.run_config import play_config

log = logging.getLogger(__name__)
TOKEN_HEADER = "X-Play-Token"
PERSON_HEADER = "X-Play-Person"
SECRET_HEADER = "X-Play-Secret"
MODEL_RUNS = 2  # models' runs at once (each plays one map; they queue behind each other)


class Refused(ArenaError):
    """A request the server will not serve: `status` and one sentence."""

    def __init__(self, message: str, status: int = 403) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Settings:
    """How the server runs: the database, the ladder (its judge, models, a person's move
    timeout, the limits of pasted games), the token (None on loopback), the names it answers
    to, the organiser's list for the other seats (None: the default list), the people book,
    the caps, the names to invite at start and the dashboard's address (for links)."""

    db: str | None = None
    ladder: Ladder = field(default_factory=Ladder)
    token: str | None = None
    hosts: HostRule = field(default_factory=lambda: HostRule.for_bind("127.0.0.1"))
    opponents: Opponents | None = None
    people: PeopleBook = field(default_factory=lambda: PeopleBook(None))
    caps: Caps = field(default_factory=Caps)
    invites: tuple[str, ...] = ()
    dashboard: str = ""


@dataclass
class _Match:
    """A page match or a tournament file's run in play: which seats are people's (plan key
    -> role -> person), their best scores so far, who started it."""

    number: int
    label: str
    seats: dict[str, dict[str, str]]
    owner: str | None = None  # the person who started it on the page
    page: bool = False
    best: dict[tuple[str, str], float] = field(default_factory=dict)
    done: bool = False

    def card(self, key: str, role: str) -> str:
        """The page's card of a seat: one per page match; per seat in a tournament."""
        if self.page:
            return f"m{self.number}"
        return f"t{self.number}-" + hashlib.sha256(f"{key}:{role}".encode()).hexdigest()[:10]


class PlayServer:
    """The app's state: the desk, the people connected, the matches in play."""

    def __init__(self, settings: Settings, registry: Registry, store: Store) -> None:
        self.settings = settings
        self.registry = registry
        self.store = store
        self.people = settings.people
        self.opponents = settings.opponents or Opponents.from_specs(DEFAULT_OPPONENTS, registry)
        self.desk = HumanDesk()
        self.sockets: dict[str, web.WebSocketResponse] = {}
        self.matches: list[_Match] = []  # in play
        self.numbers = itertools.count(1)
        self.tasks: set[asyncio.Task[None]] = set()
        self.model_runs = asyncio.Semaphore(MODEL_RUNS)
        caps = settings.caps
        self.starts = Window(caps.starts_per_minute)
        self.new_names = Window(caps.names_per_minute)
        self.open_sockets: dict[str, int] = {}  # client address -> sockets open

    # ------------------------------------------------------------------ who is asking

    def person(self, request: web.Request) -> str:
        """The person a call comes from, proven by their secret; else `Refused`."""
        name = request.headers.get(PERSON_HEADER, "")
        if not self.people.verify(name, request.headers.get(SECRET_HEADER, "")):
            raise Refused("Join with your name first (your secret is missing or is not "
                          "that name's): reload the page, or open your invite link.")
        return name

    def join(self, first: dict[str, Any], address: str) -> tuple[str, str | None]:
        """Who the socket's first frame says it is: (person, None) for a name and its
        secret; (person, new secret) for a newcomer taking a free name. Else `Refused`."""
        if not token_ok(self.settings.token, text_field(first, "token") or None):
            raise Refused("Wrong play token.")
        person = text_field(first, "person").strip()
        problem = person_name_problem(person)
        if problem:
            raise Refused(problem)
        secret = text_field(first, "secret")
        if secret and self.people.known(person):
            if not self.people.verify(person, secret):
                raise Refused(f"That is not the secret of '{person}' (an old or mistyped "
                              "link?). Ask the organiser for a new invite link, or join "
                              "under another name.")
            return person, None
        taken = (f"The name '{person}' is taken: someone plays under it with their own "
                 "secret. If it is yours, open your invite link (or the browser you joined "
                 "from); otherwise pick another name.")
        if self.people.known(person):
            raise Refused(taken)
        wait = self.new_names.take(address)
        if wait:
            raise Refused(f"{self.settings.caps.names_per_minute} new names were taken from "
                          f"your address in the last minute; wait {seconds_text(wait)}.")
        made = self.people.claim(person)
        if made is None:
            raise Refused(taken)
        return person, made

    def check_start(self, person: str) -> None:
        """The caps on matches a person starts: at once, and per minute."""
        caps = self.settings.caps
        playing = [m.owner for m in self.matches if m.owner is not None and not m.done]
        if len(playing) >= caps.running:
            raise Refused(f"The server has {len(playing)} page matches in play, its most; "
                          "start yours when one ends.", 429)
        running = playing.count(person)
        if running >= caps.running_per_person:
            raise Refused(f"You have {running} matches in play already (at most "
                          f"{caps.running_per_person} at once): finish one, then start the "
                          "next.", 429)
        wait = self.starts.take(person)
        if wait:
            raise Refused(f"You started {caps.starts_per_minute} matches in the last minute "
                          f"(the most this server allows); wait {seconds_text(wait)}.", 429)

    # ------------------------------------------------------------------ pushing frames

    def send(self, person: str, frame: Frame) -> None:
        ws = self.sockets.get(person)
        if ws is not None and not ws.closed:
            task = asyncio.ensure_future(ws.send_json(frame))
            task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)

    def queue_changed(self, person: str) -> None:
        waiting = self.desk.waiting(person)
        self.send(person, queue_frame(waiting))
        if waiting:
            self.send(person, request_frame(waiting[0]))

    def _on_event(self, match: _Match, event: Event, key: str) -> None:
        for role, person in match.seats.get(key, {}).items():
            if event.type == "round_finished" and event.scores.get(role) is not None:
                score = float(event.scores[role] or 0.0)
                old = match.best.get((key, role))
                match.best[(key, role)] = score if old is None else max(old, score)
            frame = seat_frame(event, role, match.card(key, role), match.best.get((key, role)))
            if frame is not None:
                self.send(person, frame)

    def _done(self, match: _Match, frame: Frame) -> None:
        """Tell each person of `match` how it ended, with their own best score only."""
        match.done = True
        with contextlib.suppress(ValueError):
            self.matches.remove(match)  # a long-lived server keeps only those in play
        for key, roles in match.seats.items():
            for role, person in roles.items():
                self.send(person, {**frame, "card": match.card(key, role),
                                   "best": match.best.get((key, role))})

    # ------------------------------------------------------------------ running matches

    def start_page(self, page: PageMatch, label: str) -> _Match:
        """Play a page match in the background: the person's run, then the models'."""
        match = _Match(next(self.numbers), label, {page.mine.key: {page.role: page.person}},
                       owner=page.person, page=True)
        self.matches.append(match)
        self._spawn(self._play_page(match, page))
        return match

    async def _play_page(self, match: _Match, page: PageMatch) -> None:
        ladder = self.settings.ladder
        note = MatchNote(match.number, page.tournament, page.opponents, ladder.move_timeout,
                         new_map=True)
        lent = self.registry.with_desk(self.desk.lend(note))
        frame: Frame = {"type": "done", "match": match.number, "label": match.label,
                        "tournament": page.tournament, "models": len(page.models)}
        try:
            summary = await play_config(
                page.prepared.config, self.store, lent, prepared=page.person_run(),
                source=SOURCE, on_event=lambda event, key: self._on_event(match, event, key),
            )
            frame["status"] = ("error" if summary.errors else "no_result"
                               if summary.no_results else summary.status)
            if summary.errors:
                frame["error"] = await asyncio.to_thread(self._stored_error, page)
            else:  # the dashboard's replay of it (the page links it when it has one)
                frame["replay"] = f"/replay?match={short_key(page.mine.key)}"
        except Exception as error:  # the server goes on; the person is told
            log.warning("play server: %s failed: %s", match.label, error)
            frame["status"], frame["error"] = "failed", f"{type(error).__name__}: {error}"
        self._done(match, frame)
        if frame["status"] == "done" and page.models:
            await self._models_play(page)

    async def _models_play(self, page: PageMatch) -> None:
        """The ladder's models play the person's map, then the person hears their rating."""
        models = page.models_run()
        assert models is not None
        try:
            async with self.model_runs:
                await play_config(page.prepared.config, self.store, self.registry,
                                  prepared=models, source=SOURCE, snapshots=True)
            self.send(page.person, await asyncio.to_thread(
                self.rating_of, page.person, page.tournament))
        except Exception as error:  # the person's match is stored; the rating waits
            log.warning("play server: the models' run of %s failed: %s", page.tournament, error)

    def rating_of(self, person: str, tournament: str | None = None) -> Frame:
        """The person's place on the ladder, from its latest rating snapshot."""
        name = tournament or self.settings.ladder.name
        found = self.store.rating_snapshots(name, limit=1)
        rows = list(found[0].payload.get("rows", [])) if found else []
        return rating_frame(name, person_participant(person), rows,
                            f"/leaderboard?tournament={name}")

    def _stored_error(self, page: PageMatch) -> str:
        for stored in self.store.stored_matches(page.tournament, status=MATCH_ERROR):
            if stored.key == page.mine.key and stored.error:
                return str(stored.error)
        return "the match ended with an error"

    def start_tournament(self, prepared: PreparedTournament) -> _Match:
        """Play a tournament file with `human:web` entrants, as `arena run` would, the
        server's desk lent to its people's seats."""
        seats = {p.key: human_seats(p) for p in prepared.plans}
        label = f"tournament {prepared.config.name}"
        match = _Match(next(self.numbers), label, seats)
        self.matches.append(match)
        config = prepared.config
        note = MatchNote(0, config.name, {}, config.move_timeout)
        lent = self.registry.with_desk(self.desk.lend(note))

        async def run() -> None:
            frame: Frame = {"type": "done", "match": match.number, "label": label,
                            "tournament": config.name}
            try:
                summary = await play_config(
                    config, self.store, lent, prepared=prepared, snapshots=True,
                    on_event=lambda event, key: self._on_event(match, event, key),
                )
                frame["status"] = summary.status
            except Exception as error:  # the server goes on
                log.warning("play server: %s failed: %s", label, error)
                frame["status"] = "failed"
            self._done(match, frame)

        self._spawn(run())
        return match

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        for task in list(self.tasks):
            with contextlib.suppress(BaseException):
                await task
        for ws in list(self.sockets.values()):
            await ws.close()


def token_ok(token: str | None, given: str | None) -> bool:
    if token is None:
        return True
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


def text_field(data: dict[str, Any], key: str) -> str:
    """A text field of a request (absent: ""); any other type is the sender's mistake."""
    value = data.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ArenaError(f"The field {key!r} must be text: send the page's own request.")
    return value
