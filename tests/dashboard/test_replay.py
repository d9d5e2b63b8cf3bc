"""The replay page: deep links (by short key) open the right match and seat view, untrusted moves render
literally as text, unknown match ids get a clear message, diffs line two matches up."""

from __future__ import annotations

from sqlalchemy import create_engine, text

from arena.storage.match_keys import short_key
from tests.dashboard.conftest import OpenApp, no_exception
from tests.dashboard.fixture_db import MD_MOVE, XSS_MOVE


def match_id(url: str, game: str, participant: str, role: str | None = None) -> str:
    """The short key of the first match of `game` with `participant` in its main seat."""
    query = (
        "SELECT m.key FROM matches m JOIN games g ON g.id = m.game_id JOIN seats s ON "
        "s.match_id = m.id JOIN participants p ON p.id = s.participant_id WHERE g.name = :g "
        "AND p.name = :p AND s.main" + (" AND s.role = :r" if role else "") + " ORDER BY m.id"
    )
    with create_engine(url).connect() as conn:
        return short_key(str(conn.execute(text(query), {"g": game, "p": participant,
                                                        "r": role}).first()[0]))


def test_a_deep_link_opens_the_match_and_the_seat_view(open_app: OpenApp, arena_db: str) -> None:
    ident = match_id(arena_db, "hidden", "alpha", "bob")
    at = open_app("views/replay.py", {"tournament": "nightly", "match": ident, "seat": "bob"})
    no_exception(at)
    info = at.dataframe[0].value.set_index("field")["value"]
    assert info["game"] == "hidden" and info["main role"] == "bob"
    assert at.selectbox(key=f"r_match_{ident}").value == ident
    seat = next(s for s in at.selectbox if s.label == "View as")
    assert seat.value == "bob"
    assert at.query_params["match"] == ident and at.query_params["seat"] == "bob"
    events = next(d.value for d in at.dataframe if "what" in d.value.columns)
    # bob's view lists only what bob received: his request and the reveal, no assign and
    # nothing of alice's
    assert set(events["player"]) <= {"bob", ""}
    assert "assign" not in set(events["type"]) and "reveal" in set(events["type"])
    shown = [t.value for t in at.text]
    assert any(v.startswith("[round 1] reveal t:") for v in shown)
    assert any("No hidden-register text" in s.value for s in at.success)


def test_an_old_numeric_link_still_opens_its_match(open_app: OpenApp, arena_db: str) -> None:
    with create_engine(arena_db).connect() as conn:
        ident, key = conn.execute(text("SELECT id, key FROM matches ORDER BY id")).first()
    at = open_app("views/replay.py", {"tournament": "nightly", "match": ident})
    no_exception(at)
    assert at.query_params["match"] == short_key(key)  # the link now names the key


def test_switching_the_seat_view_updates_the_link(open_app: OpenApp, arena_db: str) -> None:
    ident = match_id(arena_db, "hidden", "beta", "alice")
    at = open_app("views/replay.py", {"tournament": "nightly", "match": ident})
    seat = next(s for s in at.selectbox if s.label == "View as")
    assert seat.value.startswith("(everything")
    referee = next(d.value for d in at.dataframe if "what" in d.value.columns)
    assert "assign" in set(referee["type"])
    seat.set_value("alice").run()
    no_exception(at)
    assert at.query_params["seat"] == "alice"
    events = next(d.value for d in at.dataframe if "what" in d.value.columns)
    assert "assign" not in set(events["type"]) and set(events["player"]) <= {"alice", ""}


def test_untrusted_moves_render_literally_as_text(open_app: OpenApp, arena_db: str) -> None:
    ident = match_id(arena_db, "hidden", "mallory", "alice")  # alice's moves are long enough
    at = open_app("views/replay.py", {"tournament": "nightly", "match": ident,
                                      "seat": "alice", "round": "2"})
    no_exception(at)
    moves = next(d.value for d in at.dataframe if "move" in d.value.columns)
    assert list(moves[moves["seat"] == "alice"]["move"]) == [XSS_MOVE, MD_MOVE]  # rounds 1, 2
    events = next(d.value for d in at.dataframe if "what" in d.value.columns)
    assert any(MD_MOVE in w for w in events["what"])  # round 2's events
    # the NPC bob's view of the same match shows the revealed move as plain text
    at = open_app("views/replay.py", {"tournament": "nightly", "match": ident,
                                      "seat": "bob", "round": "1"})
    shown = [t.value for t in at.text]
    assert f"[round 1] reveal t: {XSS_MOVE}" in shown
    # nothing player-written reaches markdown; HTML elements (the reading) hold it escaped
    rendered = "\n".join([*(m.value for m in at.markdown), *(c.value for c in at.caption)])
    for move in (XSS_MOVE, MD_MOVE, "onerror", "evil.example"):
        assert move not in rendered
    for element in at.get("html"):
        assert "<img" not in element.proto.body and "](http" not in element.proto.body


def test_an_unknown_match_id_gets_a_clear_message(open_app: OpenApp) -> None:
    at = open_app("views/replay.py", {"tournament": "nightly", "match": "999999"})
    no_exception(at)
    assert at.error[0].value.startswith("There is no match with key \\'999999\\'")
    at = open_app("views/replay.py", {"tournament": "nightly", "match": "abc"})
    assert at.error[0].value.startswith("There is no match with key \\'abc\\'")


def test_an_unknown_seat_falls_back_to_the_referee_view(open_app: OpenApp, arena_db: str) -> None:
    ident = match_id(arena_db, "condense", "alpha")
    at = open_app("views/replay.py", {"tournament": "nightly", "match": ident,
                                      "seat": MD_MOVE})
    no_exception(at)
    warning = at.warning[0].value
    # the link's text is escaped: the markdown link shows literally, it is not a link
    assert warning.startswith("Seat \\'\\[click\\]\\(http\\://evil\\.example\\)\\' is not")
    assert "](" not in warning
    assert next(s for s in at.selectbox if s.label == "View as").value.startswith("(everything")


def test_the_diff_lines_up_a_comparable_match(open_app: OpenApp, arena_db: str) -> None:
    ident = match_id(arena_db, "condense", "alpha")
    at = open_app("views/replay.py", {"tournament": "nightly", "match": ident})
    compare = at.selectbox(key=f"r_diff_{ident}")
    assert len(compare.options) >= 2  # beta's and mallory's matches on the same map
    aligned = next(d.value for d in at.dataframe if ident in d.value.columns)
    assert {"round", "register"} <= set(aligned.columns) and len(aligned) == 2


def test_a_linked_match_sets_the_tournament_filter_to_its_own(open_app: OpenApp,
                                                               arena_db: str) -> None:
    with create_engine(arena_db).connect() as conn:
        ident = short_key(str(conn.execute(text(
            "SELECT m.key FROM matches m JOIN tournaments t ON t.id = m.tournament_id "
            "WHERE t.name = 'duel-cup' ORDER BY m.id")).first()[0]))
    # the link names another tournament than the match's: the match's wins
    at = open_app("views/replay.py", {"tournament": "nightly", "match": ident})
    no_exception(at)
    info = at.dataframe[0].value.set_index("field")["value"]
    assert info["tournament"] == "duel-cup"
    sidebar = at.sidebar.selectbox(key="f_tournament")
    assert sidebar.value == "duel-cup" and at.query_params["tournament"] == "duel-cup"
    assert not at.warning
    # picking another tournament afterwards is kept, and the replay says the match is outside it
    sidebar.set_value("nightly").run()
    no_exception(at)
    assert at.sidebar.selectbox(key="f_tournament").value == "nightly"
    assert at.dataframe[0].value.set_index("field")["value"]["tournament"] == "duel-cup"
    shown = [w.value.replace("\\", "") for w in at.warning]  # markdown escapes removed
    assert any("outside the sidebar's filters" in w and "'duel-cup'" in w for w in shown), shown
