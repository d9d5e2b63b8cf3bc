"""The HF judge: any causal LM from the Hugging Face hub or a local folder.

Token rules and the whitespace convention are in `arena.judges.hf.tokens`; the forward passes in
`arena.judges.hf.forward`. One model replica per device, each with its own single worker thread,
so forward passes never run on the event loop; batches go to the least-loaded replica.
On CUDA a batch's inputs are built on a separate prepare thread into pinned memory while the
previous batch runs (two batches in flight per device), and copied without blocking.
On a CPU, rows run in passes so activations stay in cache, several at once on lanes
(`arena.judges.hf.lanes`: by default one lane per torch intra-op thread); a one-thread
lane takes passes of `CPU_PASS_TOKENS` and its LM head `CPU_HEAD_ROWS` rows at a time.
Requests are packed several to a row, common prefixes computed once (`arena.judges.hf.packing`),
when a one-time self-test shows the model handles packed rows exactly; else they are padded.
Seeded samples (`generate`) are drawn in fixed 16-row blocks shared by concurrent calls
(`arena.judges.hf.sampling`, `arena.judges.hf.sample_queue`), on a CPU on one-thread lanes.
Importing this module does not import torch.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from arena.errors import ConfigError, JudgeError
from arena.judges.hf.batching import padded_cost, plan_batches, plan_packed_batches, row_passes
from arena.judges.hf.encoded import EncodedRequest
from arena.judges.hf.forward import (
    Prepared,
    attention_width,
    base_and_head,
    packing_works,
    prepare_batch,
    prepare_packed,
    run_prepared,
)
from arena.judges.hf.lanes import lane_pool
from arena.judges.hf.load import (
    canonical_dtype,
    check_devices,
    configure_cuda,
    fuse_activations,
    load_pretrained,
    require_torch,
)
from arena.judges.hf.packing import plan_rows
from arena.judges.hf.sample_queue import SampleQueue, SampleSlots
from arena.judges.hf.sampling import SAMPLE_THREADS, SampleRow, sample_block
from arena.judges.hf.tokens import TextEncoder
from arena.protocols.dialect import Dialect
from arena.protocols.judge import GenerateRequest, JudgeInfo, ScoreRequest, TokenScores
from arena.specs import Spec

log = logging.getLogger(__name__)
# Tokens per forward pass on a CPU (a batch runs as several). One-thread lanes: on this
# project's 2-core AMD machine a float32 matmul of the bundled judge's shapes ran at ~100
# GFLOP/s up to 512 rows and about half that from 1024 (its output leaves the 1 MB L2),
# and 512-token passes took 8% less time per token than 2k ones on a quiet Xeon core.
# Several threads on one pass need larger operations: 2k-token passes ran the bundled
# judge 5-17% faster than 8k ones on 2 threads, and on the quiet Xeon's 2 cores 512-token
# passes with 128-row head chunks were about a fifth slower than 2k passes and whole-batch
# head chunks (issue 21). So passes shared by several threads keep the larger sizes.
CPU_PASS_TOKENS = 512
CPU_PASS_TOKENS_SHARED = 2048
# LM-head rows per chunk on a one-thread lane: 128 rows of the bundled judge's logits stay
# in L2 (its head ran at 87 GFLOP/s on 128 rows, 36 on 1024, one thread).
CPU_HEAD_ROWS = 128


class _Replica:
    """One copy of the model on one device, served by one thread (plus its lanes on a CPU)."""

    def __init__(self, model: Any, device: str, compile_body: bool = False, lanes: int = 1) -> None:
        self.model = model
        self.device = device
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"judge-{device}")
        self.load = 0  # padded tokens queued on this replica
        self.cuda = device.startswith("cuda")
        cpu = device == "cpu"
        self.body: Any = None
        if compile_body:
            torch, _ = require_torch()
            self.body = torch.compile(base_and_head(model)[0], dynamic=True)
        # Compiled bodies stay on one thread (compilation is not thread-safe).
        self.lanes: ThreadPoolExecutor | None = None
        self.lane_count = lanes if cpu and lanes > 1 and not compile_body else 1
        threads = 0
        if cpu:
            torch, _ = require_torch()
            threads = max(1, torch.get_num_threads() // self.lane_count)
        if self.lane_count > 1:
            self.lanes = lane_pool(self.lane_count, threads, "judge-lane")
        single = cpu and threads == 1
        self.pass_tokens = (
            None if not cpu else CPU_PASS_TOKENS if single else CPU_PASS_TOKENS_SHARED
        )
        self.head_rows = CPU_HEAD_ROWS if single else None
        # Sampling lanes (CPU): one block each, on one torch thread (made at the first sample).
        self.sample_lanes = max(1, require_torch()[0].get_num_threads()) if cpu else 0
        self.sampler: ThreadPoolExecutor | None = None

    def sample_slots(self, run: Callable[[_Replica, Sequence[SampleRow]], list[list[int]]]
                     ) -> SampleSlots:
        """Where this replica draws sample blocks: its sampling lanes on a CPU, else its
        worker thread, one block at a time."""
        if self.sample_lanes:
            if self.sampler is None:
                self.sampler = lane_pool(self.sample_lanes, SAMPLE_THREADS, "judge-sample")
            return SampleSlots(self.sampler, self.sample_lanes, lambda rows: run(self, rows))
        return SampleSlots(self.executor, 1, lambda rows: run(self, rows))

    def threads_note(self) -> str:
        """How this replica uses the CPU's threads (for the log and benchmarks)."""
        torch, _ = require_torch()
        threads = torch.get_num_threads()
        if self.lanes is None:
            return f"one pass at a time on {threads} torch thread(s)"
        return f"{self.lane_count} lanes x {max(1, threads // self.lane_count)} torch thread(s)"

    def chunk_tokens(self, tokens: int) -> int | None:
        """Tokens per pass for a batch of `tokens`: small enough to give every lane work."""
        if self.pass_tokens is None:
            return None
        return max(1, min(self.pass_tokens, -(-tokens // self.lane_count)))

    def shutdown(self) -> None:
        self.executor.shutdown(True)
        if self.lanes is not None:
            self.lanes.shutdown(True)
        if self.sampler is not None:
            self.sampler.shutdown(True)


class HFJudge:
    """A `Judge` (and `EncodingJudge`) backed by a transformers causal LM."""

    def __init__(
        self,
        models: Sequence[tuple[Any, str]],
        tokenizer: Any,
        info: JudgeInfo,
        *,
        max_batch_tokens: int = 8192,
        packing: bool = True,
        compile: bool = False,
        lanes: int | None = None,
    ) -> None:
        """`lanes`: passes run at once per CPU replica, each on its own thread with an equal
        share of torch's intra-op threads (default: one lane per thread; 1: one forward at a
        time with all the threads)."""
        if not models:
            raise ConfigError("HFJudge needs at least one (model, device) replica.")
        for m, _ in models:
            fuse_activations(m)
        cpus = sum(1 for _, d in models if d == "cpu")
        if lanes is None and cpus:
            torch, _ = require_torch()
            lanes = max(1, torch.get_num_threads() // cpus)
        self._replicas = [_Replica(m, d, compile, lanes or 1) for m, d in models]
        for rep in self._replicas:
            if rep.device == "cpu":
                log.info("judge %s on cpu: %s", info.model, rep.threads_note())
        # Inputs of the next batch are built here while a CUDA device runs the current one.
        self._prepare = ThreadPoolExecutor(max_workers=1, thread_name_prefix="judge-prepare")
        self._encoder = TextEncoder(tokenizer)
        self._info = info
        self.max_batch_tokens = max_batch_tokens
        config = models[0][0].config
        limit = getattr(config, "max_position_embeddings", None)
        self.max_length: int | None = limit if isinstance(limit, int) and limit > 0 else None
        self._vocab_limit = len(tokenizer)
        self._pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        self._stats_lock = threading.Lock()
        keys = ("batches", "requested", "positions", "padded", "padded_sq", "scored", "busy_s")
        self._stats = dict.fromkeys(keys, 0.0)
        self._packing: bool | None = None if packing else False  # None: not tested yet
        self._attention_width = attention_width(models[0][0]) if packing else math.inf
        self._sampling: SampleQueue | None = None  # made at the first `generate`
        self._closed = False

    @classmethod
    def from_pretrained(
        cls,
        model: str,
        *,
        device: str | Sequence[str] = "auto",
        dtype: str = "float32",
        attn_implementation: str | None = None,
        revision: str | None = None,
        trust_remote_code: bool = False,
        max_batch_tokens: int = 8192,
        name: str = "hf",
        packing: bool = True,
        tf32: bool = True,
        compile: bool = False,
        lanes: int | None = None,
    ) -> HFJudge:
        """Load `model` (hub id or local folder) on one or several devices (`auto`: cuda,
        then mps, else cpu). On CUDA, float32 matmuls use TF32 unless `tf32` is False, and
        cuDNN's attention kernel is off (see `configure_cuda`). `compile`: run the body
        through `torch.compile` (dynamic shapes). `lanes`: see `HFJudge`.

        Raises:
            ConfigError: unknown dtype or unavailable device (lists the options).
            JudgeError: torch missing (names the extra) or a model that cannot be loaded
                (says where it looked and how to fix it).
        """
        canon = canonical_dtype(dtype)
        require_torch()
        devices = check_devices(device)
        if any(d.startswith("cuda") for d in devices):
            configure_cuda(tf32)
        lm, tokenizer, rev = load_pretrained(
            model,
            dtype=canon,
            attn_implementation=attn_implementation,
            revision=revision,
            trust_remote_code=trust_remote_code,
        )
        replicas = [(lm if i == 0 else copy.deepcopy(lm)).to(d) for i, d in enumerate(devices)]
        actual = str(lm.dtype).removeprefix("torch.")
        vocab = int(getattr(lm.config, "vocab_size", 0) or len(tokenizer))
        info = JudgeInfo(name=name, model=model, revision=rev, dtype=actual, vocab_size=vocab)
        tf32_note = ", TF32 matmuls" if tf32 and actual == "float32" else ""
        cuda = any(d.startswith("cuda") for d in devices)
        log.info(
            "judge %s on %s (device=%s), dtype %s%s%s",
            model,
            ",".join(devices),
            device if isinstance(device, str) else ",".join(device),
            actual,
            tf32_note if cuda else "",
            ", torch.compile" if compile else "",
        )
        return cls(
            list(zip(replicas, devices, strict=True)),
            tokenizer,
            info,
            max_batch_tokens=max_batch_tokens,
            packing=packing,
            compile=compile,
            lanes=lanes,
        )

    # ------------------------------------------------------------------ properties

    @property
    def info(self) -> JudgeInfo:
        return self._info

    @property
    def parallelism(self) -> int:
        """How many batches to keep in flight: one per device, two per CUDA device (one
        being prepared while the other runs)."""
        return sum(2 if r.cuda else 1 for r in self._replicas)

    @property
    def devices(self) -> list[str]:
        return [r.device for r in self._replicas]

    @property
    def bos_id(self) -> int | None:
        """Id of the token that starts every `xgl` sequence (BOS, or EOS without a BOS)."""
        return self._encoder.bos_id

    @property
    def bos_text(self) -> str | None:
        """Text of the token that starts every `xgl` sequence."""
        return self._encoder.bos_text

    @property
    def model(self) -> Any:
        """The first replica's model (read-only use: benchmarks, reference scorers)."""
        return self._replicas[0].model

    @property
    def num_parameters(self) -> int:
        return int(sum(p.numel() for p in self._replicas[0].model.parameters()))

    @property
    def packs_sequences(self) -> bool:
        """Whether batches are packed (several requests per row) rather than padded: the
        `JudgePool` then budgets batches by packed cost. True until the self-test fails."""
        return self._packing is not False

    def threads_note(self) -> str:
        """How the CPU replicas use torch's threads ("" without one)."""
        return "; ".join(r.threads_note() for r in self._replicas if r.device == "cpu")

    def forward_stats(self) -> dict[str, float]:
        """Work done by the forward passes, summed over devices: batches; requested (tokens
        of the requests); positions (real tokens run: fewer when packed rows share
        prefixes); padded (rows × width: positions plus padding); padded_sq (rows × width²:
        attention's quadratic term); scored (the only rows through the LM head); busy_s."""
        with self._stats_lock:
            return dict(self._stats)

    # ------------------------------------------------------------------ scoring

    def encode_requests(self, requests: Sequence[ScoreRequest]) -> list[EncodedRequest]:
        """Token ids per XGL.md section 7; `JudgeError` for a sequence over the window."""
        encoded = self._encoder.encode_requests(requests)
        if self.max_length is not None:
            for e in encoded:
                if e.n_scored and e.length > self.max_length:
                    raise JudgeError(
                        f"Cannot score target {_short(e.request.target)!r}: context + target "
                        f"make {e.length} tokens, over the judge's window of {self.max_length}."
                        " Shorten the context (or the target), or use a judge with a longer "
                        "context window."
                    )
        return encoded

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        return await self.score_encoded(self.encode_requests(requests))

    async def score_encoded(self, encoded: Sequence[EncodedRequest]) -> list[TokenScores]:
        self._check_open()
        todo = [i for i, e in enumerate(encoded) if e.n_scored > 0]
        lengths = [encoded[i].length for i in todo]
        packed = bool(todo) and await self._packing_ok()
        plan = plan_packed_batches if packed else plan_batches
        batches = [[todo[j] for j in b] for b in plan(lengths, self.max_batch_tokens)]
        bits: dict[int, list[float]] = {}

        async def run(batch: list[int]) -> None:
            items = [encoded[i] for i in batch]
            sizes = [e.length for e in items]
            cost = sum(sizes) if packed else padded_cost(sizes)
            rep = min(self._replicas, key=lambda r: r.load)
            rep.load += cost
            try:
                if rep.cuda:  # build the inputs off the device thread, into pinned memory
                    prep = await asyncio.get_running_loop().run_in_executor(
                        self._prepare, self._prepare_inputs, items, packed, True
                    )
                    work = lambda: self._run(rep, items, prep)  # noqa: E731
                else:
                    work = lambda: self._run(  # noqa: E731
                        rep, items, self._prepare_inputs(items, packed, False)
                    )
                values = await asyncio.get_running_loop().run_in_executor(rep.executor, work)
            finally:
                rep.load -= cost
            bits.update(zip(batch, values, strict=True))

        await asyncio.gather(*(run(b) for b in batches))
        return [
            TokenScores(e.scored_pieces, tuple(bits.get(i, ())), e.scored_shown)
            if e.n_scored
            else TokenScores(tokens=(), bits=())
            for i, e in enumerate(encoded)
        ]

    async def _packing_ok(self) -> bool:
        """Run the packing self-test once, on a replica's worker thread."""
        if self._packing is None:
            rep = self._replicas[0]
            ok = await asyncio.get_running_loop().run_in_executor(
                rep.executor, packing_works, rep.model, rep.device
            )
            self._packing = ok
        return self._packing

    def _prepare_inputs(self, items: Sequence[EncodedRequest], packed: bool, pin: bool) -> Prepared:
        """The batch's input tensors on the host."""
        if not packed:
            return prepare_batch(items, self._pad_id, pin)
        seqs = [e.input_ids for e in items]
        rows = plan_rows(seqs, self.max_batch_tokens, self._attention_width)
        return prepare_packed(items, rows, self._pad_id, pin)

    def _run(
        self, rep: _Replica, items: Sequence[EncodedRequest], prep: Prepared
    ) -> list[list[float]]:
        start = time.perf_counter()
        chunk = rep.chunk_tokens(sum(prep.sizes))
        try:
            values = run_prepared(
                rep.model, prep, rep.device, chunk, rep.body, rep.lanes, rep.head_rows
            )
        except Exception as exc:
            _release_cuda_memory(exc, rep.device)
            raise
        # Each pass runs rows × its own width (the widest row in it).
        passes = [(b - a, w) for a, b, w in row_passes(prep.sizes, chunk)]
        with self._stats_lock:
            self._stats["batches"] += 1
            self._stats["requested"] += sum(e.length for e in items)
            self._stats["positions"] += sum(prep.sizes)
            self._stats["padded"] += sum(n * w for n, w in passes)
            self._stats["padded_sq"] += sum(n * w * w for n, w in passes)
            self._stats["scored"] += sum(e.n_scored for e in items)
            self._stats["busy_s"] += time.perf_counter() - start
        return values

    # ------------------------------------------------------------------ text

    async def tokenize(self, texts: Sequence[str], dialect: Dialect = "xgl") -> list[list[str]]:
        """Pieces as the judge splits a target in `dialect`; they concatenate to the text."""
        return self._encoder.tokenize(texts, dialect)

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        """Seeded samples of about `max_tokens` tokens (`sample_ids`, decoded). With an
        empty prompt the sample's leading space (the whitespace convention's) is dropped."""
        ids = await self.sample_ids(requests)
        texts = []
        for r, tokens in zip(requests, ids, strict=True):
            text = self._encoder.decode(tokens) if tokens else ""
            texts.append(text[1:] if not r.prompt and text[:1] == " " else text)
        return texts

    async def sample_ids(self, requests: Sequence[GenerateRequest]) -> list[list[int]]:
        """The token ids of seeded samples; a sample never depends on which other samples
        are drawn with it (`arena.judges.hf.sampling`: blocks of a fixed shape, formed across
        concurrent calls).

        The prompt follows the `xgl` rules: BOS, then the prompt with the whitespace
        convention. Special tokens are never sampled, so exactly `max_tokens` tokens come
        out.
        """
        self._check_open()
        bos = self._encoder.bos_id
        if bos is None:
            raise JudgeError("This judge's tokenizer has no BOS or EOS token to start samples.")
        prompts = self._encoder.encode_texts([r.prompt for r in requests], "xgl")
        for r, p in zip(requests, prompts, strict=True):
            total = 1 + len(p.ids) + max(0, r.max_tokens)
            if self.max_length is not None and total > self.max_length:
                raise JudgeError(
                    f"Cannot sample {r.max_tokens} tokens after a prompt of {len(p.ids)} "
                    f"tokens: the judge's window is {self.max_length} tokens. Ask for fewer."
                )
        rows = [
            SampleRow((bos, *p.ids), r.max_tokens, r.seed, r.temperature)
            for r, p in zip(requests, prompts, strict=True)
        ]
        todo = [i for i, r in enumerate(rows) if r.max_tokens > 0]
        drawn = await self._sample_queue().draw([rows[i] for i in todo])
        out: list[list[int]] = [[] for _ in rows]
        for i, ids in zip(todo, drawn, strict=True):
            out[i] = ids
        return out

    def sampling_stats(self) -> dict[str, int]:
        """Sample blocks run so far and the real rows in them (the rest were fillers)."""
        if self._sampling is None:
            return {"blocks": 0, "rows": 0}
        return dict(self._sampling.stats)

    def _sample_queue(self) -> SampleQueue:
        if self._sampling is None:
            self._sampling = SampleQueue([r.sample_slots(self._sample_block)
                                          for r in self._replicas])
        return self._sampling

    def _sample_block(self, rep: _Replica, rows: Sequence[SampleRow]) -> list[list[int]]:
        """One block on `rep` (in a sampling slot's thread)."""
        try:
            return sample_block(
                rep.model,
                rows,
                banned=sorted(self._encoder.special_ids),
                vocab_limit=self._vocab_limit,
                device=rep.device,
            )
        except Exception as exc:
            _release_cuda_memory(exc, rep.device)
            raise

    # ------------------------------------------------------------------ lifecycle

    def _check_open(self) -> None:
        if self._closed:
            raise JudgeError(f"Judge '{self._info.model}' is closed; create a new one.")

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        for rep in self._replicas:
            await asyncio.to_thread(rep.shutdown)
        await asyncio.to_thread(self._prepare.shutdown, True)
        cuda = any(r.device.startswith("cuda") for r in self._replicas)
        for rep in self._replicas:
            rep.model = None
        if cuda:
            torch, _ = require_torch()
            torch.cuda.empty_cache()

    def __repr__(self) -> str:
        info = self._info
        return f"HFJudge(model={info.model!r}, devices={self.devices}, dtype={info.dtype})"


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _release_cuda_memory(exc: BaseException, device: str) -> None:
    """After an out-of-memory error, hand cached blocks back so a smaller retry can fit."""
    if device.startswith("cuda") and "out of memory" in str(exc).lower():
        torch, _ = require_torch()
        torch.cuda.empty_cache()


HF_PARAMS = (
    "device",
    "dtype",
    "attn",
    "revision",
    "trust_remote_code",
    "max_batch_tokens",
    "packing",
    "tf32",
    "compile",
    "lanes",
)
# A ceiling for the lanes option: more threads than this is a typo, not a machine.
MAX_LANES = 256


def check_hf_spec(spec: Spec) -> None:
    """`ConfigError` for an `hf:` judge spec without a model or with a bad parameter (no
    model is loaded)."""
    spec.expect_params(HF_PARAMS, "judge")
    if not spec.arg:
        raise ConfigError(
            f"Judge spec '{spec.raw}' names no model. Write hf:<hub id or folder>, "
            "e.g. hf:gpt2 or hf:/models/my-judge?device=cuda:0."
        )
    spec.bool_param("trust_remote_code", False)
    spec.int_param("max_batch_tokens", 8192, minimum=1)
    spec.bool_param("packing", True)
    spec.bool_param("tf32", True)
    spec.bool_param("compile", False)
    _lanes_param(spec)


def _lanes_param(spec: Spec) -> int | None:
    """The `lanes` option: None (one lane per torch thread) when absent."""
    if "lanes" not in spec.params:
        return None
    return spec.int_param("lanes", 2, minimum=1, maximum=MAX_LANES)


def create_hf_judge(spec: Spec) -> HFJudge:
    """`hf:<hub id or path>?device=auto|cpu|cuda:0,cuda:1&dtype=float32&attn=sdpa&...`.

    Options: device (default auto: cuda, then mps, else cpu; comma-separated for one replica
    per device), tf32 (0/1, default 1: TF32 matmuls for float32 on CUDA), compile=1 (default 0)
    to torch.compile the body, dtype (float32, bfloat16,
    float16, auto), attn (eager, sdpa, flash_attention_2, ...), revision (hub branch, tag
    or commit), trust_remote_code (0/1), max_batch_tokens (padded tokens per forward pass),
    packing (0/1, default 1: pack several requests per row when the model supports it),
    lanes (CPU: forward passes at once, each on its own thread with a share of torch's
    threads; default one per thread, 1 for one pass at a time on all of them).
    """
    check_hf_spec(spec)
    return HFJudge.from_pretrained(
        spec.arg,
        device=spec.params.get("device", "auto"),
        dtype=spec.params.get("dtype", "float32"),
        attn_implementation=spec.params.get("attn") or None,
        revision=spec.params.get("revision") or None,
        trust_remote_code=spec.bool_param("trust_remote_code", False),
        max_batch_tokens=spec.int_param("max_batch_tokens", 8192, minimum=1),
        packing=spec.bool_param("packing", True),
        tf32=spec.bool_param("tf32", True),
        compile=spec.bool_param("compile", False),
        lanes=_lanes_param(spec),
    )
