"""Redaction of secrets in spec strings and texts that are shown, logged or stored.

The one home of the rules: a parameter whose name says it holds a secret (`api_key=`,
`token=`, ... but not `api_key_env=`, which names a variable), a token that looks like a
provider's API key, and the user:password part of a URL all become ***.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_SECRET_PARAM = re.compile(r"(api[_-]?key|secret|token|passw(or)?d|auth)$", re.IGNORECASE)
# Sizes and counts of tokens are no secret: a typo such as `max_new_token` is shown.
_COUNT_PARAM = re.compile(r"^(max|min|num|n)[_-]", re.IGNORECASE)
_KEY_LIKE = re.compile(
    r"(sk-[A-Za-z0-9_\-]{12,}|sk_[A-Za-z0-9_\-]{12,}|AIza[0-9A-Za-z_\-]{20,}|hf_[A-Za-z0-9]{20,}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}|xox[abp]-[A-Za-z0-9\-]{10,})"
)
# A value ends at '&' and, since specs are quoted inside sentences, at a quote or space.
_PARAM = re.compile(r"([?&])([^=&?\s'\"]+)=([^&\s'\"]*)")
# user:password@ in a URL, plain or percent-encoded (as in a spec's query string)
_URL_USER = re.compile(r"(://|%3A%2F%2F)((?:(?!%40)[^/@\s?#&])+)(@|%40)", re.IGNORECASE)


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
        return f"{sep}{name}={'***' if is_secret_param(name) else value}"

    text = _URL_USER.sub(r"\1***\3", text)
    return _KEY_LIKE.sub("***", _PARAM.sub(param, text))


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

