"""People rated beside programs: the Leaderboard marks the participants whose player is a
person (`human:web`, the play page) and names them with their rating; the dashboard's Play
entry points at the play page beside it."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

import pytest

from arena.dashboard.play_link import play_url
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.protocols.player import MoveRequest
from arena.storage import Store
from arena.storage.read_model import ReadModel
from arena.tournaments.planning.config import parse_tournament
from arena.tournaments.records.rating_store import rating_rows
from arena.tournaments.services.run_config import play_config
from tests.dashboard.conftest import OpenApp, no_exception


class Answering:
    """A person at the desk who answers every move at once (what the page would send)."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def ask(self, person: str, request: MoveRequest,
                  judge: Judge | None = None) -> Mapping[str, str]:
        self.asked.append(person)
        return {register: "zebra quantum xylophone" for register in request.registers}


@pytest.fixture(scope="module")
def ladder_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A tournament where ada (a person, through a desk) and two programs played 3 maps."""
    url = f"sqlite:///{tmp_path_factory.mktemp('people') / 'people.db'}"
    config = parse_tournament({
        "name": "ladder", "mode": "eval", "judge": "ngram", "maps": 3, "move_retries": 0,
        "participants": [
            {"name": "human-ada", "player": "human:web?name=ada"},
            {"name": "rnd", "player": "random?words=3"},
            {"name": "srch", "player": "search"},
        ],
        "games": [{"game": "single_text"}],
    })
    desk = Answering()
    store = Store.open(url, create=True)
    try:
        registry = Registry.load().with_desk(desk)
        asyncio.run(play_config(config, store, registry, snapshots=True))
    finally:
        store.close()
    assert desk.asked == ["ada"] * 3  # the person's seat asked the desk in its context
    return url


def test_the_read_model_names_the_people_of_a_tournament(ladder_db: str) -> None:
    reader = ReadModel.open(ladder_db)
    try:
        assert reader.people("ladder") == ["human-ada"]
        assert reader.people("no-such") == []
    finally:
        reader.close()


def test_the_leaderboard_marks_the_person_with_their_rating(
        open_app: OpenApp, ladder_db: str) -> None:
    at = open_app("views/leaderboard.py", {"tournament": "ladder"}, url=ladder_db)
    no_exception(at)
    board = at.dataframe[0].value
    kinds = dict(zip(board["participant"], board["kind"], strict=True))
    assert kinds == {"human-ada": "person", "rnd": "program", "srch": "program"}
    store = Store.open(ladder_db)
    try:
        (ada,) = [r for r in rating_rows(store, ["ladder"]) if r["participant"] == "human-ada"]
    finally:
        store.close()
    caption = " ".join(c.value for c in at.caption)
    assert (f"👤 person: human\\-ada {ada['rating']:.0f} [{ada['ci_low']:.0f}, "
            f"{ada['ci_high']:.0f}]") in caption


def test_a_board_without_people_has_no_mark(open_app: OpenApp) -> None:
    at = open_app("views/leaderboard.py", {"tournament": "nightly"})
    no_exception(at)
    assert "kind" not in at.dataframe[0].value
    assert not any("person" in c.value for c in at.caption)


@pytest.mark.parametrize(
    ("value", "host", "url"),
    [(":8600", "127.0.0.1:8501", "http://127.0.0.1:8600/"),
     (":8600", "arena.example:8501", "http://arena.example:8600/"),
     (":8600", "[::1]:8501", "http://[::1]:8600/"),
     (":8600", None, "http://127.0.0.1:8600/"),
     ("http://play.example/", "x", "http://play.example/"),
     ("", "x", None), ("javascript:alert(1)", "x", None), (":86a0", "x", None)],
)
def test_the_play_entry_points_at_the_play_page(value: str, host: str | None,
                                                url: str | None) -> None:
    assert play_url(value, host) == url


def test_no_play_entry_without_a_play_server() -> None:
    assert play_url(None, "127.0.0.1:8501") is None
