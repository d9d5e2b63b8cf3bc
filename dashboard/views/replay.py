"""Replay: one match round by round, as the referee saw it or as one seat saw it (exactly
its information set: `arena.dashboard.seatview`), the judged texts as shaded reading
(`arena.dashboard.reading`) and a diff against a comparable match.

Deep link: ``?match=<short key>&seat=<role>&round=<k>`` (the key `arena matches` and the
export show; a numeric id from older links still opens); ``?key=<plan key>`` follows a match
still being played (from the Live page) and opens its replay once it is stored."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from arena.dashboard import charts, reading, tables
from arena.dashboard import transcript_frames as tf
from arena.dashboard.cache import fresh, query
from arena.dashboard.context import current
from arena.dashboard.filters import small_int
from arena.dashboard.seatview import as_received, known_scores, leaks, seat_events, seen_texts
from arena.dashboard.ui import page_param, plain, set_page_param
from arena.events import SeatRewardTerm
from arena.specs import shorten
from arena.storage.read_model import ReadModel

EVERYTHING = "(everything: referee view)"
ctx = current()
st.title("Replay")

FOLLOW_S = 2.0
Rewards = Sequence[tuple[str, float, bool, Sequence[SeatRewardTerm]]]


def follow_live(key: str) -> None:
    """A match still being played: its progress and its moves so far (the latest events its
    live row holds, refreshed every few seconds), until it is stored; then its replay. Only
    the referee view: a seat's view needs the stored transcript."""

    @st.fragment(run_every=FOLLOW_S)
    def poll() -> None:
        stored = fresh(ReadModel.match_id_for_key, key)
        if stored is not None:
            set_page_param("key", None)
            set_page_param("match", key)
            st.rerun(scope="app")
        row = fresh(ReadModel.live_match, key)
        if len(row):
            st.info("This match is being played; its replay opens here as soon as it is "
                    "stored (checked every few seconds). Until then its moves appear below "
                    "as they are played, as the referee sees them (referee view only: the "
                    "seats' views open with the stored match).")
            tables.show(row.drop(columns=["key"]))
            events = fresh(ReadModel.live_events, key)
            if events:
                st.markdown("**Moves so far**")
                tables.show(tf.moves(events))
                st.markdown("**Latest events** (referee view)")
                tables.show(tf.event_table(events))
            else:
                st.caption("No move played yet.")
        else:
            st.warning("No match with this key is stored or being played: it may have "
                       "failed, or its run stopped. Pick a match on the Matches page.")

    poll()
    st.stop()


def match_labels(matches: pd.DataFrame) -> dict[str, str]:
    """Each match in the selector: key, game, who sat where, rounds. No scores: a seat's
    view must not show the others' exact scores."""
    seats = query(ReadModel.seat_rows, [int(m) for m in matches["match"]]) if len(matches) else None
    who: dict[int, str] = {}
    if seats is not None and len(seats):
        for match_id, group in seats.groupby("match", sort=False):
            who[int(str(match_id))] = "; ".join(
                f"{r.role}: {r.participant}{'' if r.main else ' (npc)'}"
                for r in group.itertuples())
    return {str(r.key): f"{r.key} · {r.game} · {who.get(int(r.match), '')} · "
                        f"{r.rounds} round(s)" for r in matches.itertuples()}


def show_rewards(rewards: Rewards, seat: str | None, note: str = "") -> None:
    """Each reward's total, then its judged texts as reading: one shared colour scale (the
    legend), hidden terms as totals only."""
    clip = reading.clip_bits(t.coefficient * b for *_, terms in rewards for t in terms
                             for b in t.bits)
    who = seat or "the rewarded seat"
    if any(t.tokens for *_, terms in rewards for t in terms):
        st.html(reading.legend_html(clip, who))
    for player, total, mirrored, terms in rewards:
        st.text(f"{player}: {total:+.3f} bits{' (zero-sum mirror)' if mirrored else ''}{note}")
        for term in terms:
            if term.hidden or not term.tokens:
                st.text(f"  {term.source} = {term.total:+.3f}"
                        + ("  (scores text this seat never saw: its total only, rounded, no "
                           "per-token values)" if term.hidden else ""))
                continue
            label = f"{term.source} = {term.total:+.3f} bits (coefficient {term.coefficient:+d})"
            st.html(reading.reading_html(label, term.tokens, term.bits, term.coefficient, clip,
                                         player))


followed = page_param("key")
if followed and page_param("match") is None:
    if fresh(ReadModel.match_id_for_key, followed) is None:
        follow_live(followed)
    set_page_param("key", None)
    set_page_param("match", followed)

recent = query(ReadModel.matches, ctx.filters, limit=200)
linked = page_param("match")
if linked is None:
    if not len(recent):
        st.info("No match to replay for these filters. Widen them in the sidebar.")
        st.stop()
    linked = str(recent["key"].iloc[0])
match_id = query(ReadModel.match_ref, linked)
detail = query(ReadModel.match_detail, match_id) if match_id is not None else None
if detail is None:
    st.error(
        f"There is no match with key {plain(repr(shorten(linked, 60)))} in this database. "
        f"Pick one on the Matches page (recent keys: "
        f"{', '.join(recent['key'].head(5)) or 'none'})."
    )
    st.stop()
labels = match_labels(recent)
if detail.key not in labels:
    labels = {detail.key: f"{detail.key} · {detail.game} · {detail.rounds} round(s)", **labels}
options = list(labels)
picked = st.selectbox("Match", options, index=options.index(detail.key),
                      key=f"r_match_{detail.key}", format_func=labels.__getitem__)
if picked != detail.key:
    set_page_param("match", picked)
    set_page_param("seat", None)
    st.rerun()
set_page_param("match", detail.key)
# A linked match sets the tournament filter (app.py); one changed since is said plainly.
outside = []
if detail.tournament != ctx.filters.tournament:
    outside.append(f"tournament {detail.tournament!r} (filter: {ctx.filters.tournament!r})")
if ctx.filters.games and detail.game not in ctx.filters.games:
    outside.append(f"game {detail.game!r} (filter: {', '.join(ctx.filters.games)})")
if outside:
    st.warning(plain(f"Match {detail.key} is outside the sidebar's filters: its "
                     f"{' and its '.join(outside)}. The other pages show the filtered data."))

roles = list(detail.seats["role"])
seat_param = page_param("seat")
seat_options = [EVERYTHING, *roles]
if seat_param is not None and seat_param not in roles:
    st.warning(f"Seat {plain(repr(seat_param))} is not in this match; seats: "
               f"{plain(', '.join(roles))}. Showing the referee view.")
    seat_param = None
seat_choice = st.selectbox(
    "View as", seat_options, index=seat_options.index(seat_param) if seat_param else 0,
    key=f"r_seat_{detail.key}_{seat_param}",
    help="As a seat: exactly the information set that seat received (the texts it was "
         "shown, its own moves, its rewards as it got them); nothing else.",
)
seat = None if seat_choice == EVERYTHING else str(seat_choice)
set_page_param("seat", seat)

info = pd.DataFrame({
    "field": ["match", "tournament", "game", "version", "dialect", "mode", "main role", "map",
              "map seed", "play seed", "rounds", "status", "judge", "judge model", "finished"],
    "value": [detail.key, detail.tournament, detail.game, detail.game_version, detail.dialect,
              detail.mode, detail.main_role or "", str(detail.map_index), str(detail.map_seed),
              str(detail.play_seed), str(detail.rounds), detail.status, detail.judge,
              detail.judge_model, f"{detail.finished_at:%Y-%m-%d %H:%M:%S}"],
})
seats = detail.seats.drop(columns=["match", "round_scores_json"])
if seat is not None:  # other seats' exact scores and specs (a scripted spec lists its
    seats = seats.drop(columns=["best"])  # moves) are not in this seat's information set
    seats["spec"] = [spec if role == seat else "" for role, spec in zip(
        seats["role"], seats["spec"], strict=True)]
top_left, top_right = st.columns([1, 2])
top_left.dataframe(info, hide_index=True, width="stretch")
top_right.dataframe(seats, hide_index=True, width="stretch")
if detail.error:
    st.text("Match error: " + detail.error)

events = detail.events
scores = tf.round_scores(events) if seat is None else known_scores(events, seat)
if len(scores):
    st.altair_chart(charts.round_scores(scores), width="stretch")
    if seat is not None:
        st.caption("This seat's own score per round, as it knows it (the sum of its rewards "
                   "as it received them).")

if seat is not None:
    found = leaks(events, seat)
    if found:
        st.error(f"{len(found)} hidden-register text(s) appear in what this seat was shown:")
        tables.show(pd.DataFrame([vars(x) for x in found]), width="content")
    else:
        st.success("No hidden-register text appears in what this seat was shown. This page "
                   "shows only this seat's information set.")

rounds = sorted({e.round for e in events if e.round > 0}) or [1]
round_param = page_param("round")
linked_round = small_int(round_param)
start = linked_round if linked_round in rounds else rounds[0]
current_round = (st.select_slider("Round", rounds, value=start, key=f"r_round_{detail.key}")
                 if len(rounds) > 1 else rounds[0])
set_page_param("round", str(current_round) if len(rounds) > 1 else None)

tab_round, tab_moves, tab_maps, tab_diff = st.tabs(
    ["This round", "All moves", "Map and code", "Diff"])

with tab_round:
    in_round = [e for e in events if e.round in (0, current_round)]
    steps = in_round if seat is None else seat_events(in_round, seat)
    table = tf.event_table(in_round, seat)
    tables.show(table)
    if seat is not None:
        st.caption("Only the events this seat received, as it received them.")
        st.markdown("**What this seat was shown**")
        for rnd, where, text in seen_texts(in_round, seat):
            st.text(f"[round {rnd}] {where}: {text}")
    counts = table["type"].value_counts()
    st.caption(f"{int(counts.get('failed_ensure', 0))} failed ensure(s), "
               f"{int(counts.get('forfeit', 0))} forfeit(s) this round.")
    if steps:
        step = st.slider("Step", 0, len(steps) - 1, 0,
                         key=f"r_step_{detail.key}_{current_round}_{seat}")
        event = steps[step]
        code_col, event_col = st.columns([3, 2])
        code_col.code(tf.marked_code(detail.code, event.line), language=None)
        event_col.json(event.model_dump() if seat is None else as_received(event, seat),
                       expanded=1)
    st.markdown("**Rewards, read token by token**")
    show_rewards(tf.rewards(events, current_round, seat), seat)

with tab_moves:
    tables.show(tf.moves(events, seat))
    if seat is not None:
        st.caption("This seat's own moves; other seats' moves reach it only as reveals "
                   "(This round).")

with tab_maps:
    if seat is None:
        for site, text in detail.map_texts.items():
            st.text(f"story at {site}:")
            st.text(text)
    else:
        st.info("The map's texts are not shown as a seat: what this seat was shown of them "
                "is under This round. Choose the referee view to read them.")
    st.code(tf.marked_code(detail.code, 0), language=None)

with tab_diff:
    others = query(ReadModel.comparable_matches, detail.id)
    if seat is not None:
        st.info("The diff lines up two matches' full transcripts: choose the referee view.")
    elif not len(others):
        st.info("No other done match of this game on this map, role and round count.")
    else:
        diff_labels = {int(r.match): f"{r.key}: {r.participant} ({r.best:.3f})"
                       for r in others.itertuples()}
        other_id = st.selectbox("Compare with", list(diff_labels),
                                format_func=diff_labels.__getitem__, key=f"r_diff_{detail.key}")
        other = query(ReadModel.match_detail, int(other_id))
        mine = detail.main_role or roles[0]
        if other is not None:
            names = (detail.key, other.key)
            tables.show(tf.aligned_moves(events, other.events, mine, mine, names))
            st.caption(f"Round {current_round}: the first term of each reward, on one scale.")
            firsts = [(f"{name} · {player}", total, mirrored, terms[:1])
                      for name, match_events in ((names[0], events), (names[1], other.events))
                      for player, total, mirrored, terms in tf.rewards(match_events,
                                                                       current_round)]
            show_rewards(firsts, None)
