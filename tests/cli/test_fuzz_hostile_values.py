"""Fuzzing the CLI and the tournament file with hostile values (issue 24): huge integers,
nan and inf, control characters, right-to-left marks, markup and lone surrogates. Every
one is a user error: exit 2, the problem in words, no traceback, nothing unprintable and,
for an option, one line. Bounded: few examples, in process (no subprocess per case)."""

from __future__ import annotations

import contextlib
import io
import json
import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.cli import build_app
from arena.cli.console import run_app

APP = build_app()
FUZZ = settings(
    max_examples=8, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

HUGE_INTS = st.sampled_from([10**12, 2**63 - 1, 10**30, -1, -(2**63)])
BAD_FLOATS = st.sampled_from([math.nan, math.inf, -math.inf, -1.0, 1e308])
HOSTILE_TEXT = st.one_of(
    st.sampled_from([
        "a\nb", "x\x00y", "\x1b[31mred\x1b[0m", "ok\u202eevil", "<script>alert(1)</script>",
        "\ud800", "a\udfffb", "", " ", "\u200f", "é" * 300,
    ]),
    st.text(
        alphabet=st.characters(codec=None, categories=("Cc", "Cf", "Cs", "Zl", "Zp", "Sm")),
        min_size=1, max_size=12,
    ),
)


def arena(*argv: str) -> tuple[int, str]:
    """(exit status, stderr) of `arena ARGV` run in this process."""
    err = io.StringIO()
    code = 0
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            run_app(APP, list(argv))
        except SystemExit as done:
            code = int(done.code or 0)
    return code, err.getvalue()


def assert_user_error(code: int, err: str, *, one_line: bool) -> None:
    """Exit 2, printable, no traceback; `one_line`: one "error: ..." line, or typer's
    usage box (a malformed option value, answered while the arguments are parsed)."""
    assert code == 2, err
    assert "Traceback" not in err
    shown = err.strip()
    assert shown, "no message"
    assert all(ch in "\n\t" or ch.isprintable() for ch in shown), ascii(shown)
    if one_line and not shown.startswith("Usage:"):
        assert shown.startswith("error: ") and len(shown.splitlines()) == 1, shown


@pytest.fixture(autouse=True)
def isolated_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XENT_ARENA_DB", f"sqlite:///{tmp_path / 'arena.db'}")
    monkeypatch.setenv("XENT_ARENA_LOG_DIR", str(tmp_path / "logs"))


@settings(FUZZ, max_examples=6)
@given(value=st.one_of(HUGE_INTS.map(str), BAD_FLOATS.map(str), HOSTILE_TEXT))
def test_hostile_option_values(value: str) -> None:
    for argv in (
        ["scores", "-t", "t", "--theta", value],
        ["games", "playability", "condense", "--epsilon", value, "--maps", "1"],
        ["play", "condense", "-p", f"black=random?words={value}"],
    ):
        code, err = arena(*argv)
        assert_user_error(code, err, one_line=True)


@FUZZ
@given(role=HOSTILE_TEXT)
def test_a_hostile_main_role(role: str) -> None:
    code, err = arena("play", "condense", "--judge", "ngram", "-p", "black=random",
                      "--main", role)
    assert_user_error(code, err, one_line=True)


def toml_value(value: object) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") \
            if math.isinf(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    return json.dumps(value)  # JSON escapes are TOML escapes; a lone surrogate is refused


FIELDS = {
    "maps": st.one_of(HUGE_INTS, BAD_FLOATS),
    "rounds": st.one_of(HUGE_INTS, BAD_FLOATS),
    "move_timeout": BAD_FLOATS,
    "name": HOSTILE_TEXT,
    "seed": st.sampled_from([10**30, math.nan]),
}
GAME_FIELDS = {"maps": HUGE_INTS, "name": HOSTILE_TEXT, "max_matches": HUGE_INTS}
PARTICIPANT_FIELDS = {"name": HOSTILE_TEXT, "player": HOSTILE_TEXT.map(lambda t: f"random?words={t}")}


@settings(FUZZ, max_examples=20)
@given(
    where=st.sampled_from(["top", "game", "participant", "limits"]),
    field=st.data(),
)
def test_hostile_tournament_file_fields(where: str, field: st.DataObject) -> None:
    top: dict[str, object] = {"name": "fuzz"}
    game: dict[str, object] = {"game": "condense"}
    person: dict[str, object] = {"name": "a", "player": "random"}
    limits: dict[str, object] = {}
    if where == "top":
        key = field.draw(st.sampled_from(sorted(FIELDS)))
        top[key] = field.draw(FIELDS[key])
    elif where == "game":
        key = field.draw(st.sampled_from(sorted(GAME_FIELDS)))
        game[key] = field.draw(GAME_FIELDS[key])
    elif where == "participant":
        key = field.draw(st.sampled_from(sorted(PARTICIPANT_FIELDS)))
        person[key] = field.draw(PARTICIPANT_FIELDS[key])
    else:
        key = "max_value_chars"
        limits[key] = field.draw(st.one_of(BAD_FLOATS, st.sampled_from([0, -1, 10**30])))
    lines = [f"{k} = {toml_value(v)}" for k, v in top.items()]
    if limits:
        lines += ["[limits]", *(f"{k} = {toml_value(v)}" for k, v in limits.items())]
    lines += ["[[participants]]", *(f"{k} = {toml_value(v)}" for k, v in person.items())]
    lines += ["[[games]]", *(f"{k} = {toml_value(v)}" for k, v in game.items())]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.toml"
        path.write_bytes("\n".join(lines).encode("utf-8", "surrogatepass"))
        code, err = arena("run", str(path), "--db", f"sqlite:///{folder}/a.db")
        assert_user_error(code, err, one_line=False)
        assert not (Path(folder) / "a.db").exists()
