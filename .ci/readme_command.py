"""Print a command of the README's quick start, verbatim: `quick-start` (the first: install
and run the demo) or `test` (the second: install and run the tests). CI runs what this
prints, so the README cannot drift from what is checked."""

from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
WHICH = {"quick-start": 0, "test": 1}


def quick_start_commands(text: str) -> list[str]:
    """The fenced commands of the README's "Quick start" section, in order."""
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [b.strip() for b in re.findall(r"```(?:\w+)?\n(.*?)```", section, flags=re.S)]


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in WHICH:
        print(f"usage: readme_command.py {'|'.join(WHICH)}", file=sys.stderr)
        return 2
    print(quick_start_commands(README.read_text(encoding="utf-8"))[WHICH[argv[0]]])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
