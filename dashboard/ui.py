"""Small rendering helpers shared by the pages. Player and plugin text (moves, names, game
code) goes only through `st.text`, `st.code` and dataframes: never markdown, never HTML."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from arena.dashboard.context import current

_MARKDOWN_SPECIAL = set("\\`*_{}[]()#+-.!|<>~$:=\"'")

PAGE_FAILED = "This page could not be shown"  # the app's net around each page


def plain(text: object) -> str:
    """`text` escaped for the markdown that `st.info`, `st.warning` and `st.error` render:
    every markdown and HTML character gets a backslash, so it shows literally."""
    return "".join("\\" + c if c in _MARKDOWN_SPECIAL else c for c in str(text))


def need_rows(frame: pd.DataFrame, what: str) -> bool:
    """False, with an info line naming the active filters, when `frame` is empty."""
    if len(frame):
        return True
    f = current().filters
    parts = [f"tournament {f.tournament}"]
    if f.games:
        parts.append("games " + ", ".join(f.games))
    if f.judge:
        parts.append(f"judge {f.judge}")
    if f.since or f.until:
        parts.append(f"dates {f.since or '…'} to {f.until or '…'}")
    st.info(f"No {what} for {plain('; '.join(parts))}. Widen the filters in the sidebar.")
    return False


def page_param(name: str) -> str | None:
    """A page's own query parameter (e.g. ``match``), or None."""
    value = st.query_params.get(name)
    return value or None


def set_page_param(name: str, value: str | None) -> None:
    if value is None:
        if name in st.query_params:
            del st.query_params[name]
    elif st.query_params.get(name) != value:
        st.query_params[name] = value


def link_params(**extra: str) -> dict[str, str | list[str]]:
    """Query parameters of the global filters plus `extra` (for links between pages)."""
    from arena.dashboard.filters import params_from_filters

    return {**params_from_filters(current().filters), **extra}


def replay_link(match: int | str, seat: str | None = None) -> str:
    """A relative link to the replay of `match` (its short key, or its id) with the current
    filters (shareable)."""
    from urllib.parse import urlencode

    extra = {"match": str(match), **({"seat": seat} if seat else {})}
    return "replay?" + urlencode(link_params(**extra), doseq=True)


def participant_link(name: str) -> str:
    """A relative link to `name`'s Participant page with the current filters."""
    from urllib.parse import urlencode

    return "participant?" + urlencode(link_params(name=name), doseq=True)
