"""The `llm` meta-sampler end to end against the loopback OpenAI-compatible server (real
HTTP, real litellm, real checker): valid first time, repaired after the checker's caret
diagnostics, hopeless after exactly repairs + 1 attempts, hostile replies, the CLI."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlencode

import pytest

from arena.cli.commands.plugins import spec_docs
from arena.errors import ConfigError
from arena.gamespace.sampling.lineage import read_lineage
from arena.gamespace.sampling.llm_prompt import KEPT_CHARS, extract_game, xgl_reference
from arena.gamespace.sampling.llm_sampler import LLMSampler
from arena.gamespace.sampling.pipeline import GAVE_UP, FilterPipeline, PipelineConfig
from arena.lang.loader import load_game
from arena.plugins.registry import Registry
from arena.protocols.sampler import ParentGame, Proposal
from tests.support.openai_compat_server import ServerState, key_fingerprint, start_server

pytestmark = pytest.mark.llm

REPO = Path(__file__).resolve().parents[2]
SIMPLEST = REPO / "arena" / "games" / "simplest_cut.xgl"
PARENT = ParentGame("simplest_cut", "1", "simplest_cut.xgl", SIMPLEST.read_text())
FAST = {"backoff": "0.001", "backoff_max": "0.005", "timeout": "10"}
VALID = (
    "# Longer cut\n# measures: a simple cut with a longer move\n"
    "assign(s=story())\nelicit(t, 12)\nassign(s1=s // t, s2=s % t)\n"
    "reward(xed(s1 | s2) - xent(t))\n"
)
INVALID = VALID.replace("elicit(t, 12)", "elicit(q, 12)")  # q is no register
OTHER = VALID.replace("elicit(t, 12)", "elicit(t, 6)").replace("Longer", "Shorter")


def fenced(code: str, label: str = "xgl") -> str:
    return f"Here is a variant.\n\n```{label}\n{code}```\nIt changes the move length."


@pytest.fixture
async def server() -> AsyncIterator[tuple[ServerState, str]]:
    state = ServerState(default={"reply": fenced(INVALID)})
    async with start_server(state=state) as url:
        yield state, url


def make(url: str, **params: str) -> LLMSampler:
    query = urlencode({"api_base": url, **FAST, **params})
    sampler = Registry.load().create_sampler(f"llm:openai/test-model?{query}")
    assert isinstance(sampler, LLMSampler)
    return sampler


async def propose(sampler: LLMSampler, count: int = 1, seed: int = 0) -> list[Proposal]:
    # The sampler blocks on its model calls: off the loop that serves the test server.
    return await asyncio.to_thread(lambda: list(sampler.propose(PARENT, count, seed)))


async def test_a_valid_game_first_time(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.script([{"reply": fenced(VALID)}])
    (made,) = await propose(make(url))
    assert len(state.requests) == 1
    messages = state.requests[0].body["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    assert xgl_reference().splitlines()[0] in messages[0]["content"]
    assert PARENT.source.rstrip() in messages[1]["content"]  # the parent, verbatim
    assert messages[1]["content"].count("Example game `") == 2  # two library games
    assert messages[1]["content"].endswith("in one ```xgl fenced block.")
    assert made.extra["outcome"] == "valid" and made.rejected == 0
    assert made.operator == "first try" and GAVE_UP not in made.extra
    load_game(made.source, filename=made.filename)
    assert made.source.startswith("# Longer cut\n# measures: a simple cut")
    lineage = read_lineage(made.source)
    assert lineage["model"] == "openai/test-model" and lineage["attempts"] == "1"
    assert lineage["parent"] == "simplest_cut v1" and lineage["sampler"].startswith("llm:")
    (attempt,) = made.extra["attempts"]  # type: ignore[misc]
    assert attempt["valid"] and attempt["reply"] == fenced(VALID)
    assert attempt["prompt_tokens"] > 100 and attempt["completion_tokens"] == len(
        fenced(VALID).split()
    )
    assert attempt["cost_usd"] is None and made.extra["cost_usd"] is None  # no known price
    assert [m["role"] for m in attempt["sent"]] == ["system", "user"]


async def test_litellms_price_is_recorded_when_it_knows_the_model(
    server: tuple[ServerState, str],
) -> None:
    state, url = server
    state.script([{"reply": fenced(INVALID)}, {"reply": fenced(VALID)}])
    query = urlencode({"api_base": url, **FAST})
    sampler = Registry.load().create_sampler(f"llm:openai/gpt-4o-mini?{query}")
    assert isinstance(sampler, LLMSampler)
    (made,) = await propose(sampler)
    costs = [a["cost_usd"] for a in made.extra["attempts"]]  # type: ignore[attr-defined]
    assert all(isinstance(c, float) and c > 0 for c in costs)
    assert made.extra["cost_usd"] == pytest.approx(sum(costs))


async def test_an_invalid_game_is_repaired_with_the_checkers_carets(
    server: tuple[ServerState, str],
) -> None:
    state, url = server
    state.script([{"reply": fenced(INVALID)}, {"reply": fenced(VALID)}])
    (made,) = await propose(make(url))
    assert len(state.requests) == 2
    follow_up = state.requests[1].body["messages"]
    assert [m["role"] for m in follow_up] == ["system", "user", "assistant", "user"]
    assert follow_up[2]["content"] == fenced(INVALID)
    repair = follow_up[3]["content"]
    assert "simplest_cut-llm-s0-0.xgl:4:8: error: Unknown register 'q'" in repair
    assert "    elicit(q, 12)\n           ^\n" in repair  # the caret under the bad register
    assert made.extra["outcome"] == "repaired" and made.extra["repairs_used"] == 1
    assert made.rejected == 1 and made.operator == "repaired after 1"
    assert read_lineage(made.source)["attempts"] == "2"
    first, second = made.extra["attempts"]  # type: ignore[misc]
    assert not first["valid"] and "Unknown register 'q'" in first["problems"][0]
    assert second["valid"] and [m["role"] for m in second["sent"]] == ["assistant", "user"]


async def test_hopeless_after_exactly_repairs_plus_one_attempts(
    server: tuple[ServerState, str],
) -> None:
    state, url = server
    (made,) = await propose(make(url, repairs="2"))
    assert len(state.requests) == 3
    assert made.extra["outcome"] == "hopeless" and len(made.extra["attempts"]) == 3  # type: ignore[arg-type]
    reason = made.extra[GAVE_UP]
    assert isinstance(reason, str) and reason.startswith("hopeless: the checker rejected all 3")
    assert "Unknown register 'q'" in reason
    judge = Registry.load().create_judge("ngram")
    try:
        config = PipelineConfig.for_rule("arms")  # cheap: the test is about the sampler
        record = await FilterPipeline(Registry.load(), judge, config).run(made)
    finally:
        await judge.aclose()
    assert not record.kept and record.decided_by.stage == "sampler"
    assert record.decided_by.reason == reason
    assert record.to_dict()["extra"]["outcome"] == "hopeless"


async def test_hostile_replies_are_bounded_and_never_executed(
    server: tuple[ServerState, str], tmp_path: Path
) -> None:
    state, url = server
    marker = tmp_path / "executed"
    python = (
        f"import os\nassign(s=__import__('os').system('touch {marker}'))\n"
        f"exec(\"open('{marker}', 'w')\")\n"
    )
    huge = "x" * 5_000_000
    state.script([{"reply": huge}, {"reply": fenced(python, "python")}])
    (made,) = await propose(make(url, repairs="1"))
    assert not marker.exists()
    assert len(state.requests) == 2
    sent_back = state.requests[1].body["messages"][2]["content"]
    assert len(sent_back) < KEPT_CHARS + 100  # the 5 MB reply is clipped, not echoed
    assert "5,000,000 characters long and was not read" in state.requests[1].body["messages"][3][
        "content"
    ]
    first, second = made.extra["attempts"]  # type: ignore[misc]
    assert first["reply_chars"] == 5_000_000 and len(first["reply"]) < KEPT_CHARS + 100
    assert any("imports are not allowed" in p for p in second["problems"])
    assert any("dunder names" in p for p in second["problems"])
    assert made.extra["outcome"] == "hopeless"
    assert len(json.dumps(made.extra)) < 200_000


async def test_failed_model_calls_are_recorded_and_a_permanent_one_stops_the_run(
    server: tuple[ServerState, str],
) -> None:
    state, url = server
    state.script([{"status": 503}, {"status": 503}, {"reply": fenced(VALID)}, {"status": 401}])
    first, second, third = await propose(make(url, retries="1"), count=5)
    assert first.extra["outcome"] == "hopeless"
    (failed,) = first.extra["attempts"]  # type: ignore[misc]
    assert "The llm sampler's model" in failed["error"] and "after 2 attempts" in failed["error"]
    assert str(first.extra[GAVE_UP]).startswith("the model call failed: ")
    assert second.extra["outcome"] == "valid"  # a transient failure spoils one candidate only
    assert "will not retry" in str(third.extra[GAVE_UP])  # 401: no more candidates asked
    assert len(state.requests) == 4


def test_extraction_prefers_the_last_xgl_block_and_falls_back_to_the_text() -> None:
    two = f"```python\nprint(1)\n```\n```xgl\n{OTHER}```\n```xgl\n{VALID}```\n```\nnote\n```"
    assert extract_game(two) == VALID
    assert extract_game("```\nelicit(t, 3)\n```") == "elicit(t, 3)\n"
    assert extract_game(f"```xent\n{VALID}") == VALID  # cut off at the token limit
    assert extract_game(VALID) == VALID


async def test_a_local_hf_model_is_asked_too() -> None:
    sampler = Registry.load().create_sampler("llm:hf:bundled?repairs=0&max_tokens=8")
    assert isinstance(sampler, LLMSampler)
    (made,) = await propose(sampler)
    (attempt,) = made.extra["attempts"]  # type: ignore[misc]
    assert attempt["prompt_tokens"] > 100 and 1 <= attempt["completion_tokens"] <= 8
    assert attempt["cost_usd"] is None and isinstance(attempt["reply"], str)
    assert made.extra["model"] == "hf:bundled"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("llm:openai/x?colour=1", "Unknown parameter 'colour' for sampler"),
        ("llm:openai/x?repairs=-1", "Parameter 'repairs' of 'llm:openai/x?repairs=-1' must be >= 0"),
        ("llm", "needs a ':' argument"),
        ("llm:hf:bundled?api_base=http://x", "applies to litellm models only"),
        ("llm:openai/x?device=cuda", "applies to hf: models only"),
        ("llm:openai/x?api_key_env=ARENA_NO_SUCH_VARIABLE", "which is not set"),
    ],
)
def test_bad_specs_are_one_sentence(spec: str, expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Registry.load().create_sampler(spec)
    assert expected in str(caught.value)
    assert "\n" not in str(caught.value)


async def run_cli(*args: str, env: dict[str, str]) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "arena.cli", "games", "generate", *args, cwd=REPO, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=300)
    return process.returncode or 0, out.decode(), err.decode()


async def test_generate_command_records_prompts_replies_costs_and_no_key(
    server: tuple[ServerState, str], tmp_path: Path
) -> None:
    state, url = server
    key = "sk-arena-test-0123456789abcdef"
    env = {**os.environ, "PYTHONPATH": str(REPO), "ARENA_TEST_LLM_KEY": key, "COLUMNS": "200"}
    state.script([
        {"status": 500, "echo_auth": True},  # a careless server echoing the key in an error
        {"reply": fenced(VALID)},  # candidate 0: valid first time
        {"reply": fenced(INVALID)}, {"reply": fenced(OTHER)},  # candidate 1: repaired
        # candidate 2: hopeless (the default reply is invalid)
    ])
    query = urlencode({"api_base": url, **FAST, "retries": "1", "repairs": "1",
                       "api_key_env": "ARENA_TEST_LLM_KEY"})
    spec = f"llm:openai/test-model?{query}"
    out = tmp_path / "gen"
    code, stdout, stderr = await run_cli(
        "simplest_cut", "--sampler", spec, "-n", "3", "--out", str(out), "--judge", "ngram",
        "--fewshot", "arms", "--maps", "1", "--rounds", "2", env=env,
    )
    assert code == 0, stderr
    assert len(state.requests) == 6
    assert {r.key_fingerprint for r in state.requests} == {key_fingerprint(key)}
    names = [f"simplest_cut-llm-s0-{i}" for i in range(3)]
    for name, operator in zip(names, ("first try", "repaired after 1", "hopeless after 2"),
                              strict=True):
        line = next(line for line in stdout.splitlines() if name in line)
        assert operator in line
    hopeless_line = next(line for line in stdout.splitlines() if names[2] in line)
    assert "dropped" in hopeless_line and "sampler" in hopeless_line and "hopeless" in hopeless_line
    doc = json.loads((out / "generation.json").read_text())
    first, second, third = doc["candidates"]
    assert [c["extra"]["outcome"] for c in doc["candidates"]] == ["valid", "repaired", "hopeless"]
    assert third["verdicts"] == [
        {"stage": "sampler", "passed": False, "reason": third["extra"]["gave_up"], "evidence": {}}
    ]
    for cand in doc["candidates"]:
        for attempt in cand["extra"]["attempts"]:
            assert attempt["sent"] and attempt["reply"]
            assert attempt["prompt_tokens"] > 0 and "cost_usd" in attempt
    assert "Unknown register 'q'" in second["extra"]["attempts"][1]["sent"][1]["content"]
    assert first["verdicts"][0]["stage"] == "static" and first["verdicts"][0]["passed"]
    assert doc["params"]["sampler"] == spec
    written = list(out.iterdir())  # generation.json and the kept games (playability decides)
    assert len(written) == 1 + sum(c["kept"] for c in doc["candidates"])
    for path in written:
        assert key not in path.read_text()
    assert key not in stdout + stderr


async def test_generate_command_rejects_bad_sampler_specs(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for spec, word in (
        ("llm:openai/x?colour=1", "Unknown parameter 'colour'"),
        ("llm:openai/x?repairs=-1", "must be >= 0, got -1. Write e.g. repairs=3."),
    ):
        code, stdout, stderr = await run_cli(
            "simplest_cut", "--sampler", spec, "--out", str(tmp_path / "x"), "--judge", "ngram",
            env=env,
        )
        assert code == 2 and "Traceback" not in stderr
        message = (stdout + stderr).strip()
        assert word in message and message.startswith("error:")
        assert len(message.splitlines()) == 1


def test_the_recorded_spec_hides_url_credentials() -> None:
    spec = "llm:openai/x?api_base=http://user:hunter2@127.0.0.1:9/v1&repairs=1"
    sampler = Registry.load().create_sampler(spec)
    assert isinstance(sampler, LLMSampler)
    assert sampler.spec == "llm:openai/x?api_base=http://***@127.0.0.1:9/v1&repairs=1"


def test_arena_plugins_documents_the_sampler_params() -> None:
    docs = spec_docs(Registry.load())["samplers"]
    assert docs["llm"].startswith("arg: litellm model id")
    assert "repairs=<int> repairs after a rejected game (default 3)" in docs["llm"]
    assert "depth=<int> mutations per candidate (default 1)" in docs["mutate"]
