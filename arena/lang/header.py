"""A game file's comment header: title line, then `# key: value` lines.

The bundled games follow one style (see `arena/games/*.xgl`): a title line, then
`measures`, `players`, `rounds`, `version`, `source` and optional `note` lines (a key may
repeat; its lines are joined). Two optional keys feed the checks: `well-posed: no` marks a
game that is ill-posed on purpose (the paradoxical game), and `judge:` says what judge the
game needs (e.g. "needs a strong judge").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

REQUIRED_KEYS = ("measures", "players", "rounds", "version", "source")
_KEY_LINE = re.compile(r"#\s*([A-Za-z][A-Za-z_-]*)\s*:\s?(.*)")


@dataclass(frozen=True)
class GameHeader:
    """The leading comment block of a game, parsed.

    Attributes:
        title: the first comment line that is not a `key: value` line.
        fields: key (lower case) -> its lines, in file order.
        lines: the raw header lines, without the leading '#'.
    """

    title: str = ""
    fields: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    lines: tuple[str, ...] = ()

    def get(self, key: str) -> str:
        """The value of `key` (its lines joined by a space), or ''."""
        return " ".join(self.fields.get(key, ())).strip()

    @property
    def notes(self) -> tuple[str, ...]:
        return self.fields.get("note", ())

    @property
    def declared_ill_posed(self) -> bool:
        """Whether the header says `well-posed: no` (the game is ill-posed on purpose)."""
        value = self.get("well-posed").lower()
        return value.startswith(("no", "false"))

    @property
    def needs_strong_judge(self) -> bool:
        return "strong" in self.get("judge").lower()


def read_header(source: str) -> GameHeader:
    """Parse the run of comment lines at the top of a game text."""
    title = ""
    fields: dict[str, list[str]] = {}
    lines: list[str] = []
    for raw in source.splitlines():
        stripped = raw.strip()
        if not stripped.startswith("#"):
            break
        lines.append(stripped.lstrip("#").strip())
        match = _KEY_LINE.fullmatch(stripped)
        if match:
            fields.setdefault(match.group(1).lower(), []).append(match.group(2).strip())
        elif not title:
            title = lines[-1]
    return GameHeader(
        title=title, fields={k: tuple(v) for k, v in fields.items()}, lines=tuple(lines)
    )


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
