"""The HF judge on a tiny random GPT-2 built in the test (see conftest.py)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.errors import ConfigError, JudgeError
from arena.protocols.judge import GenerateRequest, Judge, JudgeInfo, ScoreRequest
from arena.specs import parse_spec

pytestmark = pytest.mark.torch
ROOT = Path(__file__).resolve().parents[2]

RAGGED = [
    ScoreRequest("the cat sat on the mat.", ""),
    ScoreRequest("the cat sat on the mat.", "Then the dog ran under the big tree"),
    ScoreRequest("red", "a small bird"),
    ScoreRequest("sat on the mat", "the cat", "xent"),
    ScoreRequest(" quickly and slowly, never always", "The river at night", "xent"),
    ScoreRequest("café naïve über 東京", "Morning light"),
    ScoreRequest("garden window", "", "xent"),
]


def load_raw(folder: Path) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    return AutoModelForCausalLM.from_pretrained(folder), AutoTokenizer.from_pretrained(folder)


def reference_bits(model: Any, ids: list[int], first_scored: int) -> list[float]:
    """Full-logits log-softmax over one unpadded sequence: the textbook computation."""
    import torch

    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0].double()
    logp = torch.log_softmax(logits, dim=-1)
    return [-float(logp[p - 1, ids[p]]) / math.log(2) for p in range(first_scored, len(ids))]


async def test_implements_the_judge_protocol(hf_judge: Any) -> None:
    assert isinstance(hf_judge, Judge)
    info = hf_judge.info
    assert isinstance(info, JudgeInfo)
    assert info.name == "hf" and info.dtype == "float32" and info.vocab_size == 300
    assert info.revision.startswith("sha256:")


async def test_xgl_prepends_bos_and_scores_every_target_token(hf_judge: Any) -> None:
    bos = hf_judge.bos_id
    [enc] = hf_judge.encode_requests([ScoreRequest("the cat sat", "a dog")])
    assert enc.input_ids[0] == bos
    assert enc.n_scored == len(enc.target_ids) > 1
    [scores] = await hf_judge.score([ScoreRequest("the cat sat", "a dog")])
    assert len(scores.bits) == len(enc.target_ids)
    assert "".join(scores.tokens) == "the cat sat"  # the convention's space is hidden


async def test_xent_skips_the_first_target_token_and_has_no_bos(hf_judge: Any) -> None:
    bos = hf_judge.bos_id
    for context in ("", "a dog"):
        [enc] = hf_judge.encode_requests([ScoreRequest("the cat sat", context, "xent")])
        assert bos not in enc.input_ids
        [scores] = await hf_judge.score([ScoreRequest("the cat sat", context, "xent")])
        assert len(scores.bits) == len(enc.target_ids) - 1
        assert scores.tokens == enc.target_pieces[1:]
    [one] = await hf_judge.score([ScoreRequest("a", "the cat", "xent")])
    assert one.tokens == () and one.bits == ()


async def test_empty_target_scores_nothing(hf_judge: Any) -> None:
    for dialect in ("xgl", "xent"):
        [s] = await hf_judge.score([ScoreRequest("", "some context", dialect)])
        assert s.tokens == () and s.bits == () and s.total == 0.0


async def test_target_ids_do_not_depend_on_the_context(hf_judge: Any) -> None:
    for dialect in ("xgl", "xent"):
        reqs = [ScoreRequest("t sat", ctx, dialect) for ctx in ("", "the ca", "the cat", "x ")]
        encs = hf_judge.encode_requests(reqs)
        assert len({e.target_ids for e in encs}) == 1


async def test_whitespace_convention_per_dialect(hf_judge: Any) -> None:
    xgl = hf_judge.encode_requests([ScoreRequest("cat", "a"), ScoreRequest(" cat", " a")])
    assert xgl[0].input_ids == xgl[1].input_ids
    xent = hf_judge.encode_requests(
        [ScoreRequest("cat", dialect="xent"), ScoreRequest(" cat", dialect="xent")]
    )
    assert xent[0].target_ids != xent[1].target_ids


async def test_special_token_text_is_literal(hf_judge: Any) -> None:
    bos = hf_judge.bos_id
    [enc] = hf_judge.encode_requests([ScoreRequest("<|endoftext|>", "x")])
    assert bos not in enc.target_ids and len(enc.target_ids) > 1


async def test_scores_equal_full_logits_reference(hf_judge: Any, tiny_model_dir: Path) -> None:
    model, _ = load_raw(tiny_model_dir)
    encs = hf_judge.encode_requests(RAGGED)
    results = await hf_judge.score(RAGGED)
    for enc, res in zip(encs, results, strict=True):
        ref = reference_bits(model, list(enc.input_ids), enc.first_scored)
        assert len(ref) == len(res.bits)
        assert max((abs(a - b) for a, b in zip(ref, res.bits, strict=True)), default=0) < 1e-4


async def test_contexts_are_tokenised_without_pieces(hf_judge: Any) -> None:
    encoder = hf_judge._encoder
    [enc] = hf_judge.encode_requests([ScoreRequest("a dog", "the cat sat")])
    [context] = encoder.encode_texts(["the cat sat"], "xgl", pieces=False)
    assert context.pieces is None and context.ids == enc.context_ids  # cached without pieces
    [pieces] = await hf_judge.tokenize(["the cat sat"])  # the same key, now with pieces
    assert "".join(pieces) == "the cat sat" and len(pieces) == len(enc.context_ids)


async def test_row_passes_give_the_same_bits(hf_judge: Any, torch_device: str) -> None:
    from arena.judges.hf.forward import prepare_batch, run_prepared

    items = [e for e in hf_judge.encode_requests(RAGGED) if e.n_scored]
    prep = prepare_batch(items, 0)
    whole = run_prepared(hf_judge.model, prep, torch_device)
    passes = run_prepared(hf_judge.model, prep, torch_device, chunk_tokens=20)  # 1 row each
    for a, b in zip(whole, passes, strict=True):
        assert len(a) == len(b) and max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-5


def test_default_device_is_auto_and_logged(
    tiny_model_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    from arena.judges.hf.judge import HFJudge
    from arena.judges.hf.load import auto_device

    with caplog.at_level(logging.INFO, logger="arena.judges.hf.judge"):
        judge = HFJudge.from_pretrained(str(tiny_model_dir))
    assert judge.devices == [auto_device()]
    assert f"on {auto_device()} (device=auto)" in caplog.text
    from transformers.activations import NewGELUActivation

    # GPT-2's Python GELU runs as torch's fused kernel (two layers: two swaps)
    assert not any(isinstance(m, NewGELUActivation) for m in judge.model.modules())


async def test_bfloat16_stays_near_float32(tiny_model_dir: Path, torch_device: str) -> None:
    from arena.judges.hf.judge import HFJudge

    fp32 = HFJudge.from_pretrained(str(tiny_model_dir), device=torch_device, tf32=False)
    bf16 = HFJudge.from_pretrained(
        str(tiny_model_dir), device=torch_device, dtype="bf16", tf32=False
    )  # tf32 is process-wide on CUDA: keep it off for the float32 side too
    gaps = [
        abs(x - y)
        for a, b in zip(await fp32.score(RAGGED), await bf16.score(RAGGED), strict=True)
        for x, y in zip(a.bits, b.bits, strict=True)
    ]
    # log-softmax and sums in float32: the gap is bf16's rounding of the body, not of the sum
    assert sum(gaps) / len(gaps) < 0.05 and max(gaps) < 0.25
    await fp32.aclose()
    await bf16.aclose()


async def test_context_changes_scores(hf_judge: Any) -> None:
    a, b = await hf_judge.score(
        [ScoreRequest("the cat sat", "red river"), ScoreRequest("the cat sat", "blue stone")]
    )
    assert a.tokens == b.tokens and a.bits != b.bits


async def test_batched_equals_one_by_one(tiny_model_dir: Path, torch_device: str) -> None:
    from arena.judges.hf.judge import HFJudge

    judge = HFJudge.from_pretrained(
        str(tiny_model_dir), max_batch_tokens=4096, device=torch_device, tf32=False
    )
    batched = await judge.score(RAGGED * 3)
    for req, got in zip(RAGGED * 3, batched, strict=True):
        [alone] = await judge.score([req])
        assert alone.tokens == got.tokens
        assert all(abs(x - y) < 1e-4 for x, y in zip(alone.bits, got.bits, strict=True))
    # Passes are cut to their longest row, so padding can vanish; it is never negative.
    assert judge.forward_stats()["padded"] >= judge.forward_stats()["positions"]
    await judge.aclose()


async def test_lm_head_runs_only_on_scored_rows(tiny_model_dir: Path, torch_device: str) -> None:
    from arena.judges.hf.judge import HFJudge

    model, tok = load_raw(tiny_model_dir)
    rows: list[int] = []
    model.get_output_embeddings().register_forward_hook(
        lambda _m, args, _out: rows.append(args[0].shape[0])
    )
    judge = HFJudge([(model.to(torch_device), torch_device)], tok, JudgeInfo(name="hf", model="t"))
    results = await judge.score(RAGGED)
    assert sum(rows) == sum(len(r.bits) for r in results)
    assert sum(rows) < sum(e.length for e in judge.encode_requests(RAGGED))
    await judge.aclose()


async def test_several_devices_share_the_work(tiny_model_dir: Path, torch_device: str) -> None:
    from arena.judges.hf.judge import HFJudge

    replicas = []
    calls = [0, 0]
    for i in range(2):
        model, tok = load_raw(tiny_model_dir)
        model.base_model.register_forward_pre_hook(
            lambda *_a, i=i: calls.__setitem__(i, calls[i] + 1)
        )
        replicas.append((model.to(torch_device), torch_device))
    judge = HFJudge(replicas, tok, JudgeInfo(name="hf", model="tiny"), max_batch_tokens=64)
    single = HFJudge.from_pretrained(str(tiny_model_dir), device=torch_device, tf32=False)
    # two batches in flight per CUDA device (one being prepared), one per CPU replica
    assert judge.parallelism == (4 if torch_device.startswith("cuda") else 2)
    got, want = await judge.score(RAGGED), await single.score(RAGGED)
    assert all(calls)  # both replicas ran batches
    for a, b in zip(got, want, strict=True):
        assert all(abs(x - y) < 1e-4 for x, y in zip(a.bits, b.bits, strict=True))
    await judge.aclose()
    await single.aclose()


async def test_tokenize_pieces_concatenate(hf_judge: Any) -> None:
    texts = ["the cat  sat ", "東京 café", "", "  leading", "x<|endoftext|>y"]
    pieces = await hf_judge.tokenize(texts)
    assert ["".join(p) for p in pieces] == texts
    [scores] = await hf_judge.score([ScoreRequest("the cat  sat ", "a")])
    assert list(scores.tokens) == pieces[0]


async def test_generate_is_seeded_and_batch_independent(hf_judge: Any) -> None:
    reqs = [
        GenerateRequest("", 12, 7),
        GenerateRequest("the cat", 8, 7),
        GenerateRequest("", 12, 8),
    ]
    together = await hf_judge.generate(reqs)
    alone = [(await hf_judge.generate([r]))[0] for r in reqs]
    assert together == alone
    assert together[0] != together[2]  # another seed, another sample
    assert all(together)
    [greedy1, greedy2] = await hf_judge.generate(
        [GenerateRequest("a", 5, 1, temperature=0.0), GenerateRequest("a", 5, 2, temperature=0.0)]
    )
    assert greedy1 == greedy2


GEN_SCRIPT = """
import asyncio, json, sys
from arena.protocols.judge import GenerateRequest
from arena.judges.hf.judge import HFJudge
judge = HFJudge.from_pretrained(sys.argv[1])
out = asyncio.run(judge.generate([GenerateRequest("", 16, 1234), GenerateRequest("the", 9, 5)]))
print(json.dumps(out))
"""


async def test_generate_reproducible_across_processes(hf_judge: Any, tiny_model_dir: Path) -> None:
    here = await hf_judge.generate([GenerateRequest("", 16, 1234), GenerateRequest("the", 9, 5)])
    proc = subprocess.run(
        [sys.executable, "-c", GEN_SCRIPT, str(tiny_model_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"},
    )
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == here


async def test_over_the_window_is_a_clear_error(hf_judge: Any) -> None:
    with pytest.raises(JudgeError, match="window of 128"):
        await hf_judge.score([ScoreRequest("the cat sat on the mat " * 40)])
    with pytest.raises(JudgeError, match="window is 128"):
        await hf_judge.generate([GenerateRequest("", 500, 1)])


def test_missing_local_model_says_where_it_looked(tmp_path: Path) -> None:
    from arena.judges.hf.judge import HFJudge

    missing = tmp_path / "no-such-judge"
    with pytest.raises(JudgeError) as err:
        HFJudge.from_pretrained(str(missing))
    assert str(missing) in str(err.value) and "hub id" in str(err.value)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(JudgeError, match=r"config\.json"):
        HFJudge.from_pretrained(str(empty))


def test_unknown_device_and_dtype_are_config_errors(tiny_model_dir: Path) -> None:
    from arena.judges.hf.judge import HFJudge

    with pytest.raises(ConfigError, match="Valid options"):
        HFJudge.from_pretrained(str(tiny_model_dir), dtype="float8")
    with pytest.raises(ConfigError, match="cuda"):
        HFJudge.from_pretrained(str(tiny_model_dir), device="gpu0")


async def test_spec_factory(tiny_model_dir: Path, torch_device: str) -> None:
    from arena.judges.hf.judge import create_hf_judge

    spec = f"hf:{tiny_model_dir}?dtype=bf16&max_batch_tokens=512&device={torch_device}&tf32=0"
    judge = create_hf_judge(parse_spec(spec))
    assert judge.info.dtype == "bfloat16" and judge.max_batch_tokens == 512
    [s] = await judge.score([ScoreRequest("the cat")])
    assert len(s.bits) > 0 and all(b > 0 for b in s.bits)
    await judge.aclose()
    with pytest.raises(ConfigError, match="Did you mean 'dtype'"):
        create_hf_judge(parse_spec(f"hf:{tiny_model_dir}?dtyp=float32"))
    with pytest.raises(ConfigError, match="names no model"):
        create_hf_judge(parse_spec("hf"))


async def test_closed_judge_refuses_work(tiny_model_dir: Path, torch_device: str) -> None:
    from arena.judges.hf.judge import HFJudge

    judge = HFJudge.from_pretrained(str(tiny_model_dir), device=torch_device)
    await judge.aclose()
    with pytest.raises(JudgeError, match="closed"):
        await judge.score([ScoreRequest("the cat")])
