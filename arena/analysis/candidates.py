"""Candidate moves for the analyses, and the simple players that play them.

A candidate is one text per *slot*: the registers the main player fills, in the order of its
elicits in the program (cycled when a loop asks again). Candidates come from a seeded pool:
random common words, random words of the map texts and of the game code's string literals
(the code is public), contiguous spans of the map texts, "rare" gibberish words (the tokens
an ill-posed game rewards), and mutations of earlier candidates for local search.
"""

from __future__ import annotations

import random
import string
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.lang import ast
from arena.protocols.player import MoveRequest
from arena.runtime.round import instruction_player

Candidate = tuple[str, ...]
WORD_CAP = 60  # longest candidate, in words: enough to rank moves, cheap to score
# Gibberish: "rare" mixes ASCII symbols and two-byte letters (many short tokens), "rarest"
# uses three-byte letters (few tokens, each far less likely than any vocabulary-uniform
# guess). An ill-posed game's optimum moves between them when probabilities are clipped.
RARE_CHARS = "qxzjkvw0123456789#%&*~^|ßøæþðłžʃǂ"
RARER_CHARS = "ßøæþðłžʃǂđħŋœĳ"
RAREST_CHARS = "ꙮᚠꝏↂꙭꙬᛝᛟꝎꜿ"
RARE_WORDS = 8  # gibberish words of each kind available to mutations

_COMMON_TEXT = """
    time year people way day man thing woman life child world school state family student
    group country problem hand part place case week company system program question work
    government number night point home water room mother area money story fact month lot
    right study book eye job word business issue side kind head house service friend father
    power hour game line end member law car city community name president team minute idea
    kid body information back parent face others level office door health person art war
    history party result change morning reason research girl guy moment air teacher force
"""
COMMON_WORDS: tuple[str, ...] = tuple(_COMMON_TEXT.split())


def words_of(texts: Iterable[str]) -> list[str]:
    """The distinct words of `texts` (edge punctuation stripped), in order of appearance."""
    seen: dict[str, None] = {}
    for text in texts:
        for piece in text.split():
            word = piece.strip(string.punctuation)
            if word:
                seen.setdefault(word, None)
    return list(seen)


def string_literals(program: ast.Program) -> list[str]:
    """The string literals of the game code, in program order."""
    found: list[str] = []

    def walk(expr: ast.Expr) -> None:
        if isinstance(expr, ast.Str):
            found.append(expr.value)
        elif isinstance(expr, ast.Call):
            for child in (*expr.args, *(kw.value for kw in expr.keywords)):
                walk(child)
        elif isinstance(expr, ast.BinOp):
            walk(expr.left)
            walk(expr.right)
        elif isinstance(expr, ast.UnaryOp):
            walk(expr.operand)
        elif isinstance(expr, ast.Compare):
            for child in (expr.left, *expr.comparators):
                walk(child)
        elif isinstance(expr, ast.BoolOp | ast.ListLit):
            for child in expr.values if isinstance(expr, ast.BoolOp) else expr.items:
                walk(child)
        elif isinstance(expr, ast.Subscript):
            walk(expr.value)
            walk(expr.index)

    for instruction in program.instructions:
        walk(instruction.call)
    return found


def main_slots(program: ast.Program, role: str) -> tuple[int, int]:
    """(number of registers `role` fills across its elicits, longest max_len among them)."""
    slots, longest = 0, 1
    for instruction in program.instructions:
        if instruction.name != "elicit" or instruction_player(instruction) != role:
            continue
        args = instruction.call.args
        if args and isinstance(args[0], ast.Name) and args[0].id == role:
            args = args[1:]
        slots += max(0, len(args) - 1)
        if args and isinstance(args[-1], ast.Int):
            longest = max(longest, args[-1].value)
    return max(slots, 1), longest


class CandidatePool:
    """Seeded generator of candidates for `slots` texts of at most `max_len` tokens."""

    def __init__(
        self,
        map_texts: Sequence[str],
        *,
        seed: int,
        slots: int,
        max_len: int,
        code_texts: Sequence[str] = (),
    ) -> None:
        self.rng = random.Random(seed)
        self.slots = slots
        self.max_words = max(1, min(max_len, WORD_CAP))
        self.texts = [t for t in map_texts if t.split()]
        self.map_words = words_of(self.texts)
        self.literals = [words_of([text]) for text in code_texts if text.split()]
        self.code_words = words_of(code_texts)
        self._literal = 0
        self.rare_words = [self._rare_word(RARE_CHARS) for _ in range(RARE_WORDS)]
        self.rarest_words = [self._rare_word(RAREST_CHARS) for _ in range(RARE_WORDS)]
        self.vocab = list(
            dict.fromkeys(
                [
                    *self.map_words, *self.code_words, *COMMON_WORDS, *self.rare_words,
                    *self.rarest_words,
                ]
            )
        )

    def _rare_word(self, chars: str) -> str:
        return "".join(self.rng.choice(chars) for _ in range(self.rng.randint(2, 6)))

    def _length(self) -> int:
        return self.rng.randint(1, self.max_words)

    def _words(self, source: Sequence[str]) -> str:
        return " ".join(self.rng.choice(source) for _ in range(self._length()))

    def _span(self) -> str:
        words = self.rng.choice(self.texts).split()
        size = min(len(words), self._length())
        start = self.rng.randint(0, len(words) - size)
        return " ".join(words[start : start + size])

    def text(self, origin: str) -> str:
        """One text of the given origin: "common", "map" (map words), "span" (of a map
        text), "code" (words of the code's literals); "rare" and "rarest" are gibberish of
        the longest length."""
        if origin == "span" and self.texts:
            return self._span()
        if origin == "map" and self.map_words:
            return self._words(self.map_words)
        if origin == "code" and self.literals:
            # One literal at a time, in turn: a game may restrict moves to one word list.
            self._literal += 1
            return self._words(self.literals[(self._literal - 1) % len(self.literals)])
        if origin in ("rare", "rarer", "rarest"):
            chars = {"rare": RARE_CHARS, "rarer": RARER_CHARS}.get(origin, RAREST_CHARS)
            return " ".join(self._rare_word(chars) for _ in range(self.max_words))
        return self._words(COMMON_WORDS)

    def initial(self, count: int) -> list[tuple[str, Candidate]]:
        """Two gibberish candidates, then `count` cycling through the other origins."""
        origins = ["common", "map", "span", "code"]
        chosen = ["rare", "rarer", "rarest"] + [origins[i % len(origins)] for i in range(count)]
        return [(o, tuple(self.text(o) for _ in range(self.slots))) for o in chosen]

    def mutate(self, candidate: Candidate, rng: random.Random) -> Candidate:
        """Change one slot by replacing, inserting, deleting or swapping a word.

        The caller passes the random source, so that two searches given equally seeded
        sources propose the same mutations (see `wellposed`)."""
        slot = rng.randrange(len(candidate))
        words = candidate[slot].split()
        op = rng.choice(("replace", "insert", "delete", "swap"))
        position = rng.randrange(len(words)) if words else 0
        if op == "insert" or not words:
            if len(words) < self.max_words:
                words.insert(position, rng.choice(self.vocab))
        elif op == "delete" and len(words) > 1:
            del words[position]
        elif op == "swap" and len(words) > 1:
            other = rng.randrange(len(words))
            words[position], words[other] = words[other], words[position]
        else:
            words[position] = rng.choice(self.vocab)
        return (*candidate[:slot], " ".join(words), *candidate[slot + 1 :])


@dataclass
class FixedPlayer:
    """Plays its texts in order, one per requested register, cycling."""

    texts: Candidate
    label: str = "fixed"
    _next: int = 0

    @property
    def name(self) -> str:
        return self.label

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        moves = {}
        for register in request.registers:
            moves[register] = self.texts[self._next % len(self.texts)]
            self._next += 1
        return moves


@dataclass
class EchoPlayer:
    """Copies what it sees (non-empty visible registers, then reveals) into every register:
    the obvious reply in games where repeating the other side's text pays."""

    label: str = "echo"

    @property
    def name(self) -> str:
        return self.label

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        seen = [request.visible[r] for r in sorted(request.visible) if request.visible[r]]
        seen += [r.value for r in request.reveals if r.value]
        text = " ".join(seen) or "nothing"
        return dict.fromkeys(request.registers, text)
