"""Which `Host` and `Origin` headers the play server answers (DNS rebinding, cross-site use).

A web page elsewhere can point its own name at 127.0.0.1 (DNS rebinding): the browser then
sends that name as `Host` and a matching `Origin`, so comparing the two proves nothing.
The server answers only requests that name it: the address it is bound to, `localhost`,
the loopback addresses, and the names the organiser lists (`--allowed-host`). Any IP
address is also accepted when it is bound to all interfaces (0.0.0.0 or ::): an address
typed in the browser is never an attacker's name, so a page from elsewhere cannot send it
with a matching origin. A browser request must also come from the page's own origin.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
MAX_HOST_CHARS = 255


def host_name(header: str | None) -> str | None:
    """The name in a `Host` header (lower case, brackets of an IPv6 address removed), or
    None for a header that is missing or not of the form name[:port]."""
    if not header or len(header) > MAX_HOST_CHARS or not header.isascii():
        return None
    if header.startswith("["):  # [v6]:port
        name, bracket, rest = header[1:].partition("]")
        if not bracket or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
    else:
        name, colon, port = header.partition(":")
        if colon and not port.isdigit():
            return None
    name = name.lower()
    if not name or any(c.isspace() or c in "/\\@?#" for c in name):
        return None
    return name


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _wildcard(host: str) -> bool:
    return _is_address(host) and ipaddress.ip_address(host).is_unspecified


@dataclass(frozen=True)
class HostRule:
    """The names this server answers to."""

    names: frozenset[str]
    any_address: bool = False
    preferred: str = ""  # the organiser's first name, used in the links the server prints

    @classmethod
    def for_bind(cls, host: str, extra: Iterable[str] = ()) -> HostRule:
        listed = [n.lower() for n in extra]
        names = {host.lower().strip("[]"), *LOCAL_NAMES, *listed}
        return cls(frozenset(names), any_address=_wildcard(host.strip("[]")),
                   preferred=listed[0] if listed else "")

    def page_host(self, bound: str) -> str:
        """The host part of the page's address for links: the organiser's first name, else
        the bound address (loopback for a server bound to all interfaces)."""
        name = self.preferred or ("127.0.0.1" if _wildcard(bound.strip("[]")) else bound)
        return f"[{name}]" if ":" in name and not name.startswith("[") else name

    def allows(self, header: str | None) -> bool:
        name = host_name(header)
        if name is None:
            return False
        return name in self.names or (self.any_address and _is_address(name))

    def refusal(self, header: str | None) -> str:
        """One sentence for a request that named another host."""
        shown = (header or "")[:80] or "(none)"
        names = ", ".join(sorted(self.names))
        return (f"This play server answers to {names} only, and the request named host "
                f"{shown!r}. Open the page at one of those names, or ask the organiser to "
                f"start it with --allowed-host NAME.")

    @staticmethod
    def same_origin(origin: str | None, scheme: str, host_header: str | None) -> bool:
        """True for a request without `Origin` (not from a browser page) or from the
        page's own origin."""
        return origin is None or origin == f"{scheme}://{host_header}"


def dashboard_url(text: str) -> str:
    """The dashboard's address for the page's links, as the organiser gives it: empty (no
    links), `:PORT` (the host the page was reached by, that port: what `arena dashboard
    --play` passes) or an http(s) URL; anything else is ConfigError."""
    from urllib.parse import urlsplit

    from arena.errors import ConfigError

    text = text.strip().rstrip("/")
    if not text:
        return ""
    if text.startswith(":") and text[1:].isdigit() and 0 < int(text[1:]) < 65536:
        return text
    try:
        parts = urlsplit(text)
        _ = parts.port  # a port that is not a number raises ValueError
        fine = (parts.scheme in ("http", "https") and bool(parts.hostname)
                and not parts.query and not parts.fragment)
    except ValueError:
        fine = False
    if not fine or any(c.isspace() or c in "\"'<>\\`" for c in text) or len(text) > 200:
        raise ConfigError(f"--dashboard-url {text[:80]!r} is not a dashboard address: give "
                          "an http(s) URL such as http://127.0.0.1:8501 or :8501 (the page's "
                          "host, that port).")
    return text
