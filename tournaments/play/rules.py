"""The rules as a person reads them, from the game's header and its code (never its
developer notes): what it is about and what it measures, each role in plain words, the
rounds actually played, what the score means, and why a move broke a rule.

The header is read by the one header reader (`arena.lang.header`): its title, the short
`# about:` description a game may carry for people, its `measures` and `players` lines.
`note:` lines and every other comment are for developers and never reach the page.

A failed rule is explained from what the seat may see only (its visible registers, what was
revealed to it and its own moves): the shared words when both texts are known to it, the
words or characters the rule does not allow, the tries left; a rule the judge decides is
said to be the judge's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.errors import ArenaError
from arena.lang import ast
from arena.lang.builtins import words
from arena.lang.dialects import dialect_rules
from arena.lang.header import read_header
from arena.lang.line_parser import parse_line
from arena.lang.values import cat
from arena.protocols.player import MoveRequest

JUDGED = ("xent", "xed", "nex", "dex", "is_true", "is_false")
MEANINGS = {
    "xed": "xed(a | b): the bits b saves the judge when it reads a (how much b tells about "
           "a); higher when b tells more",
    "xent": "xent(a | b): how surprised the judge is by a after reading b, in bits; lower "
            "when b makes a easier to predict",
    "nex": "nex(a | b): minus xent(a | b); higher when b makes a easier to predict",
    "dex": "dex(a | b): minus xed(a | b); higher when b tells the judge less about a",
}
_REWARD_FUNCTIONS = re.compile(r"\b(xed|xent|nex|dex)\s*\(")
_MAX_WORDS_SHOWN = 12


@dataclass(frozen=True)
class Rules:
    """What the page shows as a game's rules."""

    title: str
    about: str
    measures: str
    roles: dict[str, str]  # role -> what it does and sees, in plain words
    extra: tuple[str, ...]  # e.g. "zero-sum: what one side gains, the other loses"
    rounds: int | None
    score: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        return {"title": self.title, "about": self.about, "measures": self.measures,
                "roles": self.roles, "extra": list(self.extra), "rounds": self.rounds,
                "score": list(self.score)}


def game_rules(header: str, code: str, roles: Sequence[str] | None, rounds: int | None,
               name: str = "") -> Rules:
    """The rules of a game from its header text (or whole source) and code; `roles` are
    its active roles (None: those its `players` line names); `rounds` is the number of
    rounds the match plays (None: not chosen yet)."""
    read = read_header(header)
    described, extra = role_words(read.get("players"), roles)
    return Rules(
        title=read.title or name, about=read.get("about"), measures=read.get("measures"),
        roles=described, extra=extra, rounds=rounds, score=score_lines(code, rounds),
    )


def role_words(players: str, roles: Sequence[str] | None
               ) -> tuple[dict[str, str], tuple[str, ...]]:
    """Each role's description from a `# players:` line such as "alice (sees the story,
    describes it), bob and carol (one share each); zero-sum"; a description in brackets
    belongs to every name listed before it. What follows ';' is said of the whole game."""
    main, *rest = players.split(";")
    found: dict[str, str] = {}
    waiting: list[str] = []
    for group in _top_level_commas(main):
        names, _, said = group.partition("(")
        waiting += [n.strip() for n in re.split(r"\band\b|,", names) if n.strip()]
        if said:
            for role in waiting:
                found[role] = said.rsplit(")", 1)[0].strip()
            waiting = []
    for role in waiting:
        found.setdefault(role, "")
    described = found if roles is None else {role: found.get(role, "") for role in roles}
    extra = tuple(_plain_extra(part.strip()) for part in rest if part.strip())
    return described, extra


def _top_level_commas(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _plain_extra(part: str) -> str:
    if part.lower() == "zero-sum":
        return "zero-sum: what one side gains, the other loses"
    return part


def score_lines(code: str, rounds: int | None) -> tuple[str, ...]:
    """What the score means: bits, higher is better, how rounds count, and the judge's
    measures the game's rewards use."""
    lines = ["Scores are in bits, measured by the judge (a language model): higher is better.",
             "A round's score is the sum of the rewards you get in it."]
    if rounds is None:
        lines.append("Over several rounds, your match score is your best round.")
    elif rounds == 1:
        lines.append("You play 1 round: your match score is that round's score.")
    else:
        lines.append(f"You play {rounds} rounds and keep what you learnt: your match score is "
                     "your best round, so a worse round after a good one costs nothing.")
    rewards = "\n".join(line for line in code.splitlines() if line.strip().startswith("reward"))
    used = dict.fromkeys(_REWARD_FUNCTIONS.findall(rewards))
    lines += [MEANINGS[name] for name in used]
    return tuple(lines)


# ---------------------------------------------------------------------- a failed rule


def known_values(request: MoveRequest) -> tuple[dict[str, str], set[str]]:
    """(register -> value the seat knows, the registers of its last move): what a failed
    rule may be explained with."""
    known = dict(request.visible)
    for reveal in request.reveals:
        if reveal.label.isidentifier():
            known.setdefault(reveal.label, reveal.value)
    last: dict[str, str] = {}
    for item in request.history:
        if item.kind == "move":
            last = dict(item.moves)
            known.update(item.moves)
        elif item.kind == "reveal" and item.reveal is not None and item.reveal.label.isidentifier():
            known[item.reveal.label] = item.reveal.value
    return known, set(last)


def explain_failure(request: MoveRequest) -> list[str]:
    """Why the seat's last move broke `request.failed_condition`, in plain words (empty
    when no rule failed)."""
    condition = request.failed_condition
    if not condition:
        return []
    known, mine = known_values(request)
    family = "xent" if request.game.dialect.startswith("xent") else "xgl"
    said = _explain(condition, known, mine, request.game.dialect, family)
    cut = [r for item in request.history if item.kind == "move" for r in item.cut]
    if cut:
        said.append(f"Your move was longer than {request.max_len} tokens: only its first "
                    f"{request.max_len} were kept (the counter under the box shows the length).")
    rules = dialect_rules(request.game.dialect)
    if rules is not None:
        after = ("you forfeit the round" if rules.ensures.exceeded == "forfeit"
                 else "the match ends without a result")
        per = "in a round" if rules.ensures.per == "player" else "on this line"
        said.append(f"This was try {request.attempt - 1}; after {rules.ensures.budget} "
                    f"failed tries {per}, {after}.")
    return said


def _explain(condition: str, known: Mapping[str, str], mine: set[str], dialect: str,
             family: str) -> list[str]:
    try:
        call = parse_line(f"ensure({condition})", 1)
    except ArenaError:
        call = None
    if call is None or not call.args:
        return ["The rule did not hold for your move."]
    root = call.args[0]
    calls = [node for node in _walk(root) if isinstance(node, ast.Call)]
    said = []
    for node in calls:
        if node.func == "common_word_set" and len(node.args) == 2:
            said.append(_shared(node.args, known, mine, family))
        elif node.func in ("only_uses_words", "only_uses_chars") and len(node.args) == 2:
            said.append(_allowed(node.func, node.args, known, dialect, family))
    if said:
        return said
    if any(node.func in JUDGED for node in calls) or _has_text_only(root):
        return ["The judge decides this rule, reading the texts it names; it judged that "
                "your move does not satisfy it. Try a move that fits it better."]
    return ["The rule did not hold for your move."]


def _walk(expr: ast.Expr) -> list[ast.Expr]:
    found = [expr]
    for child in ast.iter_children(expr):
        found += _walk(child)
    return found


def _has_text_only(expr: ast.Expr) -> bool:
    """A condition that is a text (a statement the judge reads), not a comparison."""
    return isinstance(expr, ast.Str | ast.BinOp | ast.Name)


def _names(expr: ast.Expr) -> set[str]:
    return {node.id for node in _walk(expr) if isinstance(node, ast.Name)}


def _value(expr: ast.Expr, known: Mapping[str, str], family: str) -> str | None:
    """The text of `expr` when the seat knows every part of it (registers, literals, `+`)."""
    if isinstance(expr, ast.Str):
        return expr.value
    if isinstance(expr, ast.Name):
        return known.get(expr.id)
    if isinstance(expr, ast.BinOp) and expr.op == "+":
        left, right = _value(expr.left, known, family), _value(expr.right, known, family)
        if left is None or right is None:
            return None
        return cat(left, right, "xent" if family == "xent" else "xgl")
    return None


def _source(expr: ast.Expr) -> str:
    names = sorted(_names(expr))
    return " and ".join(names) if names else "the game's text"


def _quoted(items: Sequence[str]) -> str:
    shown = ", ".join(repr(w) for w in items[:_MAX_WORDS_SHOWN])
    more = len(items) - _MAX_WORDS_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def _shared(args: Sequence[ast.Expr], known: Mapping[str, str], mine: set[str],
            family: str) -> str:
    first, second = args
    ours, other = (first, second) if _names(first) & mine else (second, first)
    move, text = _value(ours, known, family), _value(other, known, family)
    if move is None or text is None:
        return (f"Your move may not share a word with {_source(other)}, and it shares at "
                "least one (that text is hidden from you, so the page cannot say which).")
    shared = sorted(set(words(move)) & set(words(text)))
    count = f"{len(shared)} word{'s' if len(shared) != 1 else ''}"
    return (f"Your move may not share a word with {_source(other)}; it shares {count}: "
            f"{_quoted(shared)}. Words count without case and punctuation.")


def _allowed(func: str, args: Sequence[ast.Expr], known: Mapping[str, str], dialect: str,
             family: str) -> str:
    allowed, move = _value(args[0], known, family), _value(args[1], known, family)
    source = _source(args[0])
    if allowed is None or move is None:
        what = "words" if func == "only_uses_words" else "characters"
        return f"Your move may use only {what} of {source}, and it used others."
    if func == "only_uses_chars":
        bad = sorted({c for c in move if c not in allowed and not c.isspace()})
        return f"Your move may use only characters of {source}; these are not: {_quoted(bad)}."
    rules = dialect_rules(dialect)
    check = rules.functions[func] if rules is not None else None
    pieces = move.split(" ") if family == "xent" else words(move)
    bad = [p for p in dict.fromkeys(pieces) if check is not None and not check(allowed, p)]
    if not bad:
        return (f"Your move may use only words of {source}, separated by single spaces "
                "(check for doubled spaces or an empty move).")
    return f"Your move may use only words of {source}; these are not: {_quoted(bad)}."
