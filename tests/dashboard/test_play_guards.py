"""The play server's guards, each on its own: the Host rule, the sliding-window caps, the
people book (digests on disk, one name one person, across two servers sharing the file),
the organiser's list for the other seats, and the cap on matches in play at once."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.plugins.registry import Registry
from arena.storage import Store
from arena.tournaments.play.caps import Caps, Window
from arena.tournaments.play.hosts import HostRule, host_name
from arena.tournaments.play.opponents import DEFAULT_OPPONENTS, Opponents
from arena.tournaments.play.people import PeopleBook, person_name_problem
from arena.tournaments.play.server import PlayServer, Refused, Settings, _Match


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry.load()


@pytest.mark.parametrize(("header", "name"), [
    ("127.0.0.1:8600", "127.0.0.1"), ("LocalHost:1", "localhost"), ("[::1]:8600", "::1"),
    ("play.example.org", "play.example.org"), ("a:b", None), ("a:1:2", None), ("", None),
    ("[::1]x", None), ("évil.example", None), ("a b:1", None), ("u@h:1", None),
    ("x" * 300, None), (None, None),
])
def test_host_names_are_read_strictly(header: str | None, name: str | None) -> None:
    assert host_name(header) == name


def test_a_loopback_server_answers_to_its_names_only() -> None:
    rule = HostRule.for_bind("127.0.0.1")
    assert rule.allows("127.0.0.1:1") and rule.allows("localhost") and rule.allows("[::1]:2")
    for other in ("attacker.example:1", "localhost.:1", "127.0.0.2", "10.0.0.1",
                  "2130706433", "0x7f.1", "127.0.0.1.nip.io"):
        assert not rule.allows(other), other
    assert "--allowed-host" in rule.refusal("attacker.example")


def test_a_server_on_all_interfaces_takes_addresses_and_listed_names() -> None:
    rule = HostRule.for_bind("0.0.0.0", ["play.example.org"])
    assert rule.allows("10.1.2.3:8600") and rule.allows("[fe80::1]:8600")
    assert rule.allows("PLAY.example.org:443") and not rule.allows("evil.example.org")
    assert rule.page_host("0.0.0.0") == "play.example.org"
    assert HostRule.for_bind("0.0.0.0").page_host("0.0.0.0") == "127.0.0.1"
    assert HostRule.for_bind("::1").page_host("::1") == "[::1]"


def test_same_origin_only_from_a_browser() -> None:
    assert HostRule.same_origin(None, "http", "127.0.0.1:1")
    assert HostRule.same_origin("http://127.0.0.1:1", "http", "127.0.0.1:1")
    assert not HostRule.same_origin("null", "http", "127.0.0.1:1")
    assert not HostRule.same_origin("http://127.0.0.1:2", "http", "127.0.0.1:1")


def test_a_window_allows_its_limit_then_says_how_long_to_wait() -> None:
    now = [0.0]
    window = Window(2, 60.0, clock=lambda: now[0])
    assert window.take("a") == 0 and window.take("a") == 0
    assert window.take("a") == pytest.approx(60.0)
    assert window.take("b") == 0  # per key
    now[0] = 30.0
    assert window.take("a") == pytest.approx(30.0)
    now[0] = 60.5
    assert window.take("a") == 0
    now[0] = 1000.0
    window.take("c")
    assert set(window._events) == {"c"}  # expired keys are dropped


def test_people_keep_digests_owner_only_and_one_name_is_one_person(tmp_path: Path) -> None:
    path = tmp_path / "people.json"
    book, other = PeopleBook(path), PeopleBook(path)  # two servers sharing the file
    secret = book.claim("ada")
    assert secret is not None and len(secret) >= 32
    assert other.claim("ada") is None  # the other server sees her claim
    assert other.verify("ada", secret) and not other.verify("ada", secret + "x")
    assert not book.verify("ada", "") and not book.verify("bea", secret)
    assert not book.verify("ada", "y" * 10_000)
    assert secret not in path.read_text()
    assert set(json.loads(path.read_text())["people"]) == {"ada"}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    renewed = other.invite("ada")  # a lost or leaked link: the old secret stops working
    assert book.verify("ada", renewed) and not book.verify("ada", secret)
    made = book.reserve(["ada", "cyd", "cyd"])
    assert list(made) == ["cyd"] and book.verify("cyd", made["cyd"])
    assert PeopleBook(path).known("cyd")  # a restarted server remembers


def test_a_full_book_takes_no_new_name(tmp_path: Path) -> None:
    book = PeopleBook(tmp_path / "p.json", max_people=1)
    assert book.claim("ada") is not None
    with pytest.raises(ConfigError, match="takes no new names"):
        book.claim("bea")


@pytest.mark.parametrize("content", ["not json", '{"version": 2, "people": {}}', "x" * 2_000_000])
def test_a_people_file_that_is_not_ours_is_one_sentence(tmp_path: Path, content: str) -> None:
    path = tmp_path / "p.json"
    path.write_text(content)
    with pytest.raises(ConfigError, match="--people FILE"):
        PeopleBook(path)


@pytest.mark.parametrize("name", ["", "a b", "<b>", "x" * 33, "ada\n", "\u202eada"])
def test_bad_person_names_are_one_sentence(name: str) -> None:
    problem = person_name_problem(name)
    assert problem is not None and "e.g. ada" in problem


def test_the_default_list_and_what_it_lets_through(registry: Registry) -> None:
    offered = Opponents.from_specs(DEFAULT_OPPONENTS, registry)
    assert offered.check("alice", "random") == "random"
    assert offered.check("alice", "scripted:a|b c") == "scripted:a|b c"
    assert offered.check("alice", "hf:bundled") == "hf:bundled"
    for bad in ("hf:bundled?device=cpu", "random?words=9", "scripted:", "scripted:a?x=1",
                "litellm:openai/x", "Random", "scripted:" + "a" * 3000):
        with pytest.raises(ConfigError):
            offered.check("alice", bad)


@pytest.mark.parametrize(("specs", "says"), [
    (["human"], "cannot play the other seats"),
    (["remote:bob"], "cannot play the other seats"),
    (["hf:*"], "only scripted may take its argument from the page"),
    (["scripted:*?per_round=1"], "only scripted may take its argument from the page"),
    (["nosuchkind"], "no player kind 'nosuchkind'"),
    (["random?wordz=3"], "Unknown parameter"),
    (["litellm:openai/x?api_key=sk-abcdefghijklmnopqrstuvwxyz123456"], "may not hold a key"),
    ([], "at least one --opponent"),
])
def test_the_organisers_list_is_checked_at_start(
        registry: Registry, specs: list[str], says: str) -> None:
    with pytest.raises(ConfigError, match=says) as refused:
        Opponents.from_specs(specs, registry)
    assert "sk-abc" not in str(refused.value)


def test_a_person_has_at_most_so_many_matches_in_play(
        registry: Registry, tmp_path: Path) -> None:
    async def scenario() -> None:
        store = Store.open(f"sqlite:///{tmp_path / 'p.db'}")
        try:
            server = PlayServer(Settings(caps=Caps(running_per_person=2)), registry, store)
            server.matches = [_Match(1, "a", {}, "ada"), _Match(2, "b", {}, "ada"),
                              _Match(3, "c", {}, "bea", done=True)]
            with pytest.raises(Refused, match="2 matches in play already") as refused:
                server.check_start("ada")
            assert refused.value.status == 429
            server.check_start("bea")  # hers is done
            server.matches[0].done = True
            server.check_start("ada")
            server.settings.caps = Caps(running=2)  # everyone's together
            server.matches.append(_Match(4, "d", {}, "cyd"))
            with pytest.raises(Refused, match="2 page matches in play, its most"):
                server.check_start("dan")
        finally:
            store.close()

    asyncio.run(scenario())
