"""A game's header: the comment lines above its first instruction (XGL.md section 1).

The one reader of game headers: the parser, plugin game entries, `arena play` with a path
or a name and the analysis tools all call it, so a game's dialect and metadata never depend
on how it was loaded.

The rule: the header is the run of comment and blank lines at the top of the text. Inside
it, `# key: value` lines are fields (a key may repeat) and the first other comment line is
the title. `# dialect: NAME` is a *pragma*: it chooses how the program is read, so it may
stand anywhere in the header but nowhere else; one below the first instruction is
reported with a caret rather than silently ignored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from arena.errors import Diagnostic, UnknownNameError, did_you_mean
from arena.lang.dialects import DIALECT_NAMES, dialect_rules

__all__ = [
    "REQUIRED_KEYS",
    "DialectPragma",
    "GameHeader",
    "dialect_of",
    "header_diagnostics",
    "header_problems",
    "known_dialect",
    "read_header",
    "split_lines",
]

# The bundled games' header style (see `arena/games/*.xgl`): a title line, then these keys
# and optional `note` lines. `well-posed: no` marks a game ill-posed on purpose (the
# paradoxical game); `judge:` says what judge the game needs.
REQUIRED_KEYS = ("measures", "players", "rounds", "version", "source")
_KEY_LINE = re.compile(r"#\s*([A-Za-z][A-Za-z_-]*)\s*:\s?(.*)")
_PRAGMA = re.compile(r"\s*#\s*dialect\s*:\s*(.*?)\s*$", re.IGNORECASE)
_PRAGMA_HINT = (
    "write '# dialect: xgl' or '# dialect: xent' (or a version such as xent@2025-09) in the "
    "comment lines at the top"
)


def split_lines(source: str) -> list[str]:
    """The lines of a game; a trailing newline does not add a line, CRLF is accepted."""
    if not source:
        return []
    lines = source.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def known_dialect(name: str) -> str | None:
    """The dialect called `name` (any case), with its version where it names one
    (`xent@2025-09`; `arena.lang.dialects`), or None."""
    rules = dialect_rules(name)
    return rules.name if rules is not None else None


@dataclass(frozen=True)
class DialectPragma:
    """A `# dialect: NAME` line: where it stands and the name it gives (as written)."""

    line: int  # 1-based
    col: int  # 0-based column of the name
    name: str
    text: str  # the whole source line, for diagnostics

    @property
    def dialect(self) -> str | None:
        return known_dialect(self.name)


@dataclass(frozen=True)
class GameHeader:
    """The header of a game, parsed.

    Attributes:
        title: the first header comment that is not a `key: value` line (nor the pragma).
        fields: key (lower case) -> its values, in file order.
        lines: the header comments without '#' and one following space, pragma left out:
            the game's description as players are shown it.
        pragmas: every dialect pragma in the header, in file order.
        misplaced: dialect pragmas below the first instruction (each is a diagnostic).
    """

    title: str = ""
    fields: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    lines: tuple[str, ...] = ()
    pragmas: tuple[DialectPragma, ...] = ()
    misplaced: tuple[DialectPragma, ...] = ()

    def get(self, key: str) -> str:
        """The value of `key` (its lines joined by a space), or ''."""
        return " ".join(self.fields.get(key, ())).strip()

    @property
    def notes(self) -> tuple[str, ...]:
        return self.fields.get("note", ())

    @property
    def dialect(self) -> str | None:
        """The dialect the header's pragma names; None without one or for an unknown name."""
        return self.pragmas[0].dialect if self.pragmas else None

    @property
    def declared_ill_posed(self) -> bool:
        """Whether the header says `well-posed: no` (the game is ill-posed on purpose)."""
        return self.get("well-posed").lower().startswith(("no", "false"))

    @property
    def needs_strong_judge(self) -> bool:
        return "strong" in self.get("judge").lower()


def read_header(source: str) -> GameHeader:
    """Parse the header of a game text (never raises; see `header_diagnostics`)."""
    title = ""
    fields: dict[str, list[str]] = {}
    lines: list[str] = []
    pragmas: list[DialectPragma] = []
    misplaced: list[DialectPragma] = []
    in_header = True
    for number, text in enumerate(split_lines(source), start=1):
        stripped = text.strip()
        if in_header and stripped and not stripped.startswith("#"):
            in_header = False
        pragma = _pragma(number, text)
        if not in_header:
            if pragma is not None:
                misplaced.append(pragma)
            continue
        if not stripped:
            continue
        if pragma is not None:
            pragmas.append(pragma)
            continue
        body = stripped[1:]
        lines.append(body[1:] if body.startswith(" ") else body)
        match = _KEY_LINE.fullmatch(stripped)
        if match:
            fields.setdefault(match.group(1).lower(), []).append(match.group(2).strip())
        elif not title:
            title = body.strip()
    return GameHeader(
        title=title,
        fields={key: tuple(values) for key, values in fields.items()},
        lines=tuple(lines),
        pragmas=tuple(pragmas),
        misplaced=tuple(misplaced),
    )


def _pragma(number: int, text: str) -> DialectPragma | None:
    match = _PRAGMA.match(text)
    if match is None:
        return None
    return DialectPragma(number, match.start(1), match.group(1), text)


def dialect_of(header: GameHeader, filename: str, explicit: str | None = None) -> str:
    """The dialect (its name, version included) a game is read in: `explicit` if given,
    else the header's pragma, else the file extension (`.xent` -> xent, anything else ->
    xgl).

    Raises UnknownNameError for an explicit name that is no dialect; an unknown name in a
    pragma is left to `header_diagnostics`."""
    if explicit is not None:
        chosen = known_dialect(explicit)
        if chosen is None:
            raise UnknownNameError(
                "dialect", explicit, DIALECT_NAMES,
                "Use --dialect xgl or --dialect xent (or a version such as xent@2025-09).",
            )
        return chosen
    return header.dialect or ("xent" if filename.lower().endswith(".xent") else "xgl")


def header_diagnostics(header: GameHeader, filename: str) -> list[Diagnostic]:
    """Problems with the header's pragmas: an unknown dialect name, two pragmas that
    disagree, and a pragma below the first instruction."""
    found: list[Diagnostic] = []
    for pragma in header.pragmas:
        if pragma.dialect is None:
            found.append(
                _at(
                    pragma,
                    filename,
                    f"Unknown dialect '{pragma.name}'.{did_you_mean(pragma.name, DIALECT_NAMES)}",
                    _PRAGMA_HINT,
                )
            )
    named = [p for p in header.pragmas if p.dialect is not None]
    for pragma in named[1:]:
        if pragma.dialect != named[0].dialect:
            found.append(
                _at(
                    pragma,
                    filename,
                    f"the header names two dialects: '{named[0].name}' on line "
                    f"{named[0].line} and '{pragma.name}' here",
                    "keep one '# dialect: ...' line",
                )
            )
    for pragma in header.misplaced:
        first_line = pragma.line
        found.append(
            Diagnostic(
                filename,
                first_line,
                0,
                max(1, len(pragma.text.rstrip())),
                "the dialect pragma must stand in the header (the comment lines above the "
                "first instruction); here it would be ignored",
                pragma.text,
                "move this line to the top of the file, above the first instruction",
            )
        )
    return found


def _at(pragma: DialectPragma, filename: str, message: str, hint: str) -> Diagnostic:
    end = max(pragma.col + len(pragma.name), pragma.col + 1)
    return Diagnostic(filename, pragma.line, pragma.col, end, message, pragma.text, hint)


def header_problems(header: GameHeader, active_roles: Iterable[str]) -> list[str]:
    """What the header lacks or gets wrong against the program (empty when fine)."""
    problems = []
    if not header.title:
        problems.append("no title line (a first comment line naming the game)")
    missing = [key for key in REQUIRED_KEYS if not header.get(key)]
    if missing:
        problems.append(
            "missing header line(s): " + ", ".join(f"# {key}: ..." for key in missing)
        )
    players = header.get("players")
    if players:
        absent = [role for role in active_roles if not re.search(rf"\b{role}\b", players)]
        if absent:
            problems.append(
                f"'# players:' does not mention active role(s) {', '.join(absent)}"
            )
    return problems
