"""Redaction of secrets in spec strings and texts that are shown, logged or stored.

The one home of the rules: a parameter whose name says it holds a secret (`api_key=`,
`token=`, ... but not `api_key_env=`, which names a variable), a token that looks like a
provider's API key, and the user:password part of a URL all become ***.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# `key` alone or as a last word (`?key=`, `access_key=`) too: signed URLs carry it.
_SECRET_PARAM = re.compile(
    r"(api[_-]?key|(^|[_-])(key|sig)|secret|token|passw(or)?d|auth|signature|credentials?)$",
    re.IGNORECASE,
)
# Sizes and counts of tokens are no secret: a typo such as `max_new_token` is shown.
_COUNT_PARAM = re.compile(r"^(max|min|num|n)[_-]", re.IGNORECASE)
_KEY_LIKE = re.compile(
    r"(sk-[A-Za-z0-9_\-]{12,}|sk_[A-Za-z0-9_\-]{12,}|AIza[0-9A-Za-z_\-]{20,}|hf_[A-Za-z0-9]{20,}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}|xox[abp]-[A-Za-z0-9\-]{10,})"
)
# A value ends at '&' and, since specs are quoted inside sentences, at a quote or space.
_PARAM = re.compile(r"([?&])([^=&?\s'\"]+)=([^&\s'\"]*)")
# A URL's authority (user:password@host:port), plain or percent-encoded (as in a spec's
# query string); also scheme-relative (`//user:pass@host`), where `//` starts the text or
# follows a space, quote, '=', ':' or bracket. It ends where the path, query or text does.
_AUTHORITY = re.compile(
    r"(%3A%2F%2F|(?<==)%2F%2F|(?<![^\s'\"=:(\[<,])//)([^/\s?#&'\"<>]*)", re.IGNORECASE
)


def is_secret_param(name: str) -> bool:
    """Whether a spec parameter name looks like it carries a literal secret."""
    return (
        bool(_SECRET_PARAM.search(name))
        and not name.lower().endswith("_env")
        and not _COUNT_PARAM.match(name)
    )


def looks_like_key(text: str) -> bool:
    return bool(_KEY_LIKE.search(text))


def redact(text: str) -> str:
    """`text` with secret parameters' values, key-like tokens and URL credentials
    replaced by ***."""

    def param(match: re.Match[str]) -> str:
        sep, name, value = match.groups()
        if is_secret_param(name):
            return f"{sep}{name}=***"
        # a value may be a URL with a query of its own: api_base=http://h/v1?key=SECRET
        return f"{sep}{name}={_PARAM.sub(param, value)}"

    text = _AUTHORITY.sub(_hide_user, text)
    return _KEY_LIKE.sub("***", _PARAM.sub(param, text))


def _hide_user(match: re.Match[str]) -> str:
    """A URL authority with everything before its last '@' (user and password; a password
    may hold '@' itself) as ***."""
    lead, authority = match.groups()
    cut = max(authority.rfind("@"), authority.upper().rfind("%40"))
    return match.group(0) if cut < 0 else f"{lead}***{authority[cut:]}"


def redact_secret(text: str, secret: str | None) -> str:
    """`text` with every occurrence of one known `secret` (an API key we hold) replaced by
    '***'; unlike `redact` it leaves every other text as it is (a model's reply)."""
    return text.replace(secret, "***") if secret else text


def redact_params(params: Mapping[str, str]) -> dict[str, str]:
    """Spec parameters as they may be stored or shown: a secret parameter's value and the
    credentials in any value (a URL's user:password, a key-like token) become ***."""
    return {
        name: "***" if is_secret_param(name) else redact(value) for name, value in params.items()
    }


# A string can only need redaction when it holds one of these; most event texts (moves,
# token lists) hold none, so the full rules run rarely.
_MAYBE_SECRET = re.compile(r"=|@|%40|sk[-_]|AIza|hf_|gh[pousr]_|xox[abp]-")


def redact_tree(value: Any) -> Any:
    """`value` (JSON-like: dicts, lists, strings, numbers) with `redact` applied to every
    string in it, keys included; what a record goes through before it is stored."""
    if isinstance(value, str):
        return redact(value) if _MAYBE_SECRET.search(value) else value
    if isinstance(value, dict):
        return {redact_tree(k): redact_tree(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_tree(v) for v in value]
    return value

