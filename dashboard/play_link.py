"""Where the dashboard's Play entry points: the play page that `arena dashboard --play`
started beside it (`XENT_ARENA_PLAY_URL`, written `:PORT`: the host the reader reached the
dashboard by, the play server's port) or an address the organiser gave."""

from __future__ import annotations

from urllib.parse import urlsplit

PLAY_URL_ENV = "XENT_ARENA_PLAY_URL"


def play_url(value: str | None, host_header: str | None) -> str | None:
    """The play page's address for a reader who sent `host_header`, or None (no play page
    known, or a value that is no address)."""
    value = (value or "").strip()
    if value.startswith(":") and value[1:].isdigit():
        try:
            name = urlsplit(f"http://{host_header or ''}").hostname
        except ValueError:
            name = None
        if not name:
            name = "127.0.0.1"
        shown = f"[{name}]" if ":" in name else name
        return f"http://{shown}{value}/"
    if value.startswith(("http://", "https://")) and not any(c.isspace() for c in value):
        return value
    return None
