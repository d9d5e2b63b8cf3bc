"""The play page in a real browser (Playwright + chromium-headless-shell, the play server on
loopback, the ngram judge): a person plays a one-player game and describe_to_partner as bob
against an NPC; the stored scores equal `arena play` with the same moves scripted; bob's page
(HTML and every websocket frame) holds no word of the story bob never saw; hostile pasted
games are refused or stopped with the message shown in the page."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.storage import Store
from arena.storage.queries import match_events, stored_matches, tournament_names
from tests.browser.dashboard_server import CHROMIUM_ARGS, ROOT, chromium_path
from tests.browser.play_server import db_url, serve_play

playwright_api = pytest.importorskip("playwright.sync_api")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(chromium_path() is None, reason="chromium-headless-shell not installed"),
]
WAIT_MS = 60_000


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    return db_url(tmp_path_factory.mktemp("play-db"))


@pytest.fixture(scope="module")
def server(db: str) -> Iterator[str]:
    with serve_play(db) as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Seat:
    """One person's tab: the page, its errors and every websocket frame it received."""

    def __init__(self, browser: Any, base: str, person: str, invite: str | None = None,
                 context: Any = None) -> None:
        """Open the page (or `invite`, a link with the person's secret) and join as
        `person`; a newcomer takes the name and this browser keeps its secret."""
        self.context = context or browser.new_context()
        self.page = self.context.new_page()
        self.frames: list[str] = []
        self.errors: list[str] = []
        self.page.on("websocket", lambda ws: ws.on("framereceived", self._frame))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(invite or base + "/")
        if invite is None:
            self.page.fill("#person", person)
        assert self.page.input_value("#person") == person
        self.page.click("#join-button")
        self.page.wait_for_selector("#setup:not([hidden])", timeout=WAIT_MS)

    def _frame(self, payload: str | bytes) -> None:
        self.frames.append(payload if isinstance(payload, str) else payload.decode("latin-1"))

    def choose(self, game: str = "", source: str = "") -> None:
        if source:
            self.page.click("#paste summary")
            self.page.fill("#source", source)
        else:
            self.page.select_option("#game", game)
        self.page.click("#check-button")

    def start(self, role: str, others: dict[str, str]) -> None:
        self.page.wait_for_selector("#start-button:not([disabled])", timeout=WAIT_MS)
        self.page.select_option("#role", role)
        for other, spec in others.items():  # from the server's list; a script is written
            if spec.startswith("scripted:"):
                self.page.select_option(f"select.other[data-role='{other}']", "scripted:*")
                self.page.fill(f"input.other-text[data-role='{other}']",
                               spec.removeprefix("scripted:"))
            else:
                self.page.select_option(f"select.other[data-role='{other}']", spec)
        self.page.click("#start-button")

    def play(self, move: str) -> None:
        """Type the move, undo it, type it again, then submit with Ctrl+Enter."""
        box = self.page.wait_for_selector("#turn:not([hidden]) textarea.move", timeout=WAIT_MS)
        assert box is not None
        box.fill("a draft to undo")
        self.page.click("#undo-button")
        assert box.input_value() == ""
        box.type(move)
        # counted live by the judge's tokenizer (the ngram judge: a word a token)
        playwright_api.expect(self.page.locator("#turn .count")).to_contain_text(
            f"{len(move.split())}/", timeout=WAIT_MS)
        box.press("Control+Enter")

    def finished(self) -> None:
        self.page.wait_for_selector("#feedback .done", timeout=WAIT_MS)

    def everything(self) -> str:
        return str(self.page.content()) + "\n" + "\n".join(self.frames)

    def close(self) -> None:
        self.context.close()


def latest_match(db: str, person: str, tournament: str = "play") -> Any:
    """The person's latest page match (on the ladder, or its practice tournament), the
    tournament's seed key and the match's events."""
    store = Store.open(db)
    try:
        assert tournament in tournament_names(store.engine)
        mine = [m for m in stored_matches(store.engine, tournament)
                if any(s.participant == f"human-{person}" for s in m.seats)]
        match = mine[-1]
        key = store.tournament_seed_key(store_tournament_id(store, tournament))
        return match, key, match_events(store.engine, match.key)
    finally:
        store.close()


def store_tournament_id(store: Store, name: str) -> int:
    from arena.storage.queries import tournament_id

    found = tournament_id(store.engine, name)
    assert found is not None
    return found


def arena_play(game: str, seats: dict[str, str], seed: int, key: bytes) -> dict[str, Any]:
    players = [arg for role, spec in seats.items() for arg in ("--player", f"{role}={spec}")]
    done = subprocess.run(
        [sys.executable, "-m", "arena", "play", game, "--judge", "ngram", *players,
         "--seed", str(seed), "--seed-key", key.hex(), "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
    )
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]{4,}", text)}


def test_a_one_player_game_played_in_the_browser_scores_as_arena_play(
        browser: Any, server: str, db: str) -> None:
    seat = Seat(browser, server, "ada")
    try:
        seat.choose("single_text")
        seat.page.wait_for_selector("#rules li", timeout=WAIT_MS)
        assert "Single text" in seat.page.inner_text("#rules")  # header notes as rules
        seat.start("black", {})
        move = "zebra quantum xylophone"
        seat.play(move)
        seat.finished()
        # the per-token heat map of the judged text (black is omniscient: full breakdown)
        seat.page.wait_for_selector("#feedback .xa-token", timeout=WAIT_MS)
        best = seat.page.inner_text("#feedback .match-card .best")
        assert not seat.errors
    finally:
        seat.close()
    match, key, events = latest_match(db, "ada")
    assert match.status == "done"
    (human,) = [s for s in match.seats if s.role == "black"]
    assert best == f"{human.best:.2f} bits"  # the best score so far, as stored (0.01 bits)
    assert human.participant == "human-ada"
    report = arena_play("single_text", {"black": f"scripted:{move}"}, match.map_seed, key)
    assert report["scores"]["black"]["best"] == pytest.approx(human.best, abs=1e-9)
    assert [e.values for e in events if e.type == "elicit_response"] == [{"t": move}]


def test_bob_against_an_npc_sees_no_word_of_the_story(
        browser: Any, server: str, db: str) -> None:
    alice = "a friendly tale about rivers"
    seat = Seat(browser, server, "bea")
    try:
        baseline = seat.everything()
        seat.choose("describe_to_partner")
        seat.start("bob", {"alice": f"scripted:{alice}"})
        # the other seat is picked from the organiser's list, nothing typed in as a spec
        assert seat.page.locator("select.other[data-role='alice'] option").all_inner_texts(
        ) == ["random", "search", "scripted:*", "hf:bundled"]
        seat.page.wait_for_selector("#turn:not([hidden])", timeout=WAIT_MS)
        assert alice in seat.page.inner_text("#seen")  # what alice told bob
        move = "rivers flowing somewhere"
        seat.play(move)
        seat.finished()
        feedback = seat.page.inner_text("#feedback")
        assert "total only" in feedback  # hidden story: a total
        # ...rounded to 0.01 bits, and shown so, as every number of bits on the page is
        assert re.search(r"= -?\d+\.\d\d bits \(over text you did not see", feedback), feedback
        assert not re.search(r"\d\.\d{3}", feedback), feedback  # one rounding everywhere
        assert not seat.page.query_selector("#feedback .xa-token")
        seen = seat.everything()
    finally:
        seat.close()
    match, key, events = latest_match(db, "bea")
    (story,) = [e.values["s"] for e in events if e.type == "reveal" and e.player == "alice"]
    code = (ROOT / "arena" / "games" / "describe_to_partner.xgl").read_text()
    static = ROOT / "tournaments" / "play" / "static"  # the page's own labels ("at most ...")
    ui = (static / "play.js").read_text() + (static / "play.html").read_text()
    hidden = words(story) - words(" ".join((alice, move, code, baseline, ui)))
    assert len(hidden) >= 3, f"the story has too few words to check: {story!r}"
    leaked = hidden & words(seen)
    assert not leaked, f"words of the hidden story reached bob's browser: {leaked}"
    (bob,) = [s for s in match.seats if s.role == "bob"]
    report = arena_play("describe_to_partner",
                        {"alice": f"scripted:{alice}", "bob": f"scripted:{move}"},
                        match.map_seed, key)
    assert report["scores"]["bob"]["best"] == pytest.approx(bob.best, abs=1e-9)


def test_pasted_python_is_refused_with_its_caret(browser: Any, server: str) -> None:
    seat = Seat(browser, server, "cyd")
    try:
        seat.choose(source='assign(s=__import__("os").system("touch /tmp/x"))\nelicit(t, 5)')
        playwright_api.expect(seat.page.locator("#diagnostics")).to_contain_text(
            "^", timeout=WAIT_MS)
        text = seat.page.inner_text("#diagnostics")
        assert "__import__" in text and "not allowed" in text
        assert seat.page.is_disabled("#start-button")
    finally:
        seat.close()


def test_python_and_markup_in_a_pasted_string_stay_text(
        browser: Any, server: str, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    payload = f"<img src=x onerror=alert(1)> __import__('os').system('touch {marker}')"
    source = f"assign(s={payload!r})\nreveal(black, s)\nelicit(t, 5)\nreward(xent(t | s))\n"
    seat = Seat(browser, server, "eve")
    try:
        seat.choose(source=source)
        seat.start("black", {})
        seat.page.wait_for_selector("#turn:not([hidden])", timeout=WAIT_MS)
        assert payload in seat.page.inner_text("#seen")  # shown as text...
        assert seat.page.query_selector("#seen img") is None  # ...never as markup
        seat.play("one two")
        seat.finished()
        assert not seat.errors
    finally:
        seat.close()
    assert not marker.exists()


def test_a_pasted_game_that_exhausts_memory_stops_with_the_limit_shown(
        browser: Any, server: str) -> None:
    source = ('assign(s="<b>aaaaaaaa</b>")\nbeacon(flag_1)\nassign(s=s+s)\nreplay(flag_1, 100)\n'
              "elicit(t, 5)\nreward(xent(t))\n")
    seat = Seat(browser, server, "dee")
    try:
        seat.choose(source=source)
        seat.start("black", {})
        seat.page.wait_for_selector("#feedback .match-error", timeout=WAIT_MS)
        message = seat.page.inner_text("#feedback .match-error")
        assert "max_value_chars" in message
        assert not seat.page.query_selector("#feedback b:has-text('aaaa')")  # text, not markup
    finally:
        seat.close()


def test_a_returning_person_keeps_their_name_and_an_impostor_gets_nothing(
        browser: Any, server: str) -> None:
    """The browser keeps the secret it was given: a reload joins under the same name with
    no typing; another browser asking for the name is refused, and shown no move."""
    seat = Seat(browser, server, "fay")
    try:
        link = seat.page.inner_text("#invite")
        assert link.startswith(server + "/#person=fay&secret=")
        assert not seat.page.is_hidden("#invite-box")
        seat.page.reload()  # a returning person: the name is filled in and theirs
        assert seat.page.input_value("#person") == "fay"
        seat.page.click("#join-button")
        seat.page.wait_for_selector("#setup:not([hidden])", timeout=WAIT_MS)
        assert seat.page.is_hidden("#invite-box")  # the secret is not shown again
        seat.choose("single_text")
        seat.start("black", {})
        seat.page.wait_for_selector("#turn:not([hidden])", timeout=WAIT_MS)
        impostor = browser.new_context()
        try:
            page = impostor.new_page()
            page.goto(server + "/")
            page.fill("#person", "fay")
            page.click("#join-button")
            playwright_api.expect(page.locator("#status")).to_contain_text(
                "is taken", timeout=WAIT_MS)
            assert page.is_hidden("#setup") and page.is_hidden("#turn")
        finally:
            impostor.close()
        assert not seat.page.is_hidden("#turn")  # fay keeps her seat
        seat.play("quiet zebra words")
        seat.finished()
    finally:
        seat.close()
    again = Seat(browser, server, "fay", invite=link)  # the link in a fresh browser
    try:
        assert "#" not in again.page.url  # the secret left the address bar
        assert again.page.is_hidden("#invite-box")
    finally:
        again.close()


def test_requests_from_another_site_are_refused(server: str) -> None:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        server + "/api/start", data=b"{}", method="POST",
        headers={"Origin": "http://elsewhere.example", "Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 403


def test_a_token_server_refuses_requests_without_it(tmp_path: Path) -> None:
    import urllib.error
    import urllib.request

    token = "a-long-enough-play-token-123"
    with serve_play(db_url(tmp_path), token=token) as base:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base + "/api/options", timeout=10)
        assert refused.value.code == 403
        asked = urllib.request.Request(base + "/api/options", headers={"X-Play-Token": token})
        options = json.loads(urllib.request.urlopen(asked, timeout=10).read())
        assert "single_text" in options["games"] and options["token_needed"]


def claim(base: str, person: str) -> str:
    """`person` takes a free name over the socket, as the page does; their secret."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    import aiohttp

    async def go() -> str:
        async with aiohttp.ClientSession() as session, session.ws_connect(base + "/ws") as ws:
            await ws.send_json({"person": person})
            hello = await ws.receive_json(timeout=30)
            return str(hello["secret"])

    with ThreadPoolExecutor(1) as thread:  # Playwright's own loop runs in this thread
        return thread.submit(asyncio.run, go()).result()


def test_a_malformed_start_is_one_sentence(server: str) -> None:
    import urllib.error
    import urllib.request

    secret = claim(server, "mal")
    body = json.dumps({"game": "single_text", "role": "black",
                       "others": {}, "rounds": "many"}).encode()
    request = urllib.request.Request(server + "/api/start", data=body, method="POST",
                                     headers={"Content-Type": "application/json",
                                              "X-Play-Person": "mal", "X-Play-Secret": secret})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 400
    assert "wrong type" in json.loads(refused.value.read())["error"]
