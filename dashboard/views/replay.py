"""Replay: one match round by round, as the referee saw it or as one seat saw it, with
per-token cross-entropy heat maps of every reward and a diff against a comparable match.

Deep link: ``?match=<id>&seat=<role>&round=<k>``; ``?key=<plan key>`` follows a match still
being played (from the Live page) and opens its replay once it is stored."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import charts
from dashboard import transcript_frames as tf
from dashboard.cache import fresh, query
from dashboard.context import current
from dashboard.seatview import leaks, seen_texts
from dashboard.ui import page_param, plain, set_page_param

EVERYTHING = "(everything: referee view)"
ctx = current()
st.title("Replay")

FOLLOW_S = 2.0


def follow_live(key: str) -> None:
    """A match still being played: its progress, until it is stored; then its replay."""

    @st.fragment(run_every=FOLLOW_S)
    def poll() -> None:
        stored = fresh("match_id_for_key", key)
        if stored is not None:
            set_page_param("key", None)
            set_page_param("match", str(stored))
            st.rerun(scope="app")
        row = fresh("live_match", key)
        if len(row):
            st.info("This match is being played; its replay opens here as soon as it is "
                    "stored (checked every few seconds).")
            st.dataframe(row.drop(columns=["key"]), hide_index=True, width="stretch")
        else:
            st.warning("No match with this key is stored or being played: it may have "
                       "failed, or its run stopped. Pick a match on the Matches page.")

    poll()
    st.stop()


followed = page_param("key")
if followed and page_param("match") is None:
    stored_id = fresh("match_id_for_key", followed)
    if stored_id is None:
        follow_live(followed)
    set_page_param("key", None)
    set_page_param("match", str(stored_id))

recent = query("matches", ctx.filters, limit=200)
linked = page_param("match")
choices = [int(m) for m in recent["match"]]
if linked is None:
    if not choices:
        st.info("No match to replay for these filters. Widen them in the sidebar.")
        st.stop()
    linked = str(choices[0])
try:
    match_id = int(linked)
except ValueError:
    match_id = -1
detail = query("match_detail", match_id) if match_id >= 0 else None
if detail is None:
    st.error(
        f"There is no match with id {plain(repr(linked))} in this database. Pick one on the "
        f"Matches page (recent ids: {', '.join(map(str, choices[:10])) or 'none'})."
    )
    st.stop()
options = sorted(set(choices) | {detail.id}, reverse=True)
picked = st.selectbox("Match", options, index=options.index(detail.id), key=f"r_match_{detail.id}",
                      format_func=lambda i: f"#{i}")
if picked != detail.id:
    set_page_param("match", str(picked))
    set_page_param("seat", None)
    st.rerun()
set_page_param("match", str(detail.id))
# A linked match sets the tournament filter (app.py); one changed since is said plainly.
outside = []
if detail.tournament != ctx.filters.tournament:
    outside.append(f"tournament {detail.tournament!r} (filter: {ctx.filters.tournament!r})")
if ctx.filters.games and detail.game not in ctx.filters.games:
    outside.append(f"game {detail.game!r} (filter: {', '.join(ctx.filters.games)})")
if outside:
    st.warning(plain(f"Match #{detail.id} is outside the sidebar's filters: its "
                     f"{' and its '.join(outside)}. The other pages show the filtered data."))

info = pd.DataFrame({
    "field": ["tournament", "game", "version", "dialect", "mode", "main role", "map",
              "map seed", "play seed", "rounds", "status", "judge", "judge model", "finished"],
    "value": [detail.tournament, detail.game, detail.game_version, detail.dialect, detail.mode,
              detail.main_role or "", str(detail.map_index), str(detail.map_seed),
              str(detail.play_seed), str(detail.rounds), detail.status, detail.judge,
              detail.judge_model, f"{detail.finished_at:%Y-%m-%d %H:%M:%S}"],
})
top_left, top_right = st.columns([1, 2])
top_left.dataframe(info, hide_index=True, width="stretch")
top_right.dataframe(detail.seats.drop(columns=["match", "round_scores_json"]), hide_index=True,
                    width="stretch")
if detail.error:
    st.text("Match error: " + detail.error)

roles = list(detail.seats["role"])
seat_param = page_param("seat")
seat_options = [EVERYTHING, *roles]
if seat_param is not None and seat_param not in roles:
    st.warning(f"Seat {plain(repr(seat_param))} is not in this match; seats: "
               f"{plain(', '.join(roles))}. Showing the referee view.")
    seat_param = None
seat_choice = st.selectbox(
    "View as", seat_options, index=seat_options.index(seat_param) if seat_param else 0,
    key=f"r_seat_{detail.id}_{seat_param}",
    help="As a seat: exactly the information set that seat received; the rest is greyed out.",
)
seat = None if seat_choice == EVERYTHING else str(seat_choice)
set_page_param("seat", seat)

events = detail.events
scores = tf.round_scores(events)
if len(scores):
    st.altair_chart(charts.round_scores(scores), width="stretch")

if seat is not None:
    found = leaks(events, seat)
    if found:
        st.error(f"{len(found)} hidden-register text(s) appear in what this seat saw:")
        st.dataframe(pd.DataFrame([vars(x) for x in found]), hide_index=True)
    else:
        st.success("No hidden-register text appears in what this seat saw.")

rounds = sorted({e.round for e in events if e.round > 0}) or [1]
round_param = page_param("round")
start = int(round_param) if round_param and round_param.isdigit() and int(round_param) in rounds \
    else rounds[0]
current_round = (st.select_slider("Round", rounds, value=start, key=f"r_round_{detail.id}")
                 if len(rounds) > 1 else rounds[0])
set_page_param("round", str(current_round) if len(rounds) > 1 else None)

tab_round, tab_moves, tab_maps, tab_diff = st.tabs(
    ["This round", "All moves", "Map and code", "Diff"])

with tab_round:
    in_round = [e for e in events if e.round in (0, current_round)]
    table = tf.event_table(in_round, seat)
    if seat is not None:
        greyed = table.style.apply(
            lambda row: ["" if row["seen"] else "color: #b0b0b0"] * len(row), axis=1)
        st.dataframe(greyed, hide_index=True, width="stretch")
        st.caption("Grey rows: events this seat did not receive.")
        st.markdown("**What this seat was shown**")
        for rnd, where, text in seen_texts(in_round, seat):
            st.text(f"[round {rnd}] {where}: {text}")
    else:
        st.dataframe(table, hide_index=True, width="stretch")
    counts = table["type"].value_counts()
    st.caption(f"{int(counts.get('failed_ensure', 0))} failed ensure(s), "
               f"{int(counts.get('forfeit', 0))} forfeit(s) this round.")
    if len(in_round):
        step = st.slider("Step", 0, len(in_round) - 1, 0, key=f"r_step_{detail.id}_{current_round}")
        event = in_round[step]
        code_col, event_col = st.columns([3, 2])
        code_col.code(tf.marked_code(detail.code, event.line), language=None)
        event_col.json(event.model_dump(), expanded=1)
    st.markdown("**Rewards: bits per scored token** (darker = more surprising; hover for bits)")
    for player, total, mirrored, terms in tf.rewards(events, current_round):
        visible = seat is None or player == seat
        st.text(f"{player}: {total:+.3f} bits{' (zero-sum mirror)' if mirrored else ''}"
                f"{'' if visible else ' (not seen by this seat)'}")
        if not visible:
            continue
        for term in terms:
            st.text(f"  {term.source} = {term.total:+.3f} (coefficient {term.coefficient:+d})")
            if term.tokens:
                st.altair_chart(
                    charts.token_heatmap(charts.token_frame(term.tokens, term.bits, term.source)),
                    width="content")

with tab_moves:
    st.dataframe(tf.moves(events), hide_index=True, width="stretch")

with tab_maps:
    for site, text in detail.map_texts.items():
        st.text(f"story at {site}:")
        st.text(text)
    st.code(tf.marked_code(detail.code, 0), language=None)

with tab_diff:
    others = query("comparable_matches", detail.id)
    if not len(others):
        st.info("No other done match of this game on this map, role and round count.")
    else:
        labels = {int(r.match): f"#{r.match}: {r.participant} ({r.best:.3f})"
                  for r in others.itertuples()}
        other_id = st.selectbox("Compare with", list(labels), format_func=labels.__getitem__,
                                key=f"r_diff_{detail.id}")
        other = query("match_detail", int(other_id))
        mine = detail.main_role or roles[0]
        if other is not None:
            names = (f"#{detail.id}", f"#{other.id}")
            st.dataframe(tf.aligned_moves(events, other.events, mine, mine, names),
                         hide_index=True, width="stretch")
            frames = []
            for name, match_events in ((names[0], events), (names[1], other.events)):
                for *_, terms in tf.rewards(match_events, current_round):
                    for term in terms[:1]:
                        frames.append(charts.token_frame(term.tokens, term.bits,
                                                         f"{name} {term.source}"))
            if frames:
                st.altair_chart(charts.token_heatmap(pd.concat(frames), facet=True),
                                width="content")
            st.caption(f"Round {current_round}: the first term of each reward, tokens aligned "
                       "by position.")
