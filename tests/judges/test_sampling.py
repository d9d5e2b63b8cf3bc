"""Stories drawn many at once, each exactly as drawn alone (issue 35, item 1): a row's
logits in a sampling block are bitwise those of the row alone (on the tiny random GPT-2
and the bundled judge), concurrent `generate` calls share blocks and draw the same texts
as one call at a time, and CPU sampling lanes run on one torch thread each."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from arena.protocols.judge import GenerateRequest

pytestmark = pytest.mark.torch


def teacher_forced(model: Any, prompts: list[list[int]], steps: list[list[int]], device: str,
                   ) -> list[Any]:
    """Logits of every step of one block fed `steps` (one token per row per step), computed
    on a sampling lane (one torch thread, as the judge does on a CPU)."""
    from arena.judges.hf.lanes import lane_pool
    from arena.judges.hf.sampling import SAMPLE_THREADS, BlockForward

    def run() -> list[Any]:
        block = BlockForward(model, prompts, device)
        out = [block.next_logits()]
        out += [block.next_logits(tokens) for tokens in steps]
        return out

    pool = lane_pool(1, SAMPLE_THREADS, "test-sample")
    try:
        return pool.submit(run).result()
    finally:
        pool.shutdown()


def assert_rows_alone_equal_rows_together(model: Any, vocab: int, device: str) -> None:
    import torch

    from arena.judges.hf.sampling import SAMPLE_ROWS

    rng = random.Random(5)
    prompts = [[0] + [rng.randrange(1, vocab) for _ in range(4)] for _ in range(SAMPLE_ROWS)]
    steps = [[rng.randrange(1, vocab) for _ in prompts] for _ in range(4)]
    together = teacher_forced(model, prompts, steps, device)
    order = list(range(SAMPLE_ROWS))
    rng.shuffle(order)
    half = order[:5]  # another company, another place in the block
    mixed = teacher_forced(model, [prompts[i] for i in half],
                           [[s[i] for i in half] for s in steps], device)
    for row in (0, 7, SAMPLE_ROWS - 1):
        alone = teacher_forced(model, [prompts[row]], [[s[row]] for s in steps], device)
        for step, logits in enumerate(alone):
            assert torch.equal(logits[0], together[step][row]), (row, step)
    for j, row in enumerate(half):
        for step, logits in enumerate(mixed):
            assert torch.equal(logits[j], together[step][row]), (row, step)


async def test_a_row_of_a_block_computes_exactly_what_it_computes_alone(
    hf_judge: Any, torch_device: str
) -> None:
    """Before: rows drawn together (one batch of their own size) got other logits in the
    last bits than alone (MKL picks another kernel below about ten rows)."""
    assert_rows_alone_equal_rows_together(hf_judge.model, 300, torch_device)


def test_the_bundled_judge_s_rows_are_computed_alone_in_any_block(torch_device: str) -> None:
    from arena.judges.hf.bundled_judge import create_bundled_judge

    judge: Any = create_bundled_judge({"device": torch_device})
    try:
        assert_rows_alone_equal_rows_together(judge.model, judge.info.vocab_size, torch_device)
    finally:
        asyncio.run(judge.aclose())


def requests() -> list[GenerateRequest]:
    """Map-like requests: empty prompts (story()), an instruction, lengths from 4 to 20."""
    out = [GenerateRequest("", 20 if i % 3 else 4, 1000 + i) for i in range(22)]
    out += [GenerateRequest("the cat sat", 12, 50 + i) for i in range(5)]
    out += [GenerateRequest("a", 6, 7, temperature=0.0)]
    return out


async def test_concurrent_calls_share_blocks_and_draw_what_each_draws_alone(
    hf_judge: Any,
) -> None:
    reqs = requests()
    together = await asyncio.gather(*(hf_judge.generate([r]) for r in reqs))
    stats = hf_judge.sampling_stats()
    assert stats["rows"] == len(reqs)
    assert stats["blocks"] <= 4  # 22 + 5 + 1 rows of three prompt lengths
    one_call = await hf_judge.generate(reqs)
    assert hf_judge.sampling_stats()["blocks"] - stats["blocks"] <= 4
    before = hf_judge.sampling_stats()["blocks"]
    alone = [(await hf_judge.generate([r]))[0] for r in reqs]
    assert hf_judge.sampling_stats()["blocks"] - before == len(reqs)  # each in its own block
    assert [t[0] for t in together] == one_call == alone
    assert len(set(one_call[:22])) > 15  # seeds differ, samples differ


async def test_a_cancelled_caller_leaves_the_others_their_samples(hf_judge: Any) -> None:
    keep = GenerateRequest("", 10, 1)
    [expected] = await hf_judge.generate([keep])
    dropped = asyncio.create_task(hf_judge.generate([GenerateRequest("", 10, 2)]))
    kept = asyncio.create_task(hf_judge.generate([keep]))
    await asyncio.sleep(0)
    dropped.cancel()
    assert await kept == [expected]
    with pytest.raises(asyncio.CancelledError):
        await dropped


async def test_cpu_sampling_lanes_run_on_one_torch_thread_each(hf_judge: Any) -> None:
    """So a story does not depend on how many cores the machine has."""
    import torch

    from arena.judges.hf.lanes import lane_threads

    await hf_judge.generate([GenerateRequest("", 3, 1)])
    [replica] = hf_judge._replicas
    if hf_judge.devices == ["cpu"]:
        assert lane_threads(replica.sampler) == [1] * max(1, torch.get_num_threads())
    else:  # a GPU draws on its replica's worker thread
        assert replica.sampler is None


def test_a_block_refuses_rows_of_several_prompt_lengths(tiny_model_dir: Path) -> None:
    from transformers import AutoModelForCausalLM

    from arena.judges.hf.sampling import SAMPLE_ROWS, BlockForward

    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    with pytest.raises(ValueError, match="one prompt length"):
        BlockForward(model, [[0, 1], [0]], "cpu")
    with pytest.raises(ValueError, match="1 to 16 rows"):
        BlockForward(model, [[0]] * (SAMPLE_ROWS + 1), "cpu")
