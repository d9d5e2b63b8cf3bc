"""A deterministic, torch-free test judge: a smoothed character n-gram language model.

The static model is an interpolated Kneser-Ney character n-gram fitted at construction on a
small built-in English text (`ngram_corpus.txt`); a document cache over the text being scored
sits on top of it, so that what the context says makes the target cheaper (xed > 0). It
predicts a fixed alphabet (printable ASCII, tab, newline) plus one escape symbol; any other
character costs the escape symbol plus 8 bits per UTF-8 byte, so every text has a finite
cross-entropy.

The judge's tokens are words with their leading whitespace (see `split_tokens`); a token's
cross-entropy is the sum of the log-losses of its characters, each conditioned on every
character before it.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import math
import random
import re
from collections.abc import Mapping, Sequence

from arena.errors import ConfigError, JudgeError, UnknownNameError
from arena.lang.ast import DIALECTS, Dialect
from arena.protocols.judge import GenerateRequest, JudgeInfo, ScoreRequest, TokenScores

DEFAULT_ORDER = 5
MAX_ORDER = 10

# The predicted alphabet: tab, newline, printable ASCII, then the escape symbol for the rest.
ALPHABET = "\t\n" + "".join(chr(i) for i in range(32, 127))
_OTHER = "\x1a"
VOCAB = ALPHABET + _OTHER
_VOCAB_INDEX = {c: i for i, c in enumerate(VOCAB)}
_ALPHABET_SET = frozenset(ALPHABET)
# Start-of-text state, only ever seen in histories; user text cannot produce it because
# every character outside ALPHABET is mapped to the escape symbol first.
_BOS = "\x02"

# Used through re.findall, whose internal cache keeps the compiled pattern.
_TOKEN_PATTERN = r"\s*\w+|\s*[^\w\s]|\s+\Z"
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_SPACE_CHARS = frozenset(" \t\n")
_LN2 = math.log(2.0)
_CACHE_LIMIT = 200_000
# Document cache (see DocumentCache); tuned on held-out prose so it also helps new text.
CACHE_MIN = 4
CACHE_MAX = 12
CACHE_BETA = 3.0
_TOTAL = ""  # never a symbol, so it can key a history's total among its followers

# One level of the model for one history: (total count, distinct followers, followers, D).
_Entry = tuple[int, int, dict[str, int], float]


def split_tokens(text: str) -> list[str]:
    """Words with their leading whitespace, single punctuation marks, trailing whitespace.

    The pieces always concatenate to `text`.
    """
    return re.findall(_TOKEN_PATTERN, text)


def _symbols(text: str) -> str:
    """Map every character outside the alphabet to the escape symbol."""
    return "".join(c if c in _ALPHABET_SET else _OTHER for c in text)


def _escape_bits(char: str) -> float:
    """Extra cost of an out-of-alphabet character: uniform over its UTF-8 bytes."""
    return 0.0 if char in _ALPHABET_SET else 8.0 * len(char.encode("utf-8", "surrogatepass"))


def _discount(counts: Mapping[str, int], length: int) -> float:
    """Ney's absolute discount n1 / (n1 + 2 n2) for the n-grams of one length."""
    n1 = sum(1 for g, c in counts.items() if len(g) == length and c == 1)
    n2 = sum(1 for g, c in counts.items() if len(g) == length and c == 2)
    if n1 + n2 == 0:
        return 0.75
    return min(0.95, max(0.05, n1 / (n1 + 2 * n2)))


def _entries(counts: Mapping[str, int], order: int) -> dict[str, _Entry]:
    """Group n-gram counts by history, with each order's discount."""
    discounts = {k: _discount(counts, k) for k in range(1, order + 1)}
    followers: dict[str, dict[str, int]] = {}
    for gram, count in counts.items():
        followers.setdefault(gram[:-1], {})[gram[-1]] = count
    return {
        hist: (sum(f.values()), len(f), f, discounts[len(hist) + 1])
        for hist, f in followers.items()
    }


class DocumentCache:
    """A cache model of the text seen so far, interpolated over the static model.

    For each history length from CACHE_MIN to CACHE_MAX, in turn, the current estimate is
    mixed Witten-Bell style with what followed that history earlier in this text:
    P_L(c) = (n(h c) + beta t(h) P_{L-1}(c)) / (n(h) + beta t(h)), where t(h) is the number
    of distinct followers. A phrase that already occurred in the context is therefore cheap
    to repeat, which a fixed-order model alone cannot express.
    """

    def __init__(self) -> None:
        # history -> {follower: count}, with the history's total under the key _TOTAL.
        self._follow: dict[str, dict[str, int]] = {}

    def step(self, symbols: str, j: int, p: float = 0.0) -> tuple[float, float]:
        """Mix the static probability `p` of symbols[j] with the cache, then record symbols[j].

        Returns the mixed probability and its complement, each computed directly: after a
        long repetition the probability rounds to 1.0, but the complement stays exact, so the
        cost in bits stays positive.
        """
        c = symbols[j]
        q, miss = p, 1.0 - p
        mixing = True
        for n in range(CACHE_MIN, min(CACHE_MAX, j) + 1):
            h = symbols[j - n : j]
            f = self._follow.get(h)
            if f is None:
                # A longer history containing an unseen one is unseen too.
                mixing = False
                self._follow[h] = {_TOTAL: 1, c: 1}
                continue
            if mixing:
                back = CACHE_BETA * (len(f) - 1)
                total, hits = f[_TOTAL], f.get(c, 0)
                q = (hits + back * q) / (total + back)
                miss = (total - hits + back * miss) / (total + back)
            f[c] = f.get(c, 0) + 1
            f[_TOTAL] += 1
        return q, miss


class CharNgramModel:
    """Interpolated Kneser-Ney character n-gram model with a uniform floor over VOCAB.

    The longest history available uses raw counts (so a short history at the very start of
    an unmarked text is estimated from all its occurrences); shorter ones use Kneser-Ney
    continuation counts; the recursion ends in the uniform distribution over VOCAB.
    """

    def __init__(self, order: int, text: str) -> None:
        self.order = order
        raw: dict[str, int] = {}
        for paragraph in re.split(r"\n\s*\n", text):
            # Paragraphs are unwrapped so line breaks in the file do not read as prose.
            body = " ".join(paragraph.split())
            if not body:
                continue
            seq = _BOS + _symbols(body) + "\n"
            for i in range(1, len(seq)):
                for k in range(1, min(order, i + 1) + 1):
                    gram = seq[i - k + 1 : i + 1]
                    raw[gram] = raw.get(gram, 0) + 1
        cont: dict[str, int] = {}
        for gram in raw:
            if len(gram) >= 2:
                cont[gram[1:]] = cont.get(gram[1:], 0) + 1
        self._raw = _entries(raw, order)
        self._cont = _entries(cont, order)
        self._uniform = 1.0 / len(VOCAB)
        self._prob_cache: dict[tuple[str, str], float] = {}
        self._dist_cache: dict[str, list[float]] = {}

    def _levels(self, history: str) -> list[_Entry]:
        """The model's levels for `history`, shortest suffix first."""
        levels: list[_Entry] = []
        n = len(history)
        for k in range(n + 1):
            table = self._raw if k == n else self._cont
            entry = table.get(history[n - k :])
            if entry is not None:
                levels.append(entry)
        return levels

    def prob(self, history: str, symbol: str) -> float:
        """P(symbol | history) for a history of at most order-1 symbols."""
        key = (history, symbol)
        cached = self._prob_cache.get(key)
        if cached is not None:
            return cached
        p = self._uniform
        for total, types, followers, d in self._levels(history):
            count = followers.get(symbol, 0)
            p = max(count - d, 0.0) / total + d * types / total * p
        if len(self._prob_cache) >= _CACHE_LIMIT:
            self._prob_cache.clear()
        self._prob_cache[key] = p
        return p

    def distribution(self, history: str) -> list[float]:
        """P(. | history) over VOCAB, in VOCAB order (sums to 1)."""
        cached = self._dist_cache.get(history)
        if cached is not None:
            return cached
        p = [self._uniform] * len(VOCAB)
        for total, types, followers, d in self._levels(history):
            back = d * types / total
            p = [back * x for x in p]
            for symbol, count in followers.items():
                p[_VOCAB_INDEX[symbol]] += (count - d) / total
        if len(self._dist_cache) >= _CACHE_LIMIT // 100:
            self._dist_cache.clear()
        self._dist_cache[history] = p
        return p

    def history(self, symbols: str, end: int) -> str:
        """The history the static model conditions on before position `end` of `symbols`."""
        return symbols[max(0, end - self.order + 1) : end]

    def char_bits(self, text: str, start: int, bos: bool) -> list[float]:
        """Bits of each character of text[start:] given everything before it."""
        symbols = (_BOS if bos else "") + _symbols(text)
        offset = 1 if bos else 0
        cache = DocumentCache()
        for j in range(start + offset):
            cache.step(symbols, j)
        bits: list[float] = []
        for i in range(start, len(text)):
            j = i + offset
            p, miss = cache.step(symbols, j, self.prob(self.history(symbols, j), symbols[j]))
            nats = -math.log(p) if p < 0.5 else -math.log1p(-miss)
            bits.append(nats / _LN2 + _escape_bits(text[i]))
        return bits


@functools.lru_cache(maxsize=1)
def default_text() -> str:
    """The built-in training text (original prose about a village, animals and weather)."""
    resource = importlib.resources.files("arena.judges").joinpath("ngram_corpus.txt")
    return resource.read_text(encoding="utf-8")


@functools.lru_cache(maxsize=8)
def _fitted(order: int, text: str) -> CharNgramModel:
    # Models are immutable apart from their memo caches, so judges can share them.
    return CharNgramModel(order, text)


def _check_order(order: object) -> int:
    if isinstance(order, bool) or not isinstance(order, int) or not 1 <= order <= MAX_ORDER:
        raise ConfigError(
            f"ngram judge: order must be an integer from 1 to {MAX_ORDER}, got {order!r}. "
            f"Use order={DEFAULT_ORDER} (the default) unless you need another."
        )
    return order


def _char_class(char: str) -> str:
    if char in _WORD_CHARS:
        return "w"
    return "s" if char in _SPACE_CHARS else "p"


def _starts_token(prev: str | None, cur: str) -> bool:
    """Whether appending a character of class `cur` after class `prev` opens a new token."""
    if prev is None:
        return True
    if cur == "w":
        return prev == "p"
    return prev != "s"


def _sample(probs: list[float], temperature: float, rng: random.Random) -> str:
    """One character drawn from `probs` (over VOCAB) at `temperature`; 0 means greedy."""
    dist = probs[: len(ALPHABET)]  # never the escape symbol
    if temperature == 0.0:
        return ALPHABET[max(range(len(dist)), key=dist.__getitem__)]
    weights = [p ** (1.0 / temperature) for p in dist] if temperature != 1.0 else dist
    total = sum(weights)  # summed in the same order as below, so `r < acc` is reached
    if not total > 0.0:  # extreme temperatures can underflow every weight
        return ALPHABET[max(range(len(dist)), key=dist.__getitem__)]
    r = rng.random() * total
    acc = 0.0
    last = ALPHABET[0]
    for char, w in zip(ALPHABET, weights, strict=True):
        if w > 0.0:
            acc += w
            last = char
            if r < acc:
                return char
    return last  # only reachable through rounding of r at the very top


class NgramJudge:
    """The torch-free test judge (`Judge` protocol): exact, deterministic, fast on CPU."""

    def __init__(self, order: int = DEFAULT_ORDER, text: str | None = None) -> None:
        self._order = _check_order(order)
        self._text = default_text() if text is None else text
        self._model = _fitted(self._order, self._text)
        digest = hashlib.sha256(self._text.encode("utf-8", "surrogatepass")).hexdigest()
        self._info = JudgeInfo(
            name="ngram",
            model=f"char-ngram-{self._order}",
            revision=digest[:12],
            dtype="float64",
            vocab_size=len(VOCAB),
        )

    @property
    def info(self) -> JudgeInfo:
        return self._info

    def score_one(self, request: ScoreRequest) -> TokenScores:
        """Per-token bits of one request (XGL.md section 7)."""
        if request.dialect not in DIALECTS:
            raise UnknownNameError(
                "dialect", str(request.dialect), DIALECTS, "Use 'xgl' (default) or 'xent'."
            )
        tokens = split_tokens(request.target)
        if not tokens:
            return TokenScores(tokens=(), bits=())
        bos = request.dialect == "xgl"
        text = request.context + request.target
        char_bits = self._model.char_bits(text, len(request.context), bos)
        bits: list[float] = []
        pos = 0
        for token in tokens:
            bits.append(math.fsum(char_bits[pos : pos + len(token)]))
            pos += len(token)
        skip = 0 if bos else 1
        return TokenScores(tokens=tuple(tokens[skip:]), bits=tuple(bits[skip:]))

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        return [self.score_one(r) for r in requests]

    async def tokenize(self, texts: Sequence[str], dialect: Dialect = "xgl") -> list[list[str]]:
        return [split_tokens(t) for t in texts]  # word tokens: the same in both dialects

    def generate_one(self, request: GenerateRequest) -> str:
        """Sample `max_tokens` tokens after the prompt, ending on a token boundary.

        Fewer only when a runaway token hits the character limit of 32 per token.
        """
        temperature = request.temperature
        if not (temperature >= 0.0 and math.isfinite(temperature)):
            raise JudgeError(
                f"ngram judge: temperature must be a finite number >= 0, got {temperature!r}. "
                "Use 1.0 to sample from the model, 0 for greedy decoding."
            )
        if request.max_tokens <= 0:
            return ""
        rng = random.Random(request.seed)
        # Samples come from the static model: with the document cache they fall into loops.
        history = self._model.history(_BOS + _symbols(request.prompt), 1 + len(request.prompt))
        out: list[str] = []
        count = 0
        prev: str | None = None
        max_chars = 32 * request.max_tokens + 64
        while len(out) < max_chars:
            char = _sample(self._model.distribution(history), temperature, rng)
            cls = _char_class(char)
            if _starts_token(prev, cls):
                if count == request.max_tokens:
                    return "".join(out)
                count += 1
            out.append(char)
            history = self._model.history(history + char, len(history) + 1)
            prev = cls
        # Ran out of characters inside a token: drop the unfinished piece.
        pieces = split_tokens("".join(out))
        return "".join(pieces[:-1])

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        return [self.generate_one(r) for r in requests]

    async def aclose(self) -> None:
        return None


def create_ngram_judge(params: Mapping[str, str]) -> NgramJudge:
    """Build an NgramJudge from string parameters; only `order` (1..10) is accepted."""
    for key in params:
        if key != "order":
            raise UnknownNameError(
                "ngram judge parameter", key, ["order"], "Remove it or pass order=<1..10>."
            )
    raw = params.get("order")
    if raw is None:
        return NgramJudge()
    try:
        order = int(raw.strip())
    except (ValueError, AttributeError):
        raise ConfigError(
            f"ngram judge: order must be an integer from 1 to {MAX_ORDER}, got {raw!r}. "
            f"Pass e.g. order={DEFAULT_ORDER}."
        ) from None
    return NgramJudge(order=order)
