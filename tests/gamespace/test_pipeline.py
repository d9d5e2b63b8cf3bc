"""The filter pipeline with the real n-gram judge: each stage drops what it should, with its
evidence, and the canonical form identifies games up to register and flag names."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from arena.gamespace.sampling.canonical import canonical_form, canonical_key
from arena.gamespace.sampling.lineage import read_lineage
from arena.gamespace.sampling.mutate import MutateSampler
from arena.gamespace.sampling.pipeline import STAGES, FilterPipeline, PipelineConfig, library_keys
from arena.lang.loader import load_game
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.protocols.sampler import ParentGame, Proposal

SIMPLEST = (Path(__file__).resolve().parents[2] / "arena" / "games" / "simplest_cut.xgl")
RENAMED = SIMPLEST.read_text().replace("s1", "x2").replace("s2", "y0").replace("t,", "p,")
RENAMED = RENAMED.replace("(t)", "(p)").replace("% t", "% p").replace("// t", "// p")


def test_canonical_form_ignores_register_and_flag_names_only() -> None:
    plain = load_game(SIMPLEST.read_text())
    assert canonical_key(load_game(RENAMED)) != canonical_key(plain)  # p is public: not a rename
    renamed = RENAMED.replace("p,", "t3,").replace("(p)", "(t3)").replace("% p", "% t3")
    renamed = renamed.replace("// p", "// t3")
    assert canonical_form(load_game(renamed)) == canonical_form(plain)
    with_black = SIMPLEST.read_text().replace("elicit(t,", "elicit(black, t,")
    assert canonical_key(load_game(with_black)) == canonical_key(plain)
    with_alice = SIMPLEST.read_text().replace("elicit(t,", "elicit(alice, t,")
    assert canonical_key(load_game(with_alice)) != canonical_key(plain)
    looped = "beacon(flag_2)\nelicit(t, 3)\nreplay(flag_2, 2)\nreward(xent(t))\n"
    assert canonical_key(load_game(looped)) == canonical_key(
        load_game(looped.replace("flag_2", "flag_1").replace("(t", "(s"))
    )
    assert canonical_key(load_game(looped.replace("flag_2, 2)", "flag_2, 3)"))) != canonical_key(
        load_game(looped)
    )


def test_every_bundled_game_has_its_own_canonical_form() -> None:
    registry = Registry.load()
    assert len(library_keys(registry)) == len(registry.game_names())


@pytest.fixture
async def judge() -> AsyncIterator[Judge]:
    made = Registry.load().create_judge("ngram")
    yield made
    await made.aclose()


def proposal(name: str, source: str) -> Proposal:
    return Proposal(name, source, name + ".xgl", "simplest_cut", "test", 0, 0, "hand")


async def test_each_stage_drops_what_it_should_and_keeps_evidence(judge: Judge) -> None:
    registry = Registry.load()
    config = PipelineConfig.for_rule("arms", maps=3, rounds=2)  # cheap: not about the rule
    pipeline = FilterPipeline(registry, judge, config)
    broken = await pipeline.run(proposal("broken", "elicit(t)\nreward(xent(t))\n"))
    assert [v.stage for v in broken.verdicts] == ["static"] and not broken.kept
    assert "maximum length" in broken.verdicts[0].evidence["diagnostics"][0]
    # A game every stage passes (an empty library), then a renamed copy: a duplicate.
    fresh = FilterPipeline(registry, judge, config, library={})
    # without the `# about:` line (an added line moves every story site, and the stages'
    # verdicts below were worked out on these stories)
    game = "".join(line for line in SIMPLEST.read_text().splitlines(keepends=True)
                   if not line.startswith("# about:"))
    first = await fresh.run(proposal("first", game))
    assert first.kept, [v.reason for v in first.verdicts]
    assert [v.stage for v in first.verdicts] == list(STAGES)
    assert first.verdicts[1].evidence["scores"]["black"][0] is not None
    assert len(first.verdicts[3].evidence["curve"]) == 2
    twin_text = game.replace("s1", "s0").replace("elicit(t,", "elicit(black, t,")
    twin = await fresh.run(proposal("first", twin_text))  # same name: same seeds
    assert twin.decided_by.stage == "dedup" and not twin.kept
    assert twin.decided_by.evidence == {"duplicate_of": "first"}
    assert twin.key == first.key
    # With the bundled library, the same game is not novel.
    same = await pipeline.run(proposal("first", twin_text))
    assert same.decided_by.stage == "novelty" and not same.kept
    assert same.decided_by.evidence == {"same_as": "simplest_cut"}


async def test_mutants_through_the_pipeline_record_a_verdict_per_stage_reached(
    judge: Judge,
) -> None:
    registry = Registry.load()
    parent = ParentGame("simplest_cut", "1", "simplest_cut.xgl", SIMPLEST.read_text())
    pipeline = FilterPipeline(registry, judge, PipelineConfig.for_rule("arms"))
    records = [await pipeline.run(p) for p in MutateSampler().propose(parent, 6, seed=0)]
    assert len(records) == 6
    for record in records:
        assert record.verdicts[0].stage == "static" and record.verdicts[0].passed
        stages = [v.stage for v in record.verdicts]
        assert stages == list(STAGES[: len(stages)])
        assert all(v.passed for v in record.verdicts[:-1])
        assert record.kept == (len(stages) == len(STAGES) and record.verdicts[-1].passed)
        assert read_lineage(record.proposal.source)["sampler"] == "mutate"


def test_generate_command_writes_kept_games_with_lineage_and_every_verdict(
    tmp_path: Path,
) -> None:
    import json
    import os
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    out = tmp_path / "gen"
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "games", "generate", "simplest_cut", "--sampler",
         "mutate", "-n", "5", "--seed", "0", "--out", str(out), "--judge", "ngram",
         "--fewshot", "arms"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads((out / "generation.json").read_text())
    assert doc["parent"]["name"] == "simplest_cut" and doc["params"]["judge"] == "ngram"
    candidates = doc["candidates"]
    assert len(candidates) == 5
    kept = [c for c in candidates if c["kept"]]
    assert sorted(p.name for p in out.glob("*.xgl")) == sorted(c["filename"] for c in kept)
    for cand in candidates:
        assert cand["name"] in done.stdout
        assert cand["verdicts"][0]["stage"] == "static"
    for path in out.glob("*.xgl"):
        lineage = read_lineage(path.read_text())
        assert lineage["parent"] == "simplest_cut v1" and lineage["sampler"] == "mutate"
        load_game(path.read_text(), filename=path.name)
    assert f"{len(kept)} of 5 candidate(s) kept" in done.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "arena.cli", "games", "generate", "simplest_cut", "--sampler",
         "mutant", "--out", str(tmp_path / "x"), "--judge", "ngram"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=300,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "mutant" in bad.stderr + bad.stdout and "mutate" in bad.stderr + bad.stdout
