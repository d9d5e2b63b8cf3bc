"""The dashboard's pure pieces: chart specs, the seat view, filters and the data module's
queries against the real fixture database."""

from __future__ import annotations

import json
from datetime import date

import pandas as pd
import pytest

from arena.dashboard import charts, data, derived
from arena.dashboard.filters import Filters, filters_from_params, params_from_filters
from arena.dashboard.seatview import leaks, seen_by
from arena.dashboard.transcript_frames import marked_code
from arena.events import Assign, ElicitRequest, ElicitResponse, Reveal, RoundStarted
from arena.storage import MATCH_DONE, Store
from arena.storage.queries import stored_matches
from arena.storage.read_model import ReadModel
from arena.tournaments.records.from_store import records_from_store


def test_forest_plot_orders_by_rating_and_draws_intervals() -> None:
    board = pd.DataFrame({"participant": ["b", "a"], "rating": [990.0, 1010.0],
                          "ci_low": [950.0, 980.0], "ci_high": [1020.0, 1040.0],
                          "provisional": [True, False]})
    spec = charts.forest_plot(board, "Elo").to_dict()
    rule, point = spec["layer"]
    assert rule["mark"]["type"] == "rule"
    assert rule["encoding"]["x"]["field"] == "ci_low" and rule["encoding"]["x2"]["field"] == \
        "ci_high"
    assert rule["encoding"]["y"]["sort"] == ["a", "b"]
    assert point["encoding"]["fill"]["condition"]["test"] == "datum.provisional"


@pytest.mark.parametrize("count", [3, 50])
def test_forest_plot_gives_every_participant_its_own_row(count: int) -> None:
    ratings = [1000.0 + 7 * ((i * 13) % count) for i in range(count)]
    board = pd.DataFrame({"participant": [f"participant-{i:02d}" for i in range(count)],
                          "rating": ratings, "ci_low": [r - 30 for r in ratings],
                          "ci_high": [r + 30 for r in ratings], "provisional": False})
    spec = charts.forest_plot(board, "Elo").to_dict()
    best_first = list(board.sort_values("rating", ascending=False)["participant"])
    y = spec["layer"][0]["encoding"]["y"]
    assert y["type"] == "nominal" and y["field"] == "participant"
    assert y["scale"]["domain"] == best_first and y["sort"] == best_first  # a row each, sorted
    assert y["axis"]["labelOverlap"] is False
    # a fixed number of pixels per row, not a container height shared by all
    assert spec["height"] == count * charts.FOREST_ROW_PX >= count * 20
    assert spec["autosize"]["type"] == "fit-x"  # Streamlit's "fit" would squeeze the rows
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["rule", "point"]
    # the participant x participant matrices get the same fixed rows
    pairs = pd.DataFrame({"a": best_first, "b": best_first[::-1], "p_win": 0.5})
    probs = pd.DataFrame({"participant": best_first, "rank": 1, "p": 1.0 / count})
    for matrix in (charts.pair_matrix(pairs, "p_win", "P"), charts.rank_probabilities(probs)):
        assert matrix.to_dict()["height"] == spec["height"]
        assert matrix.to_dict()["autosize"]["type"] == "fit-x"


def _contrast_on_white(colour: str) -> float:
    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    luminance = 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
    return 1.05 / (luminance + 0.05)


def test_ratings_over_time_with_one_snapshot_has_a_snapshot_axis_and_readable_colours() -> None:
    created = pd.Timestamp("2026-11-24 18:01:02.739")
    history = pd.DataFrame({"snapshot": [7] * 4, "created_at": [created] * 4,
                            "participant": ["a", "b", "c", "d"],
                            "rating": [1000.0, 990.0, 1010.0, 1020.0],
                            "ci_low": [950.0] * 4, "ci_high": [1050.0] * 4})
    changes = pd.DataFrame({"kind": ["judge"], "name": ["j"], "detail": ["x"],
                            "first_match_at": [created - pd.Timedelta(minutes=1)]})
    spec = charts.rating_history(history, changes, "Elo").to_dict()
    label = charts.snapshot_label(7, created)
    assert label == "#7 · 2026-11-24 18:01"
    for layer in spec["layer"]:
        x = layer["encoding"]["x"]
        assert x["type"] == "ordinal" and x["field"] == "snapshot_at"  # not a time scale
        assert x["scale"]["domain"] == [label]
    _band, interval, line, marks = spec["layer"]
    assert interval["mark"]["type"] == "rule"  # the interval shows even with one snapshot
    mark_rows = spec["datasets"][marks["data"]["name"]]
    assert [row["snapshot_at"] for row in mark_rows] == [label]
    colours = line["encoding"]["color"]["scale"]["range"]
    assert len(colours) >= 8
    assert all(_contrast_on_white(c) >= 3.0 for c in colours), colours
    panels = charts.histogram_panels(pd.DataFrame({"participant": ["a"], "bin_low": [0.0],
                                                   "bin_high": [1.0], "mass": [1.0]}), "x")
    assert panels.to_dict()["spec"]["encoding"]["color"]["scale"]["range"] == colours
    ecdf = charts.ecdf(pd.DataFrame({"participant": ["a"], "game": ["g"], "value": [1.0]}), "x")
    assert ecdf.to_dict()["encoding"]["color"]["scale"]["range"] == colours


def test_other_charts_encode_their_columns() -> None:
    masses = pd.DataFrame({"participant": ["a"], "bin_low": [0.0], "bin_high": [1.0],
                           "mass": [1.0]})
    hist = charts.histogram_panels(masses, "score").to_dict()
    assert hist["spec"]["encoding"]["y"]["field"] == "mass"
    assert hist["facet"]["row"]["field"] == "participant"  # a panel each, never overlaid
    curves = pd.DataFrame({"participant": ["a", "base"], "round": [1, 1], "arms": [1.0, 2.0]})
    arms = charts.arms_chart(curves, "base").to_dict()
    assert arms["encoding"]["strokeDash"]["condition"]["test"] == "datum.is_base"
    assert [v["is_base"] for v in next(iter(arms["datasets"].values()))] == [False, True]
    probs = pd.DataFrame({"participant": ["a"], "rank": [1], "p": [1.0]})
    assert charts.rank_probabilities(probs).to_dict()["layer"][0]["encoding"]["color"][
        "scale"]["domain"] == [0, 1]
    ecdf = charts.ecdf(pd.DataFrame({"participant": ["a"], "game": ["g"], "value": [1.0]}),
                       "x").to_dict()
    assert ecdf["transform"][0]["window"][0]["op"] == "cume_dist"
    assert ecdf["mark"]["point"] is True  # one game per participant still shows


def events_with_a_leak() -> list:  # type: ignore[type-arg]
    secret = "the hidden story of the dragon"
    return [
        RoundStarted(round=1, line=0),
        Assign(round=1, line=1, values={"s": secret}),
        ElicitRequest(round=1, line=2, player="alice", registers={"s": secret}, targets=["t"],
                      max_len=5),
        ElicitResponse(round=1, line=2, player="alice", values={"t": "dragon"}, cut=False),
        Reveal(round=1, line=3, player="bob", values={"t": "dragon"}),
        ElicitRequest(round=1, line=4, player="bob", registers={"x": f"hint: {secret}"},
                      targets=["y"], max_len=5),
    ]


def test_seat_view_rules_and_leak_detection() -> None:
    events = events_with_a_leak()
    assert [seen_by(e, "bob") for e in events] == [True, False, False, False, True, True]
    assert [seen_by(e, "alice") for e in events] == [True, False, True, True, False, False]
    found = leaks(events, "bob")
    assert [(x.register, x.where) for x in found] == [("s", "register x")]
    assert leaks(events, "alice") == []  # alice was shown s itself
    clean = events[:5]
    assert leaks(clean, "bob") == []  # a reveal is by design, not a leak


def test_marked_code_marks_one_line() -> None:
    code = "assign(s=story(5))\nelicit(a, t, 5)"
    lines = marked_code(code, 2).splitlines()
    assert lines[0].startswith("  1") and lines[1].startswith("▶ 2")
    assert "▶" not in marked_code(code, 0)


def test_filters_round_trip_through_query_params() -> None:
    f = Filters("nightly", 4, ("b", "a"), "ngram", date(2026, 1, 2), date(2026, 1, 3))
    params = params_from_filters(f)
    single = {k: v for k, v in params.items() if isinstance(v, str)}
    back = filters_from_params(single, list(params["game"]))
    assert back == Filters("nightly", 4, ("a", "b"), "ngram", date(2026, 1, 2),
                           date(2026, 1, 3))
    assert filters_from_params({"snapshot": "x", "since": "not a date"}, []) == Filters()


def test_match_records_agree_with_the_storage_layer(arena_db: str) -> None:
    reader = ReadModel.open(arena_db)
    ours = data.match_records(reader.scored_seats(Filters("nightly")))
    store = Store.open(arena_db)
    try:
        theirs = records_from_store(stored_matches(store.engine, "nightly", status=MATCH_DONE))
    finally:
        store.close()
    assert len(ours) == 30 and ours == theirs  # ids, versions, seats: the same records


def test_queries_follow_filters_and_the_watermark_moves(arena_db: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    reader = ReadModel.open(arena_db)
    everything = reader.match_count(Filters("nightly"))
    only = reader.match_count(Filters("nightly", games=("condense",)))
    assert everything == 30 and 0 < only < everything
    assert reader.match_count(Filters("nightly", judge="flaky")) == 0
    assert reader.match_count(Filters("nightly", until=date(2001, 1, 1))) == 0
    pairs = reader.head_to_head(Filters("duel-cup"))
    assert set(pairs["a"]) == {"alpha", "beta"}
    assert (pairs["wins"] + pairs["draws"] + pairs["losses"] == pairs["comparisons"]).all()
    ab = pairs.set_index(["a", "b"])
    assert ab.loc[("alpha", "beta"), "wins"] == ab.loc[("beta", "alpha"), "losses"]
    assert reader.head_to_head(Filters("nightly")).empty  # eval mode: no pairs in a match
    mark = reader.watermark()
    store = Store.open(arena_db)
    try:
        from arena.storage.snapshots import save_rating_snapshot
        save_rating_snapshot(store.engine, None, "test", {"rows": []})
    finally:
        store.close()
    assert reader.watermark() != mark


def test_snapshot_board_rank_change_and_probabilities(arena_db: str) -> None:
    reader = ReadModel.open(arena_db)
    first, second = sorted(int(i) for i in reader.snapshots("nightly")["id"])[:2]
    board = derived.snapshot_board(reader, second)
    assert list(board["rank"]) == list(range(1, len(board) + 1))
    before = derived.snapshot_board(reader, first).set_index("participant")["rank"]
    for row in board.itertuples():
        assert row.rank_change == before[row.participant] - row.rank
    probs = derived.rank_probabilities(reader, second)
    assert set(probs["participant"]) == set(board["participant"])
    totals = probs.groupby("participant")["p"].sum()
    assert ((totals - 1.0).abs() < 1e-9).all()
    payload = reader.snapshot_payload(second)
    assert json.dumps(payload)  # plain JSON, as stored
