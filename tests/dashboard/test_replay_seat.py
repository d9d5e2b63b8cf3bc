"""The replay as a seat shows exactly that seat's information set (XGL.md section 4), reads
judged texts as escaped shaded text, draws every seat's line, and opens by the short match
key that `arena matches` and the export show."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from typer.testing import CliRunner

from arena.cli import build_app
from arena.events import Event
from arena.storage import Store
from arena.storage.match_keys import short_key
from arena.tournaments.services.exchange.export import export_tables
from tests.dashboard import partners_db
from tests.dashboard.conftest import OpenApp, no_exception, run_app


@pytest.fixture(scope="module")
def partners(tmp_path_factory: pytest.TempPathFactory) -> str:
    return partners_db.build(tmp_path_factory.mktemp("partners-db"))


@pytest.fixture
def open_partners(partners: str, monkeypatch: pytest.MonkeyPatch) -> OpenApp:
    def opener(params: dict[str, str]) -> AppTest:
        return run_app(partners, "views/replay.py", {"tournament": "partners", **params},
                       monkeypatch)

    return opener


def page_dump(at: AppTest) -> str:
    """Everything the page sent to the browser (every element's message, tables' data
    included), as one string."""
    parts: list[str] = []

    def walk(node: object) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            parts.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(parts)


def html_bodies(at: AppTest) -> list[str]:
    return [str(e.proto.body) for e in at.get("html")]


def words(text: str) -> set[str]:
    """Lower-cased words of four letters or more."""
    return {w.lower() for w in re.findall(r"[A-Za-z]{4,}", text)}


def contains(text: str, word: str) -> bool:
    return word in text.lower()


def story_of(events: list[Event]) -> str:
    return str(next(e.values["s"] for e in events if e.type == "assign"))


def test_as_bob_no_story_token_reaches_the_page(open_partners: OpenApp, partners: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    key, events = partners_db.first_match(partners, "describe_to_partner", "bob", "mallory")
    story = story_of(events)
    shown = " ".join(v for e in events if e.player == "bob" and e.type in
                     ("reveal", "elicit_response") for v in e.values.values())
    code = (Path(__file__).resolve().parents[2] / "arena/games/describe_to_partner.xgl").read_text()
    # the page's own text, from bob's view of another match (whose story differs)
    other, _ = partners_db.first_match(partners, "describe_to_partner", "bob", "mallory",
                                      skip=1)
    interface = page_dump(open_partners({"match": short_key(other), "seat": "bob"}))
    # the story's words that bob never saw, matched as substrings (table cells are stored
    # back to back, so a word may touch its neighbour): not in t, his move, the code, or
    # anywhere on the page of another match
    unseen = {w for w in words(story) if not contains(shown + code + interface, w)}
    assert len(unseen) >= 5, (story, unseen)
    referee = page_dump(open_partners({"match": short_key(key)}))
    # the referee reads the story: the check can fail
    assert all(contains(referee, w) for w in unseen)
    at = open_partners({"match": short_key(key), "seat": "bob"})
    no_exception(at)
    page = page_dump(at)
    leaked = sorted(w for w in unseen if contains(page, w))
    assert not leaked, f"story words on bob's page: {leaked}"
    # bob's reward scores the story: it reaches him as a total only, no tokens shaded
    assert not [b for b in html_bodies(at) if "xa-token" in b]
    assert any("total only" in t.value for t in at.text)
    # only bob's events, and his own moves
    events_table = next(d.value for d in at.dataframe if "what" in d.value.columns)
    assert set(events_table["player"]) <= {"bob", ""}
    moves = next(d.value for d in at.dataframe if "move" in d.value.columns)
    assert set(moves["seat"]) == {"bob"}
    # another seat's spec (a scripted one lists its moves) is not shown either
    other_key, _ = partners_db.first_match(partners, "describe_to_partner", "alice", "mallory")
    seats = run_app(partners, "views/replay.py", {"tournament": "partners", "seat": "bob",
                                                  "match": short_key(other_key)},
                    monkeypatch).dataframe[1].value.set_index("role")
    assert seats.loc["alice", "spec"] == "" and seats.loc["alice", "participant"] == "mallory"
    # the match picker names who sat where, not the seats' exact scores
    picker = at.selectbox(key=f"r_match_{short_key(key)}")
    assert not [o for o in picker.options if re.search(r"\d\.\d\d", o)], picker.options


def test_reading_shades_tokens_escaped_with_a_legend(open_partners: OpenApp,
                                                     partners: str) -> None:
    key, events = partners_db.first_match(partners, "echo", participant="mallory")
    at = open_partners({"match": short_key(key), "seat": "black"})
    no_exception(at)
    bodies = html_bodies(at)
    legend = next(b for b in bodies if "xa-legend" in b)
    assert "<b>loss</b> for black" in legend and "<b>gain</b> for black" in legend
    reading = next(b for b in bodies if "xa-token" in b)
    # the move's markup is text: escaped, never a tag; unescaped, the spans read the move
    assert "<script" not in reading and "<b>" not in reading.replace("<b>loss", "")
    spans = re.findall(r'<span class="xa-token"[^>]*>([^<]*)</span>', reading)
    assert html.unescape("".join(spans)) == partners_db.HOSTILE_MOVE
    assert "&lt;script&gt;" in "".join(spans)
    reward = next(e for e in events if e.type == "reward")
    term = reward.terms[0]
    titles = re.findall(r'title="([^"]*)"', reading)
    assert len(titles) == len(term.tokens)
    assert f"{term.coefficient * term.bits[3]:+.3f} bits for black" in html.unescape(titles[3])


def test_a_short_key_is_the_same_in_the_cli_the_export_and_the_dashboard(
        open_partners: OpenApp, partners: str) -> None:
    key, _ = partners_db.first_match(partners, "describe_to_partner")
    result = CliRunner().invoke(build_app(), ["matches", "-t", "partners", "--db", partners,
                                              "--limit", "2"])
    assert result.exit_code == 0, result.output
    listed = [line.split()[0] for line in result.output.splitlines()
              if re.match(r"[0-9a-f]{12} ", line)]
    assert len(listed) == 2, result.output
    store = Store.open(partners, create=False)
    try:
        exported = export_tables(store, ["partners"])["matches"]
        total = len(exported)
    finally:
        store.close()
    assert f"Showing the latest 2 of {total} stored matches (use --limit {total}" in result.output
    by_full = {row["match_key"]: row["match"] for row in exported}
    assert by_full[key] == short_key(key) and len(short_key(key)) == 12
    assert set(listed) <= set(by_full.values())
    at = open_partners({"match": listed[0]})  # the CLI's key opens that match's replay
    no_exception(at)
    info = at.dataframe[0].value.set_index("field")["value"]
    assert info["match"] == listed[0]
    assert at.query_params["match"] == listed[0]
    picker = at.selectbox(key=f"r_match_{listed[0]}")
    label = next(o for o in picker.options if o.startswith(listed[0]))
    game = info["game"]
    assert f"{listed[0]} · {game} · " in label and "round(s)" in label
    assert all(f"{role}: " in label for role in at.dataframe[1].value["role"])
