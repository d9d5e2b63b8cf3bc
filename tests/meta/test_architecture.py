"""Project-wide rules: the import graph of DESIGN.md, and no code execution of game text."""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("arena", "judges", "players", "tournaments", "dashboard")
ALLOWED = {
    "arena": set(),
    "judges": {"arena"},
    "players": {"arena"},
    "tournaments": {"arena"},
    "dashboard": {"arena", "tournaments"},
}


# The wings kept as top-level folders and installed under the one import root `arena`
# (arena/<wing> links to <wing>/): `arena.judges.pool` is in the judges wing.
WINGS = ("judges", "players", "tournaments", "dashboard")


def python_files(package: str) -> list[Path]:
    """The package's own files (for `arena`, without the linked wings)."""
    return sorted(
        path
        for path in (REPO / package).rglob("*.py")
        if package != "arena" or path.relative_to(REPO / "arena").parts[0] not in WINGS
    )


def wing_of(module: str) -> str:
    """`arena.judges.pool` -> "judges"; `arena.lang.parser` -> "arena"; `numpy` -> "numpy"."""
    parts = module.split(".")
    if parts[0] == "arena" and len(parts) > 1 and parts[1] in WINGS:
        return parts[1]
    return parts[0]


def absolute_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def imported_packages(path: Path) -> set[str]:
    return {wing_of(name) for name in absolute_imports(path)} & set(PACKAGES)


@pytest.mark.parametrize("package", [*PACKAGES, "tests", "benchmarks", "plugins"])
def test_one_import_root(package: str) -> None:
    """The wings are imported as `arena.<wing>`; their folder names are not import roots."""
    offenders = [
        f"{path.relative_to(REPO)} imports {name}"
        for path in sorted((REPO / package).rglob("*.py"))
        if "build" not in path.relative_to(REPO).parts
        for name in sorted(absolute_imports(path))
        if name.split(".")[0] in WINGS
    ]
    assert not offenders, f"import the wings through `arena`: {offenders}"


@pytest.mark.parametrize("package", PACKAGES)
def test_import_rule(package: str) -> None:
    violations = {
        str(path.relative_to(REPO)): sorted(imported_packages(path) - ALLOWED[package] - {package})
        for path in python_files(package)
    }
    violations = {k: v for k, v in violations.items() if v}
    assert not violations, f"{package} may import only {sorted(ALLOWED[package])}: {violations}"


CODE_EXECUTION = re.compile(r"(?<![\w.])(eval|exec|compile)\s*\(|literal_eval|__import__\s*\(")


@pytest.mark.parametrize("package", PACKAGES)
def test_no_eval_exec_or_compile(package: str) -> None:
    offenders = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in python_files(package)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if CODE_EXECUTION.search(line) and not line.lstrip().startswith("#")
    ]
    assert not offenders, "game text must never reach Python's evaluator:\n" + "\n".join(offenders)


def test_the_grep_would_catch_an_eval() -> None:
    assert CODE_EXECUTION.search("value = eval(text)")
    assert CODE_EXECUTION.search("exec (code)")
    assert CODE_EXECUTION.search("compile(source, 'f', 'exec')")
    assert not CODE_EXECUTION.search("re.compile(pattern)")  # regex compilation is fine


# --- layers: one total order inside arena/, and inside the judges, players, tournaments and
# dashboard wings ---
#
# Each list is lowest layer first; a module may import its own layer or a lower one, never a
# higher one (imports inside functions count: a lazy import is still an arrow). A module is in
# the layer of the longest name below that covers it; every module must be covered, so a new
# module is placed on purpose. docs/architecture.md draws these orders.

Layers = list[tuple[str, tuple[str, ...]]]

ARENA_LAYERS: Layers = [
    ("foundation", (
        "arena.redaction", "arena.errors", "arena.events", "arena.specs", "arena.spec_params",
        "arena.scoring", "arena.noise", "arena.interrupts", "arena.least_busy",
        "arena.transcript", "arena.listing", "arena.file_input", "arena.heat_scale",
    )),
    ("contracts", ("arena.protocols",)),
    ("language", ("arena.lang",)),
    ("runtime", ("arena.runtime",)),
    ("storage", ("arena.storage",)),
    ("plugin system", (
        "arena.plugins",
        "arena.games", "arena.__init__",
    )),
    # the executor contract names the store and the registry (its tournament and summary
    # are the tournaments wing's, type parameters)
    ("match setup", ("arena.match_setup", "arena.testing", "arena.protocols.executor")),
    ("analysis", ("arena.analysis",)),
    # the game space's sub-wings: scope growth asks the transfer oracle about sampled games;
    # transfer measures a game in its canonical form (sampling.canonical), never the reverse
    ("game space: sampling", ("arena.gamespace.__init__", "arena.gamespace.sampling")),
    ("game space: transfer", ("arena.gamespace.transfer",)),
    ("game space: scope", ("arena.gamespace.scope",)),
    ("cli", ("arena.cli", "arena.__main__")),
]

JUDGES_LAYERS: Layers = [
    ("n-gram", ("arena.judges.__init__", "arena.judges.ngram")),  # torch-free, stands alone
    ("hf", ("arena.judges.hf",)),  # transformers; tokens, encoding and batch plans
    ("remote", ("arena.judges.remote",)),  # HTTP client and server (client: hf.tokens)
    ("pool", ("arena.judges.pool",)),  # batches many matches' requests onto any judge
    ("plugin", ("arena.judges.plugin",)),  # registers them all (lazy imports)
]

PLAYERS_LAYERS: Layers = [
    # what players are made of: prompts, reply parsing, sampling, the remote wire format
    ("parts", (
        "arena.players.__init__", "arena.players.llm.__init__", "arena.players.llm.prompting",
        "arena.players.llm.reply_parsing", "arena.players.llm.xent_benchmark_prompt",
        "arena.players.local.host_sampling", "arena.players.remote.__init__",
        "arena.players.remote.protocol", "arena.players.remote.server",
    )),
    ("players", (  # one player kind each (llm, local models and programs, remote, people)
        "arena.players.llm.player", "arena.players.local", "arena.players.remote.player",
        "arena.players.people",
    )),
    # built from players: the game space's LLM story sampler, the fine-tuner of the hf player
    ("built on players", ("arena.players.llm.sampler", "arena.players.finetune")),
    ("plugin", ("arena.players.plugin",)),  # registers them all (lazy imports)
]

TOURNAMENTS_LAYERS: Layers = [  # a folder per layer (issue 34), the CLI's modules on top
    ("planning", ("arena.tournaments.__init__", "arena.tournaments.planning")),
    ("ratings", ("arena.tournaments.ratings",)),  # pure functions (see below)
    ("records", ("arena.tournaments.records",)),
    ("running", ("arena.tournaments.running",)),
    ("services", (
        "arena.tournaments.services",
        "arena.tournaments.play",  # the play wing: a front end of runs like any other
    )),
    ("cli", (
        "arena.tournaments.cli", "arena.tournaments.demo",
        "arena.tournaments.play.cli", "arena.tournaments.play.__main__",
        "arena.tournaments.services.recurring.cli", "arena.tournaments.plugin",
    )),
]

DASHBOARD_LAYERS: Layers = [
    ("base", (
        "arena.dashboard.__init__", "arena.dashboard.filters",
        "arena.dashboard.reading", "arena.dashboard.seatview", "arena.dashboard.charts",
        "arena.dashboard.arms_table", "arena.dashboard.tables", "arena.dashboard.play_link",
    )),
    ("data", (
        "arena.dashboard.context", "arena.dashboard.data", "arena.dashboard.transcript_frames",
        "arena.dashboard.pair_charts", "arena.dashboard.participant_charts",
    )),
    ("models", (
        "arena.dashboard.derived", "arena.dashboard.cache", "arena.dashboard.live_board",
        "arena.dashboard.ui", "arena.dashboard.board", "arena.dashboard.following",
    )),
    ("pages", ("arena.dashboard.views",)),
    ("app", ("arena.dashboard.app",)),
]

# Arrows that go up today, each with why; the test fails when one is gone (delete it here).
# None today: the last ones (a FineTuneRequest that carried a loaded game and a registry) went
# when the request became plain data (tests/meta/test_contracts.py keeps every contract so).
KNOWN_UPWARD: set[tuple[str, str]] = set()


def imported_modules(path: Path) -> set[str]:
    """Every module named by an absolute import in `path` (also inside functions);
    `from arena import events` names the module `arena.events`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if is_module(sub) else node.module)
    return found


def source_of(module: str) -> Path:
    """The folder or file (without .py) of an `arena...` module name, wings followed."""
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in WINGS:
        return REPO.joinpath(*parts[1:])
    return REPO.joinpath(*parts)


def is_module(name: str) -> bool:
    if not name.startswith("arena"):
        return False
    base = source_of(name)
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def module_of(path: Path) -> str:
    """`arena/lang/parser.py` -> arena.lang.parser; `judges/ngram.py` -> arena.judges.ngram;
    a package's `__init__.py` keeps `__init__` (its own room: the façade is not its folder)."""
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts if parts[0] == "arena" else ("arena", *parts))


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def layer_of(module: str, layers: Layers) -> int | None:
    """The index of the layer whose longest name covers `module` (None: not covered)."""
    best: tuple[int, int] | None = None
    for index, (_, names) in enumerate(layers):
        for name in names:
            if within(module, name) and (best is None or len(name) > best[0]):
                best = (len(name), index)
    return None if best is None else best[1]


def target_layer(imported: str, layers: Layers) -> int | None:
    """The layer of an imported module; a package's name alone means its `__init__`."""
    if is_module(imported) and (source_of(imported) / "__init__.py").is_file():
        own = layer_of(imported + ".__init__", layers)
        if own is not None:
            return own
    return layer_of(imported, layers)


def layer_violations(files: list[Path], layers: Layers) -> list[str]:
    """`importer -> imported (layer -> higher layer)` for every upward arrow among `files`,
    and `module: in no layer` for a module the layers do not cover."""
    found = []
    for path in files:
        module = module_of(path)
        own = layer_of(module, layers)
        if own is None:
            found.append(f"{module}: in no layer")
            continue
        for name in sorted(imported_modules(path)):
            other = target_layer(name, layers)
            if other is not None and other > own:
                found.append(f"{module} -> {name} ({layers[own][0]} -> {layers[other][0]})")
    return found


def known(violation: str) -> bool:
    return any(violation.startswith(f"{a} -> {b} ") for a, b in KNOWN_UPWARD)


WING_LAYERS = {"arena": ARENA_LAYERS, "judges": JUDGES_LAYERS, "players": PLAYERS_LAYERS,
               "tournaments": TOURNAMENTS_LAYERS, "dashboard": DASHBOARD_LAYERS}


@pytest.mark.parametrize("package", sorted(WING_LAYERS))
def test_layer_order(package: str) -> None:
    files = [p for p in python_files(package) if "build" not in p.relative_to(REPO).parts]
    found = [v for v in layer_violations(files, WING_LAYERS[package]) if not known(v)]
    assert not found, f"{package}: a module imports a higher layer:\n" + "\n".join(found)


def test_known_upward_arrows_still_exist() -> None:
    found = layer_violations(python_files("arena"), ARENA_LAYERS)
    gone = [pair for pair in KNOWN_UPWARD if not any(known_one(v, pair) for v in found)]
    assert not gone, f"these arrows are gone; remove them from KNOWN_UPWARD: {gone}"


def known_one(violation: str, pair: tuple[str, str]) -> bool:
    return violation.startswith(f"{pair[0]} -> {pair[1]} ")


def test_the_layer_check_catches_a_violation(tmp_path: Path) -> None:
    """A lazy import of the CLI from the language, and a module in no layer, are caught."""
    lang = tmp_path / "arena" / "lang" / "bad.py"
    lang.parent.mkdir(parents=True)
    lang.write_text("def f():\n    from arena.cli.commands.play import app\n", encoding="utf-8")
    stray = tmp_path / "arena" / "stray.py"
    stray.write_text("from arena import errors\n", encoding="utf-8")
    global REPO
    saved, REPO = REPO, tmp_path
    try:
        (tmp_path / "arena" / "cli" / "commands").mkdir(parents=True)
        (tmp_path / "arena" / "cli" / "commands" / "play.py").write_text("", encoding="utf-8")
        found = layer_violations([lang, stray], ARENA_LAYERS)
    finally:
        REPO = saved
    assert found == [
        "arena.lang.bad -> arena.cli.commands.play (language -> cli)",
        "arena.stray: in no layer",
    ]
    assert layer_of("arena.runtimes", ARENA_LAYERS) is None  # a prefix is not a package
    assert layer_of("arena.tournaments.services.recurring.cli", TOURNAMENTS_LAYERS) == 5  # longest


def test_the_sub_wing_orders_catch_a_back_arrow(tmp_path: Path) -> None:
    """The hf judge may not reach up to the pool, nor sampling up to scope growth."""
    hf = tmp_path / "judges" / "hf" / "bad.py"
    sampling = tmp_path / "arena" / "gamespace" / "sampling" / "bad.py"
    for path, line in ((hf, "from arena.judges.pool.judge_pool import JudgePool\n"),
                       (sampling, "def f():\n    from arena.gamespace.scope.growth import x\n")):
        path.parent.mkdir(parents=True)
        path.write_text(line, encoding="utf-8")
    global REPO
    saved, REPO = REPO, tmp_path
    try:
        found = layer_violations([hf], JUDGES_LAYERS) + layer_violations([sampling], ARENA_LAYERS)
    finally:
        REPO = saved
    assert found == [
        "arena.judges.hf.bad -> arena.judges.pool.judge_pool (hf -> pool)",
        "arena.gamespace.sampling.bad -> arena.gamespace.scope.growth"
        " (game space: sampling -> game space: scope)",
    ]


def test_ratings_are_pure_functions() -> None:
    """ratings/ reads and writes nothing: no SQL library, no storage query (the snapshot draws'
    codec is pure), no exchange, no records reader."""
    allowed_storage = {"arena.storage.snapshot_draws"}
    offenders = [
        f"{module_of(path)} imports {name}"
        for path in sorted((REPO / "tournaments" / "ratings").rglob("*.py"))
        for name in sorted(imported_modules(path))
        if name.split(".")[0] in SQL_LIBRARIES
        or (within(name, "arena.storage") and name not in allowed_storage)
    ]
    assert not offenders, f"ratings/ must stay pure: {offenders}"


SQL_LIBRARIES = {"sqlalchemy", "sqlmodel", "sqlite3", "psycopg", "psycopg2"}


def test_only_storage_touches_sql_inside_arena() -> None:
    offenders = [
        f"{module_of(path)} imports {name}"
        for path in python_files("arena")
        if not within(module_of(path), "arena.storage")
        for name in sorted(imported_modules(path))
        if name.split(".")[0] in SQL_LIBRARIES
    ]
    assert not offenders, f"only arena.storage may use SQL libraries: {offenders}"


def test_the_example_plugins_import_only_the_facade() -> None:
    """A plugin needs `arena` (the façade) and nothing deeper; its own modules are its own."""
    plugins = sorted((REPO / "plugins").glob("*/*/*.py")) + sorted(
        (REPO / "plugins").glob("*/tests/*.py")
    )
    assert plugins, "the example plugins are missing"
    offenders = [
        f"{path.relative_to(REPO)} imports {name}"
        for path in plugins
        for name in sorted(imported_modules(path))
        if (within(name, "arena") and name not in ("arena", "arena.testing"))
        or name.split(".")[0] in {"judges", "players", "tournaments", "dashboard"}
    ]
    assert not offenders, f"plugins may import only `arena` and `arena.testing`: {offenders}"


def test_the_layer_check_would_catch_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from arena.runtime.match import play_match\n", encoding="utf-8")
    assert "arena.runtime.match" in imported_modules(bad)
    assert within("arena.runtime.match", "arena.runtime")
    assert not within("arena.runtimes", "arena.runtime")


# --- the map a newcomer reads: docs/architecture.md's layer tables, drawn from the lists
# above and the files on disk, so the document cannot drift from the code (issue 34).

DOC = REPO / "docs" / "architecture.md"
MAP_BEGIN = "<!-- layers: drawn by tests/meta/test_architecture.py (--write); do not edit -->"
MAP_END = "<!-- /layers -->"


def _short(name: str, wing: str) -> str:
    """`arena.tournaments.running` -> running/; `arena.lang` -> lang/ (a folder) or the
    module's name (`arena.errors` -> errors)."""
    prefix = "arena." if wing == "arena" else f"arena.{wing}."
    rest = name.removeprefix(prefix)
    folder = REPO / (wing if wing != "arena" else "arena") / Path(*rest.split("."))
    return f"{rest.replace('.', '/')}/" if folder.is_dir() else rest.replace(".", "/")


def layer_map() -> str:
    """Every wing's layers, lowest first, with what each covers and how many modules."""
    lines = [MAP_BEGIN, ""]
    for wing, layers in WING_LAYERS.items():
        counts: dict[int, int] = defaultdict(int)
        for path in python_files(wing):
            if "build" in path.relative_to(REPO).parts:
                continue
            index = layer_of(module_of(path), layers)
            if index is not None:
                counts[index] += 1
        lines += [f"`{wing}/` ({sum(counts.values())} modules)", "",
                  "| # | layer | holds | modules |", "|---|---|---|---|"]
        for i, (name, names) in enumerate(layers):
            holds = ", ".join(f"`{_short(n, wing)}`" for n in names)
            lines.append(f"| {i + 1} | {name} | {holds} | {counts[i]} |")
        lines.append("")
    return "\n".join([*lines, MAP_END])


def documented_map() -> str | None:
    text = DOC.read_text(encoding="utf-8")
    start, end = text.find(MAP_BEGIN), text.find(MAP_END)
    return None if start < 0 or end < 0 else text[start : end + len(MAP_END)]


def test_the_architecture_doc_draws_the_layers_as_the_code_has_them() -> None:
    assert documented_map() == layer_map(), (
        "docs/architecture.md's layer tables differ from the code's layers; redraw them: "
        "python tests/meta/test_architecture.py --write"
    )


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    current = documented_map()
    text = DOC.read_text(encoding="utf-8")
    if current is None:
        raise SystemExit(f"{DOC}: add the two marker lines {MAP_BEGIN!r} and {MAP_END!r}")
    DOC.write_text(text.replace(current, layer_map()), encoding="utf-8")
