"""Contracts are declared, not reached by side doors (issue 34 item 3): every
`typing.Protocol` a plugin or another wing implements lives in `arena/protocols/`. A
protocol defined anywhere else must be listed below with why it stays where it is, so a
new contract cannot appear outside the contracts package unnoticed."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WINGS = ("arena", "judges", "players", "tournaments", "dashboard")

# (module path, class): protocols outside arena/protocols/, each for a reason.
KEPT_WHERE_USED = {
    # types named by a wing's own signatures: arena/protocols/ may not import a wing
    ("tournaments/records/rating_store.py", "RatingSource"),  # yields the wing's RatingInputs
    ("tournaments/running/progress.py", "ProgressSink"),  # the engine's progress callbacks
    # structural types of one module's own arguments, implemented by nobody else
    ("tournaments/planning/match_order.py", "_Seat"),
    ("tournaments/planning/match_order.py", "Orderable"),
    ("tournaments/records/from_store.py", "Named"),
    ("tournaments/records/rating_store.py", "SpendSource"),  # load_costs: Store or ReadModel
    ("tournaments/records/kept_matches.py", "IncrementalSource"),  # KeptMatches: the same two
    ("judges/hf/encoded.py", "EncodingJudge"),  # the hf judge's batch planners' view of it
    ("arena/gamespace/transfer/oracle.py", "TransferOracle"),  # the game space's own seam
}


def protocols_outside() -> set[tuple[str, str]]:
    found = set()
    for wing in WINGS:
        for path in (REPO / wing).rglob("*.py"):
            rel = path.relative_to(REPO).as_posix()
            if rel.startswith("arena/protocols/") or "/build/" in rel or rel.startswith(
                    tuple(f"arena/{w}/" for w in WINGS[1:])):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and any(
                    (isinstance(b, ast.Name) and b.id == "Protocol")
                    or (isinstance(b, ast.Subscript) and isinstance(b.value, ast.Name)
                        and b.value.id == "Protocol")
                    or (isinstance(b, ast.Attribute) and b.attr == "Protocol")
                    for b in node.bases
                ):
                    found.add((rel, node.name))
    return found


def test_every_protocol_outside_the_contracts_package_is_listed_with_its_reason() -> None:
    found = protocols_outside()
    new = sorted(found - KEPT_WHERE_USED)
    assert not new, (
        f"protocols declared outside arena/protocols/: {new}; declare the contract in "
        "arena/protocols/ (or, if only its own module uses it, list it in KEPT_WHERE_USED)"
    )
    gone = sorted(KEPT_WHERE_USED - found)
    assert not gone, f"these are no longer protocols there; remove them from the list: {gone}"


def test_the_story_sources_per_map_contract_is_declared() -> None:
    """`for_map` was looked up by name (getattr); it is now a declared protocol."""
    prep = (REPO / "tournaments/running/executors/map_prep.py").read_text(encoding="utf-8")
    assert "MapBoundStorySource" in prep and '"for_map"' not in prep


def test_a_name_shared_by_store_and_read_model_means_one_thing() -> None:
    """`Store` and `ReadModel` share method names only where both call the same storage
    function (besides opening and closing their own database): `ReadModel.schedules` once
    returned the viewer's frame while `Store.schedules` returned records."""
    from arena.storage import Store
    from arena.storage.read_model import ReadModel

    def operations(cls: type) -> dict[str, object]:
        found: dict[str, object] = {}
        for klass in reversed(cls.__mro__):
            found.update({k: v for k, v in vars(klass).items() if not k.startswith("_")})
        return found

    store, reader = operations(Store), operations(ReadModel)
    differ = sorted(
        name for name in set(store) & set(reader) - {"open", "close"}
        if getattr(store[name], "_fn", store[name]) is not getattr(reader[name], "_fn",
                                                                    reader[name])
    )
    assert differ == [], f"names that call different functions on Store and ReadModel: {differ}"
    assert {"stored_matches", "tournament_names"} <= set(store) & set(reader)  # shared ones
