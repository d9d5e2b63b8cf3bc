"""Token rules of XGL.md section 7, on top of a Hugging Face fast tokenizer.

Rules, per dialect:

* Context and target are tokenised separately (no special tokens added) and concatenated,
  so the target's token ids never depend on the context.
* `xgl`: sequence = [BOS (EOS when the tokenizer has no BOS)] + context + target; every
  target token is scored.
* `xent`: sequence = context + target; the first target token is never scored.

Whitespace convention. In dialect `xgl` a context or a target that is non-empty and does not
start with whitespace is tokenised as `" " + text`: judge models see words with their
leading space in running text (the bundled judge is trained this way), so "cat" after a
context scores like " cat" would inside a sentence. The added space is hidden from callers.
Dialect `xent` tokenises texts exactly
as given, like the reference implementation. (Tokenizers that add a SentencePiece-style
dummy prefix themselves are detected and get no extra space.)

Token texts (`TokenScores.tokens`, `tokenize`) are slices of the text as given, cut per
token by `arena.judges.hf.pieces`: they concatenate exactly to the text (the added space in none).
Contexts are never shown as pieces, so they are tokenised without them (pieces were most of
the host-side cost of a new request).

Special-token text inside a game string ("<|endoftext|>") is tokenised literally, as plain
characters, so a player cannot inject control tokens.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache

from arena.errors import JudgeError, UnknownNameError
from arena.judges.hf.encoded import EncodedRequest
from arena.judges.hf.pieces import (
    byte_length_table,
    byte_level_alphabet,
    pieces_from_bytes,
    pieces_from_offsets,
)
from arena.lang.ast import DIALECTS, Dialect
from arena.protocols.judge import ScoreRequest


def adds_space(text: str, dialect: Dialect) -> bool:
    """Whether the whitespace convention tokenises `text` as `" " + text`."""
    return dialect == "xgl" and bool(text) and not text[0].isspace()


@dataclass(frozen=True)
class Encoded:
    """Token ids of one text and the text piece of each token (None: not computed); `shown`:
    each token decoded alone where that differs from the pieces (a character split across
    tokens), else None."""

    ids: tuple[int, ...]
    pieces: tuple[str, ...] | None
    shown: tuple[str, ...] | None = None


class TextEncoder:
    """Tokenises texts per the rules above, with a cache (contexts repeat a lot).

    Thread-safe: HF tokenizers mutate settings on calls, so calls (and the cache) are
    serialised by one lock.
    """

    def __init__(self, tokenizer: Any, *, cache_size: int = 16_384) -> None:
        self._tok = tokenizer
        self._lock = threading.RLock()
        self._cache: LRUCache[tuple[str, bool], Encoded] = LRUCache(maxsize=cache_size)
        bos = tokenizer.bos_token_id
        self.bos_id: int | None = bos if bos is not None else tokenizer.eos_token_id
        self.special_ids: frozenset[int] = frozenset(tokenizer.all_special_ids)
        self.dummy_prefix = self._detect_dummy_prefix()
        self._backend = tokenizer.backend_tokenizer  # the Rust tokenizer: batch calls
        self.byte_level = type(self._backend.decoder).__name__ == "ByteLevel"
        vocab = self._backend.get_vocab(with_added_tokens=True)
        self._byte_lengths = byte_length_table(vocab) if self.byte_level else []

    @property
    def bos_text(self) -> str | None:
        """The text form of the BOS (or EOS) token, as servers like vLLM parse it."""
        if self.bos_id is None:
            return None
        return str(self._tok.convert_ids_to_tokens(self.bos_id))

    def _detect_dummy_prefix(self) -> bool:
        ids = self._tok("a", add_special_tokens=False)["input_ids"]
        first = self._tok.convert_ids_to_tokens(ids[:1])
        return bool(first) and str(first[0]).startswith("▁")

    def encode_texts(
        self, texts: Sequence[str], dialect: Dialect, *, pieces: bool = True
    ) -> list[Encoded]:
        """Encode each text under `dialect`'s whitespace convention (`pieces=False`: ids
        only, for contexts; `Encoded.pieces` may then be None)."""
        with self._lock:
            return self._encode_texts(texts, dialect, pieces)

    def _encode_texts(self, texts: Sequence[str], dialect: Dialect, pieces: bool) -> list[Encoded]:
        keys = [(t, adds_space(t, dialect) and not self.dummy_prefix) for t in texts]
        found: dict[tuple[str, bool], Encoded] = {}
        missing: list[tuple[str, bool]] = []
        for key in dict.fromkeys(keys):
            hit = self._cache.get(key)
            if hit is None or (pieces and hit.pieces is None):
                missing.append(key)
            else:
                found[key] = hit
        if missing:
            fresh = self._encode_raw(missing, pieces)
            for key, enc in zip(missing, fresh, strict=True):
                if self._cache.maxsize:  # maxsize 0 turns the cache off
                    self._cache[key] = enc
                found[key] = enc
        return [found[k] for k in keys]

    def _encode_raw(self, keys: list[tuple[str, bool]], pieces: bool) -> list[Encoded]:
        """Tokenise each (text, add a space) pair in one batch call of the Rust tokenizer;
        pieces are slices of the text as given. Special-token text is split like any
        other text (`encode_special_tokens`), so players cannot inject control tokens."""
        todo = [(t, space) for t, space in keys if t]
        result: dict[tuple[str, bool], Encoded] = {}
        if todo:
            backend = self._backend
            if not backend.encode_special_tokens:
                backend.encode_special_tokens = True
            if backend.truncation is not None:
                backend.no_truncation()
            if backend.padding is not None:
                backend.no_padding()
            batch = backend.encode_batch(
                [(" " + t) if space else t for t, space in todo], add_special_tokens=False
            )
            for key, enc in zip(todo, batch, strict=True):
                ids = tuple(enc.ids)
                cut = self._pieces(key, ids, enc) if pieces else None
                shown = self._shown(key, ids, cut) if cut is not None else None
                result[key] = Encoded(ids, cut, shown)
        return [result.get(k, Encoded((), ())) for k in keys]

    def _shown(
        self, key: tuple[str, bool], ids: Sequence[int], pieces: Sequence[str]
    ) -> tuple[str, ...] | None:
        """Each token's bytes decoded alone, as the tokenizer's byte-level decoder does
        (invalid UTF-8 becomes U+FFFD), when some token holds part of a character; None for
        text with no such token (ASCII always), or when a space was added in front."""
        text, space = key
        if text.isascii() or space or not self.byte_level:
            return None
        alphabet = byte_level_alphabet()
        shown = []
        for i in ids:
            token = self._backend.id_to_token(i)
            if token is None or not all(ch in alphabet for ch in token):
                return None  # not byte-level text (an added token): keep the pieces
            shown.append(bytes(alphabet[ch] for ch in token).decode("utf-8", "replace"))
        return None if tuple(shown) == tuple(pieces) else tuple(shown)

    def _pieces(self, key: tuple[str, bool], ids: Sequence[int], enc: Any) -> tuple[str, ...]:
        text, space = key
        if self.byte_level:
            table = self._byte_lengths
            lengths = [table[i] if i < len(table) else -1 for i in ids]
            if min(lengths, default=0) > 0:
                cut = pieces_from_bytes(text, lengths, " " if space else "")
                if cut is not None:
                    return tuple(cut)
        spans = [(int(a), int(b)) for a, b in enc.offsets]
        return tuple(pieces_from_offsets(text, spans, added_prefix=int(space)))

    def encode_requests(self, requests: Sequence[ScoreRequest]) -> list[EncodedRequest]:
        """Token ids of each request per its dialect (see the module docstring)."""
        out: list[EncodedRequest | None] = [None] * len(requests)
        for dialect in DIALECTS:
            idx = [i for i, r in enumerate(requests) if r.dialect == dialect]
            if not idx:
                continue
            prefix: tuple[int, ...] = ()
            if dialect == "xgl":
                if self.bos_id is None:
                    raise JudgeError(
                        "Dialect 'xgl' needs a BOS or EOS token and this judge's tokenizer has "
                        "neither. Use dialect 'xent' or a tokenizer with a BOS token."
                    )
                prefix = (self.bos_id,)
            ctx = self.encode_texts([requests[i].context for i in idx], dialect, pieces=False)
            tgt = self.encode_texts([requests[i].target for i in idx], dialect)
            for j, i in enumerate(idx):
                target_pieces = tgt[j].pieces or ()
                out[i] = EncodedRequest(
                    requests[i], prefix, ctx[j].ids, tgt[j].ids, target_pieces, tgt[j].shown
                )
        result: list[EncodedRequest] = []
        for req, enc in zip(requests, out, strict=True):
            if enc is None:
                raise UnknownNameError("dialect", str(req.dialect), DIALECTS)
            result.append(enc)
        return result

    def tokenize(self, texts: Sequence[str], dialect: Dialect = "xgl") -> list[list[str]]:
        """Pieces of each text as the judge splits a target in `dialect`."""
        return [list(e.pieces or ()) for e in self.encode_texts(texts, dialect)]

    def decode(self, ids: Sequence[int]) -> str:
        with self._lock:
            text = self._tok.decode(
                list(ids), skip_special_tokens=True, clean_up_tokenization_spaces=False
            )
        return str(text)
