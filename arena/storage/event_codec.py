"""How a match's events are stored: each long text once, large payloads compressed, and
the whole match within a size budget (issue 24.7: a 9-line game that reveals a growing
text on every pass stored 399 MB for two matches, each reveal a fresh copy).

A match's events are encoded together, in order. A string of `LONG_CHARS` or more is
stored the first time it appears, in the payload of that event, and replaced by a
reference everywhere (that event included); later events that repeat it store only the
reference. Once the match's stored characters pass `MATCH_BUDGET_CHARS`, a new long
string (or one of `SHORT_CHARS` or more) is replaced by a sentence saying how long it was
and that it was not stored, so
no game, however hostile, stores more than about the budget per match. A payload longer
than `COMPRESS_CHARS` is stored zlib-compressed (base64 text, so every backend's TEXT
column holds it). Payloads written before this codec (plain event JSON) still decode.

References are strings starting with NUL, which no event text can forge: a real string
that starts with NUL is stored with one more NUL in front, removed when decoding.
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Iterable
from typing import Any

from arena.events import Event, event_from_json
from arena.redaction import redact_tree

LONG_CHARS = 1_024
SHORT_CHARS = 64  # over the budget, texts from this length on are not stored either
COMPRESS_CHARS = 16_384
MATCH_BUDGET_CHARS = 16_000_000
_FORMAT = 2
_REF = "\x00#"
_ESCAPE = "\x00"
_COMPRESSED = "z:"


def not_stored_text(length: int) -> str:
    return (
        f"[{length:,} characters not stored: this match reached its stored-size budget "
        f"({MATCH_BUDGET_CHARS:,} characters)]"
    )


class _Encoder:
    """The state of one match's encoding: the long texts stored so far and the size."""

    def __init__(self, budget: int) -> None:
        self.index: dict[str, int] = {}
        self.stored_chars = 0
        self.pending = 0  # long texts of the event being encoded
        self.budget = budget

    def payload(self, event: Event) -> str:
        fresh: dict[str, str] = {}
        self.pending = 0
        body = self._walk(event.model_dump(mode="json"), fresh)
        text = json.dumps(
            {"v": _FORMAT, "e": body, "s": fresh}, ensure_ascii=False, separators=(",", ":")
        )
        self.stored_chars += len(text)
        if len(text) > COMPRESS_CHARS:
            packed = base64.b64encode(zlib.compress(text.encode("utf-8"), 6)).decode("ascii")
            return _COMPRESSED + packed
        return text

    def _walk(self, value: Any, fresh: dict[str, str]) -> Any:
        if isinstance(value, str):
            return self._string(value, fresh)
        if isinstance(value, dict):
            return {k: self._walk(v, fresh) for k, v in value.items()}
        if isinstance(value, list):
            return [self._walk(v, fresh) for v in value]
        return value

    def _over_budget(self, length: int) -> bool:
        return self.stored_chars + self.pending + length > self.budget

    def _string(self, text: str, fresh: dict[str, str]) -> str:
        if len(text) < LONG_CHARS:
            if len(text) >= SHORT_CHARS and self._over_budget(len(text)):
                return not_stored_text(len(text))
            text = redact_tree(text)
            return _ESCAPE + text if text.startswith(_ESCAPE) else text
        ref = self.index.get(text)
        if ref is None:
            if self._over_budget(len(text)):
                return not_stored_text(len(text))
            ref = self.index[text] = len(self.index)
            fresh[str(ref)] = redact_tree(text)
            self.pending += len(text)
        return f"{_REF}{ref}"


def encode_events(events: Iterable[Event], budget: int = MATCH_BUDGET_CHARS) -> list[str]:
    """The stored payloads of one match's events, in order (redacted, deduplicated,
    compressed, bounded)."""
    encoder = _Encoder(budget)
    return [encoder.payload(e) for e in events]


def decode_events(payloads: Iterable[str]) -> list[Event]:
    """A match's events from its stored payloads, in order (all of them: a reference
    points into an earlier or the same payload)."""
    texts: dict[str, str] = {}
    events: list[Event] = []
    for payload in payloads:
        if payload.startswith(_COMPRESSED):
            payload = zlib.decompress(base64.b64decode(payload[len(_COMPRESSED):])).decode()
        data = json.loads(payload)
        if not (isinstance(data, dict) and data.get("v") == _FORMAT and "e" in data):
            events.append(event_from_json(payload))  # written before this codec
            continue
        texts.update(data.get("s") or {})
        events.append(event_from_json(json.dumps(_restore(data["e"], texts))))
    return events


def _restore(value: Any, texts: dict[str, str]) -> Any:
    if isinstance(value, str):
        if value.startswith(_REF):
            return texts[value[len(_REF):]]
        return value[1:] if value.startswith(_ESCAPE) else value
    if isinstance(value, dict):
        return {k: _restore(v, texts) for k, v in value.items()}
    if isinstance(value, list):
        return [_restore(v, texts) for v in value]
    return value

