"""Entry script of the Xent Arena dashboard (see dashboard/README.md):

    streamlit run dashboard/app.py -- --db URL      (or XENT_ARENA_DB=URL)

It opens the database read-only, refuses with one clear sentence a database it cannot show,
puts the global filters in the sidebar and the URL, and runs the page picked in the
navigation. Pages read everything through `arena.dashboard.context.current()`.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

_ROOT = Path(__file__).resolve().parent.parent
# `streamlit run` puts dashboard/ on the path; a source checkout also needs the repository
# (where arena/ is) — an installed arena is importable already.
if (_ROOT / "arena" / "__init__.py").exists() and str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

import streamlit as st  # noqa: E402

from arena.dashboard.cache import query_at  # noqa: E402
from arena.dashboard.context import Context, reader_for, set_current  # noqa: E402
from arena.dashboard.filters import (  # noqa: E402
    GLOBAL_PARAMS,
    P_GAME,
    P_JUDGE,
    P_SINCE,
    P_SNAPSHOT,
    P_TOURNAMENT,
    P_UNTIL,
    Filters,
    filters_from_params,
    params_from_filters,
)
from arena.dashboard.following import page_ran, watch  # noqa: E402
from arena.dashboard.play_link import PLAY_URL_ENV, play_url  # noqa: E402
from arena.dashboard.ui import PAGE_FAILED, plain  # noqa: E402
from arena.errors import ArenaError  # noqa: E402
from arena.storage import default_db_url, shown_url  # noqa: E402
from arena.storage.door import operation  # noqa: E402
from arena.storage.read_model import ReadModel  # noqa: E402

PAGES = (
    ("views/live.py", "Live", "live", ":material/monitor_heart:"),
    ("views/leaderboard.py", "Leaderboard", "leaderboard", ":material/leaderboard:"),
    ("views/participant.py", "Participant", "participant", ":material/person:"),
    ("views/pairwise.py", "Pairwise", "pairwise", ":material/grid_on:"),
    ("views/xent_measure.py", "Xent measure", "xent-measure", ":material/bar_chart:"),
    ("views/playability.py", "Playability", "playability", ":material/show_chart:"),
    ("views/ratings_over_time.py", "Ratings over time", "ratings-over-time",
     ":material/timeline:"),
    ("views/matches.py", "Matches", "matches", ":material/table_rows:"),
    ("views/replay.py", "Replay", "replay", ":material/replay:"),
    ("views/tournaments.py", "Tournaments and schedules", "tournaments", ":material/event:"),
    ("views/games.py", "Games", "games", ":material/extension:"),
    ("views/transfer.py", "Transfer", "transfer", ":material/swap_horiz:"),
    ("views/scopes.py", "Scopes", "scopes", ":material/account_tree:"),
)
GAME_SPACE_ONLY = PAGES[-2:]  # what a database without tournaments can still show
ALL_JUDGES = "(all judges)"
_SYNCED = "_filters_in_url"  # the global parameters as the app last wrote them
_WANTED = "_tournament_linked"  # the tournament a link asked for, stored or not yet
LATEST = "latest (follows new matches)"
_FOLLOWED = "_filters_follow_match"  # the ?match= whose tournament the filter last took
P_MATCH = "match"


log = logging.getLogger(__name__)


P = ParamSpec("P")
R = TypeVar("R")


def database_url(argv: list[str]) -> str:
    """`--db URL` from the script arguments, else $XENT_ARENA_DB, else the default database."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--db", default=None)
    known, _ = parser.parse_known_args(argv)
    return str(known.db) if known.db else default_db_url()


def _stop_with(message: str) -> None:
    st.title("Xent Arena")
    st.error(message)
    st.stop()


def _widgets_from_link() -> None:
    """The sidebar widgets take the values the link gives: on a session's first run, and
    whenever a parameter differs from what the app last wrote into the address (a link
    followed inside the session, e.g. a run's announcement). A parameter the link leaves
    out changes nothing: only the reader changes a widget, or a link."""
    params = st.query_params
    synced: dict[str, list[str]] = st.session_state.get(_SYNCED, {})

    def new(key: str) -> bool:
        return key in params and params.get_all(key) != synced.get(key)

    linked = filters_from_params(
        {k: params[k] for k in GLOBAL_PARAMS if k in params and k != P_GAME},
        params.get_all(P_GAME),
    )
    if new(P_TOURNAMENT) and linked.tournament:
        if linked.tournament != st.session_state.get("f_tournament"):
            st.session_state.pop("f_snapshot", None)  # snapshots belong to a tournament
        st.session_state["f_tournament"] = linked.tournament
        st.session_state[_WANTED] = linked.tournament  # shown even before its first match
    if new(P_SNAPSHOT) and linked.snapshot is not None:
        st.session_state["f_snapshot"] = linked.snapshot
    if new(P_GAME) and linked.games:
        st.session_state["f_games"] = list(linked.games)
    if new(P_JUDGE) and linked.judge:
        st.session_state["f_judge"] = linked.judge
    if (new(P_SINCE) or new(P_UNTIL)) and (linked.since or linked.until):
        st.session_state["f_dates"] = tuple(d for d in (linked.since, linked.until) if d)


def _new_tournament() -> None:
    """The reader picked another tournament: its snapshots are not the last one's."""
    st.session_state.pop("f_snapshot", None)


def _follow_opened_match(url: str, watermark: tuple[int, ...]) -> None:
    """A match opened by link (``?match=KEY``) sets the tournament filter to its own, once per
    match opened, so the sidebar never names another tournament than the replay shows. A
    filter changed afterwards is kept: the replay then says the match lies outside it."""
    linked = st.query_params.get(P_MATCH)
    if linked is None or linked == st.session_state.get(_FOLLOWED):
        return
    st.session_state[_FOLLOWED] = linked
    match_id = query_at(url, watermark, ReadModel.match_ref, linked)  # a short key (or an old id)
    detail = (None if match_id is None
              else query_at(url, watermark, ReadModel.match_detail, match_id))
    if detail is not None and detail.tournament != st.session_state.get("f_tournament"):
        st.session_state["f_tournament"] = detail.tournament
        st.session_state.pop("f_snapshot", None)  # snapshots belong to a tournament


def _keep_valid(key: str, options: Sequence[object]) -> None:
    """Drop a remembered (or linked) widget value that is no longer an option."""
    value = st.session_state.get(key)
    if isinstance(value, list):
        st.session_state[key] = [v for v in value if v in options]
    elif value is not None and value not in options:
        del st.session_state[key]


def sidebar_filters(url: str, watermark: tuple[int, ...]) -> Filters:
    def query(read: operation[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        return query_at(url, watermark, read, *args, **kwargs)

    _widgets_from_link()
    _follow_opened_match(url, watermark)
    bar = st.sidebar
    names = list(query(ReadModel.tournaments)["name"])
    held = st.session_state.get("f_tournament")
    pending = held if held not in names and held == st.session_state.get(_WANTED) else None
    options = names + ([pending] if pending else [])
    _keep_valid("f_tournament", options)
    tournament = bar.selectbox("Tournament", options, key="f_tournament",
                               on_change=_new_tournament)
    if pending is not None and tournament == pending:
        bar.caption(f"No match of {plain(pending)} is stored yet: every page shows it as soon "
                    "as one is." + (f" Stored: {plain(', '.join(names))}." if names else ""))
    snaps = query(ReadModel.snapshots, tournament)
    labels = {int(r.number): f"#{r.number} · {r.created_at:%Y-%m-%d %H:%M} · {r.matches} matches"
              for r in snaps.itertuples()}
    numbers: list[int | None] = [None, *labels]
    _keep_valid("f_snapshot", numbers)
    snapshot = bar.selectbox(
        "Rating snapshot", numbers, key="f_snapshot",
        format_func=lambda n: LATEST if n is None else labels.get(n, f"#{n}"),
        help="The ratings every page shows: the latest (it follows new matches and runs), "
             "or a stored snapshot, numbered within the tournament (newest first).")
    games = query(ReadModel.game_names, tournament)
    _keep_valid("f_games", games)
    chosen = bar.multiselect("Games", games, key="f_games", placeholder="all games")
    judges = [ALL_JUDGES, *query(ReadModel.judge_specs, tournament)]
    _keep_valid("f_judge", judges)
    judge = bar.selectbox("Judge", judges, key="f_judge")
    window = bar.date_input("Finished between", value=st.session_state.get("f_dates", ()),
                            key="f_dates", help="UTC dates, inclusive; empty: all dates.")
    days = [d for d in (window if isinstance(window, tuple | list) else [window])
            if isinstance(d, date)]
    return Filters(
        tournament=tournament,
        snapshot=snapshot,
        games=tuple(sorted(chosen)),
        judge=None if judge in (None, ALL_JUDGES) else str(judge),
        since=days[0] if days else None,
        until=days[1] if len(days) > 1 else None,
    )


def _sync_url(filters: Filters) -> None:
    """The address says what the sidebar shows (no snapshot while following the latest)."""
    wanted = params_from_filters(filters)
    for key in GLOBAL_PARAMS:
        value = wanted.get(key)
        if value is None:
            if key in st.query_params:
                del st.query_params[key]
        elif (st.query_params.get_all(key) if isinstance(value, list)
              else st.query_params.get(key)) != value:
            st.query_params[key] = value
    st.session_state[_SYNCED] = {key: st.query_params.get_all(key) for key in GLOBAL_PARAMS
                                 if key in st.query_params}


def main() -> None:
    began = time.monotonic()
    try:
        _main()
    finally:  # also when a page stops or reruns (Streamlit's control flow is exceptions)
        page_ran(began)


def _main() -> None:
    st.set_page_config(page_title="Xent Arena", page_icon=":material/insights:", layout="wide")
    url = database_url(sys.argv[1:])
    try:
        reader = reader_for(url)
    except ArenaError as error:  # StorageError from open_read_only, with its fix
        reader_for.clear()
        _stop_with(str(error))
        return
    state = reader.state(shown_url(url))
    if not state.ok:
        _stop_with(state.message)
    play = play_url(os.environ.get(PLAY_URL_ENV), st.context.headers.get("Host"))
    if play is not None:  # the play page beside the dashboard (`arena dashboard --play`)
        st.sidebar.page_link(play, label="Play", icon=":material/sports_esports:",
                             help="Play a seat yourself and be rated beside the models.")
    watermark = reader.watermark()
    filters = sidebar_filters(url, watermark)
    shown: Sequence[tuple[str, str, str, str]] = PAGES
    if filters.tournament is None:
        if not len(reader.transfer_setting_table()) and not len(reader.scope_list()):
            _stop_with(f"The database {shown_url(url)} holds no tournament yet. Run one into it "
                       "(`arena run FILE --db URL`, or `arena demo`), then reload.")
        shown = GAME_SPACE_ONLY  # transfer values or scopes, but no tournament
    set_current(Context(url, filters, watermark))
    _sync_url(filters)
    st.sidebar.text("Read-only view of " + shown_url(url))
    pages = {slug: st.Page(path, title=title, url_path=slug, icon=icon)
             for path, title, slug, icon in shown}
    landing = _landing_slug(reader, [slug for _, _, slug, _ in shown])
    navigation = st.navigation([st.Page(_open_page(pages[landing]), title="Xent Arena",
                                        url_path="home", default=True, visibility="hidden"),
                                *pages.values()])
    if filters.tournament is not None:
        watch(pages.get(navigation.url_path, pages[landing]), navigation.url_path)
    try:
        navigation.run()
    except Exception as error:  # Streamlit's stop/rerun are BaseExceptions and pass through
        # A page's own failure (an odd link, a database of unexpected shape): one sentence
        # for the reader; the traceback, with the server's paths, only on the console.
        log.exception("dashboard page %s failed", navigation.url_path)
        st.error(f"{PAGE_FAILED} ({type(error).__name__}). The details are in the console "
                 "that runs `arena dashboard`; open another page or change the filters.")


def _landing_slug(reader: ReadModel, slugs: list[str]) -> str:
    """The page the bare address opens: Live while a tournament runs (read now, not
    cached: a run ends without new data), else the Leaderboard (or the first page a
    database without tournaments shows)."""
    if "live" in slugs and (reader.live_progress()["status"] == "running").any():
        return "live"
    return "leaderboard" if "leaderboard" in slugs else slugs[0]


def _open_page(page: Any) -> Any:
    """The hidden default page at the bare address: it opens `page` with the link's query
    parameters. Every visible page keeps its own path (`/live`, `/leaderboard`): Streamlit
    serves its default page at the root only, so a visible default page had no path."""

    def landing() -> None:
        st.switch_page(page, query_params={k: st.query_params.get_all(k)
                                           for k in st.query_params})

    return landing


main()
