"""CPU lanes and row passes of the HF judge: same bits, the passes on the lanes, torch's
thread counts per thread, plain rows without a 4D mask."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from arena.errors import ConfigError
from arena.judges.hf.batching import row_passes
from arena.protocols.judge import ScoreRequest
from arena.specs import parse_spec

pytestmark = pytest.mark.torch

REQUESTS = [
    ScoreRequest(f"the {w} sat on the mat and {v}", f"{n}: once upon a time", "xgl")
    for n, (w, v) in enumerate(
        (w, v)
        for w in ("cat", "dog", "small bird", "red tree")
        for v in ("ran", "flew over the big house", "never")
    )
]


def test_row_passes_cut_rows_to_each_pass_width() -> None:
    assert row_passes([10, 9, 5, 5, 5, 5, 2], 20) == [(0, 2, 10), (2, 6, 5), (6, 7, 2)]
    assert row_passes([30, 4], 20) == [(0, 1, 30), (1, 2, 4)]  # too wide: a pass alone
    assert row_passes([7, 3], None) == [(0, 2, 7)]
    assert row_passes([], 20) == []


def test_lanes_have_their_own_thread_count_and_the_default_stays() -> None:
    import torch

    from arena.judges.hf.lanes import lane_pool, lane_threads

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        pool = lane_pool(2, 1, "test-lane")
        assert lane_threads(pool) == [1, 1]
        assert torch.get_num_threads() == 2  # the caller's own count
        seen: list[int] = []
        later = threading.Thread(target=lambda: seen.append(torch.get_num_threads()))
        later.start()
        later.join()
        assert seen == [2]  # threads made later start with the caller's count, not the lanes'
        pool.shutdown()
    finally:
        torch.set_num_threads(before)


async def test_lanes_give_the_same_bits_and_run_every_pass(tiny_model_dir: Path) -> None:
    from arena.judges.hf.judge import HFJudge

    # Lanes are a CPU feature: this test runs on the CPU whatever --device says.

    one = HFJudge.from_pretrained(str(tiny_model_dir), device="cpu", lanes=1)
    two = HFJudge.from_pretrained(str(tiny_model_dir), device="cpu", lanes=2)
    assert one._replicas[0].lanes is None and two._replicas[0].lanes is not None
    await two._packing_ok()  # its self-test runs on the replica's own thread
    threads: list[str] = []
    two.model.base_model.register_forward_pre_hook(
        lambda *_a: threads.append(threading.current_thread().name)
    )
    want = await one.score(REQUESTS)
    got = await two.score(REQUESTS)
    for a, b in zip(want, got, strict=True):
        assert a.tokens == b.tokens
        assert max(abs(x - y) for x, y in zip(a.bits, b.bits, strict=True)) < 1e-5
    assert len(threads) >= 2  # the batch ran as several passes, all of them on the lanes
    assert all(name.startswith("judge-lane") for name in threads)
    await one.aclose()
    await two.aclose()


async def test_plain_rows_need_no_mask(hf_judge: Any, torch_device: str) -> None:
    from arena.judges.hf.forward import prepare_batch, prepare_packed, run_prepared

    items = [e for e in hf_judge.encode_requests(REQUESTS[:4]) if e.n_scored]
    alone = [[[i]] for i in range(len(items))]  # one sequence per row
    plain = prepare_packed(items, alone, 0)
    assert plain.plain and plain.sizes == sorted(plain.sizes, reverse=True)
    shared = prepare_packed(items, [[list(range(len(items)))]], 0)  # one trie: BOS shared
    assert not shared.plain
    padded = prepare_batch(items, 0)
    assert padded.sizes == sorted(e.length for e in items)[::-1]
    want = run_prepared(hf_judge.model, padded, torch_device)
    for prep in (plain, shared):
        for chunk in (None, 40):
            got = run_prepared(hf_judge.model, prep, torch_device, chunk_tokens=chunk)
            for a, b in zip(want, got, strict=True):
                assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-5


def test_lanes_option_is_checked(tiny_model_dir: Path) -> None:
    from arena.judges.hf.judge import check_hf_spec

    check_hf_spec(parse_spec(f"hf:{tiny_model_dir}?lanes=2"))
    with pytest.raises(ConfigError, match=r"'lanes'.*>= 1"):
        check_hf_spec(parse_spec(f"hf:{tiny_model_dir}?lanes=0"))
    with pytest.raises(ConfigError, match=r"'lanes'.*integer"):
        check_hf_spec(parse_spec(f"hf:{tiny_model_dir}?lanes=two"))
