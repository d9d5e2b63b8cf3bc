"""The HF judge's forward passes (run on device worker threads, never on the event loop).

Scoring runs the base model (no LM head) over a right-padded batch, or over rows packed
with shared prefixes computed once (`arena.judges.hf.packing`), selects the hidden states of
the positions that predict a scored target token, and applies the LM head to those rows
only, so logits are never computed for context tokens or padding. Log-probs are a float32
log-softmax at the target, converted to bits.

Rows are ordered longest first and may run in passes (`arena.judges.hf.batching.row_passes`),
each trimmed to its own longest row, with its LM head right after it, and passes may run
on several threads at once (`arena.judges.hf.lanes`): rows are independent, so all of this
is exact. Rows that each hold one whole sequence (nothing packed beside it, no shared
prefix) need no 4D mask: a causal one is exact, and SDPA's causal kernel skips the upper
triangle.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from arena.errors import JudgeError
from arena.judges.hf.batching import row_passes
from arena.judges.hf.encoded import EncodedRequest
from arena.judges.hf.packing import RowLayout, layout_row, pad_row

LN2 = math.log(2.0)
# Rows of logits materialised at once: bounds memory with large vocabularies.
HEAD_CHUNK_ELEMENTS = 1 << 25


def attention_width(model: Any) -> float:
    """Context length at which attention (QK^T and AV: 4·layers·d per position and context
    token) costs as much as a position's matrix multiplies (2 per weight of the body):
    packing weighs wider rows with it. Infinite when the config does not say."""
    weights = body_weights(model)  # first: a model with no separate body is refused here
    config = model.config.get_text_config() if hasattr(model.config, "get_text_config") else None
    layers = getattr(config, "num_hidden_layers", None)
    d_model = getattr(config, "hidden_size", None)
    if not isinstance(layers, int) or not isinstance(d_model, int) or layers * d_model == 0:
        return math.inf
    return weights / (2.0 * layers * d_model) if weights else math.inf


def body_weights(model: Any) -> int:
    """Weights of the body's matrix multiplies (embeddings and the LM head left out): a
    position costs 2 FLOPs per weight."""
    import torch

    base, _ = base_and_head(model)
    return sum(
        p.numel()
        for m in base.modules()
        if not isinstance(m, torch.nn.Embedding)
        for p in m.parameters(recurse=False)
        if p.dim() >= 2
    )


def base_and_head(model: Any) -> tuple[Any, Any]:
    """The transformer body (returns hidden states) and the LM head of a causal LM."""
    head = model.get_output_embeddings()
    base = getattr(model, "base_model", None)
    if base is None or base is model:
        getter = getattr(model, "get_decoder", None)
        base = getter() if getter is not None else None
    if head is None or base is None or base is model:
        raise JudgeError(
            f"Judge model class {type(model).__name__} exposes no separate body and LM head; "
            "the judge supports causal LMs loaded with AutoModelForCausalLM."
        )
    return base, head


def post_head(config: Any, logits: Any) -> Any:
    """Logit transforms some architectures apply after the head (kept exact)."""
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    scale = getattr(text, "logit_scale", None)  # Cohere multiplies
    if isinstance(scale, int | float):
        logits = logits * scale
    scaling = getattr(text, "logits_scaling", None)  # Granite divides
    if isinstance(scaling, int | float) and scaling:
        logits = logits / scaling
    cap = getattr(text, "final_logit_softcapping", None)  # Gemma 2/3
    if isinstance(cap, int | float) and cap:
        import torch

        logits = torch.tanh(logits / cap) * cap
    return logits


@dataclass
class Prepared:
    """A batch's inputs built on the host (pinned when bound for CUDA), before any forward.

    `ends` is set for packed rows: the 4D mask is built from it on the device (it is
    rows × width² and would cost more to copy than to build). `flat` indexes the scored
    positions in the [rows × width] hidden states; `targets` are the tokens they predict.
    `sizes` are the tokens used in each row, longest first; `plain` says that every row is
    one sequence from position 0 (a causal mask is exact for it).
    """

    ids: Any
    positions: Any | None
    ends: Any | None
    attention: Any | None
    flat: Any
    targets: Any
    counts: list[int]
    sizes: list[int]
    plain: bool = False


def prepare_batch(batch: Sequence[EncodedRequest], pad_id: int, pin: bool = False) -> Prepared:
    """Inputs of one right-padded row per request (for models that cannot pack), longest
    row first."""
    order = sorted(range(len(batch)), key=lambda i: -batch[i].length)
    row_of = {i: r for r, i in enumerate(order)}
    width = batch[order[0]].length
    rows = [list(batch[i].input_ids) + [pad_id] * (width - batch[i].length) for i in order]
    mask_rows = [[1] * batch[i].length + [0] * (width - batch[i].length) for i in order]
    # Position p predicts token p + 1, so the rows we need are first_scored-1 .. length-2.
    flat = [
        row_of[i] * width + p
        for i, e in enumerate(batch)
        for p in range(e.first_scored - 1, e.length - 1)
    ]
    sizes = [batch[i].length for i in order]
    return _prepared(rows, None, None, mask_rows, flat, batch, pin, sizes)


def prepare_packed(
    batch: Sequence[EncodedRequest],
    rows: Sequence[Sequence[Sequence[int]]],
    pad_id: int,
    pin: bool = False,
) -> Prepared:
    """Inputs of requests packed into `rows` (from `plan_rows`), shared prefixes once,
    longest row first."""
    seqs = [e.input_ids for e in batch]
    layouts = sorted((layout_row(seqs, row) for row in rows), key=lambda lay: -len(lay.tokens))
    sizes = [len(lay.tokens) for lay in layouts]
    width = sizes[0]
    layouts = [pad_row(lay, width, pad_id) for lay in layouts]
    plain = all(len(row) == 1 and len(row[0]) == 1 for row in rows)
    owner = {i: r for r, lay in enumerate(layouts) for i in lay.paths}
    flat: list[int] = []
    for i, e in enumerate(batch):
        base = owner[i] * width
        flat += [base + q for q in layouts[owner[i]].paths[i][e.first_scored - 1 : e.length - 1]]
    return _prepared(
        [lay.tokens for lay in layouts],
        [lay.positions for lay in layouts],
        [lay.ends for lay in layouts],
        None,
        flat,
        batch,
        pin,
        sizes,
        plain,
    )


def _prepared(
    ids: list[list[int]],
    positions: list[list[int]] | None,
    ends: list[list[int]] | None,
    attention: list[list[int]] | None,
    flat: list[int],
    batch: Sequence[EncodedRequest],
    pin: bool,
    sizes: list[int],
    plain: bool = False,
) -> Prepared:
    import torch

    def tensor(data: Any) -> Any:
        t = torch.tensor(data, dtype=torch.long)
        return t.pin_memory() if pin else t

    targets = [t for e in batch for t in e.input_ids[e.first_scored :]]
    return Prepared(
        ids=tensor(ids),
        positions=None if positions is None else tensor(positions),
        ends=None if ends is None else tensor(ends),
        attention=None if attention is None else tensor(attention),
        flat=tensor(flat),
        targets=tensor(targets),
        counts=[e.n_scored for e in batch],
        sizes=sizes,
        plain=plain,
    )


def score_batch(
    model: Any, batch: Sequence[EncodedRequest], device: str, pad_id: int
) -> list[list[float]]:
    """Bits of every scored target token of each request (requests with n_scored > 0),
    one right-padded row per request."""
    return run_prepared(model, prepare_batch(batch, pad_id), device)


def score_packed(
    model: Any,
    batch: Sequence[EncodedRequest],
    rows: Sequence[Sequence[Sequence[int]]],
    device: str,
    pad_id: int,
) -> list[list[float]]:
    """Like `score_batch`, with requests packed into rows and common prefixes computed
    once (see `arena.judges.hf.packing`; `rows` comes from `plan_rows`). Only valid for models that
    pass `packing_works`."""
    return run_prepared(model, prepare_packed(batch, rows, pad_id), device)


def run_prepared(
    model: Any,
    prep: Prepared,
    device: str,
    chunk_tokens: int | None = None,
    body: Any | None = None,
    lanes: Executor | None = None,
    head_rows: int | None = None,
) -> list[list[float]]:
    """Body over the batch, LM head on the scored positions only: the bits of each target
    token. Rows run in passes of about `chunk_tokens` tokens when given (each pass as wide
    as its longest row; on a CPU, activations of a small pass stay in cache), on `lanes`
    when given and there are several passes. The head takes `head_rows` rows at a time
    (default: a bounded number of logits). `body` replaces the model's own body (a
    `torch.compile`d one)."""
    import torch

    body = body if body is not None else base_and_head(model)[0]
    passes = row_passes(prep.sizes, chunk_tokens)
    width = int(prep.ids.shape[1])
    with torch.inference_mode():
        flat = prep.flat.to(device, non_blocking=True)
        targets = prep.targets.to(device, non_blocking=True)
        logprobs = torch.empty(int(targets.shape[0]), dtype=torch.float32, device=device)
        row, col = (flat // width, flat % width) if len(passes) > 1 else (flat, flat)

    def one(start: int, stop: int, w: int) -> None:
        with torch.inference_mode():
            hidden = _hidden(body, *_pass_inputs(model, prep, start, stop, w, device))
            states = hidden.flatten(0, 1)
            if len(passes) == 1:  # the whole batch: no selection (and no sync on a GPU)
                picked = states.index_select(0, flat)
                logprobs.copy_(_head_logprobs(model, picked, targets, head_rows))
                return
            sel = ((row >= start) & (row < stop)).nonzero().squeeze(1)
            if sel.numel():
                local = (row[sel] - start) * w + col[sel]
                picked = states.index_select(0, local)
                logprobs[sel] = _head_logprobs(model, picked, targets[sel], head_rows)

    if lanes is None or len(passes) == 1:
        for p in passes:
            one(*p)
    else:
        for done in [lanes.submit(one, *p) for p in passes]:
            done.result()
    with torch.inference_mode():
        bits: list[float] = (-logprobs.double() / LN2).cpu().tolist()
    return _split(bits, prep.counts)


def _pass_inputs(
    model: Any, prep: Prepared, start: int, stop: int, width: int, device: str
) -> tuple[Any, dict[str, Any]]:
    """Token ids of rows start..stop, cut to `width`, and what the body needs besides."""
    import torch

    def part(t: Any) -> Any:
        return t[start:stop, :width].to(device, non_blocking=True)

    ids = part(prep.ids)
    if prep.plain:  # one sequence per row, padding after it: causal is exact
        return ids, {"attention_mask": torch.ones_like(ids)}
    if prep.ends is not None and prep.positions is not None:
        mask = _packed_mask(model, part(prep.ends))
        return ids, {"position_ids": part(prep.positions), "attention_mask": mask}
    if prep.attention is not None:
        return ids, {"attention_mask": part(prep.attention)}
    return ids, {}


def _packed_mask(model: Any, ends: Any) -> Any:
    """The additive 4D mask [rows, 1, width, width] of packed rows, built on the device."""
    import torch

    index = torch.arange(ends.shape[1], device=ends.device)
    # Query i sees key j iff j <= i < ends[j]: j is i or one of its ancestors.
    visible = (index[None, None, :] <= index[None, :, None]) & (
        index[None, :, None] < ends[:, None, :]
    )
    dtype = next(model.parameters()).dtype
    mask = torch.zeros(visible.shape, dtype=dtype, device=ends.device)
    mask.masked_fill_(~visible, torch.finfo(dtype).min)
    return mask[:, None]


def _packed_inputs(model: Any, layouts: Sequence[RowLayout], device: str) -> tuple[Any, Any]:
    """Token ids, position ids and the additive 4D mask [rows, 1, width, width]."""
    import torch

    ids = torch.tensor([lay.tokens for lay in layouts], dtype=torch.long, device=device)
    pos = torch.tensor([lay.positions for lay in layouts], dtype=torch.long, device=device)
    ends = torch.tensor([lay.ends for lay in layouts], dtype=torch.long, device=device)
    return ids, {"position_ids": pos, "attention_mask": _packed_mask(model, ends)}


def _head_logprobs(model: Any, picked: Any, targets: Any, rows: int | None = None) -> Any:
    """LM head on the picked hidden states, `rows` at a time (default: about
    `HEAD_CHUNK_ELEMENTS` logits), log-softmax in float32: the log-prob of each target."""
    import torch

    _, head = base_and_head(model)
    n = int(targets.shape[0])
    logprobs = torch.empty(n, dtype=torch.float32, device=picked.device)
    vocab = int(getattr(head, "out_features", 0) or model.config.vocab_size)
    step = rows or max(1, HEAD_CHUNK_ELEMENTS // max(1, vocab))
    for start in range(0, n, step):
        logits = post_head(model.config, head(picked[start : start + step])).float()
        tgt = targets[start : start + step, None]
        logprobs[start : start + step] = torch.log_softmax(logits, dim=1).gather(1, tgt).squeeze(1)
    return logprobs


def _split(bits: list[float], counts: Sequence[int]) -> list[list[float]]:
    out_bits: list[list[float]] = []
    pos = 0
    for n in counts:
        out_bits.append(bits[pos : pos + n])
        pos += n
    return out_bits


def packing_works(model: Any, device: str) -> bool:
    """Whether `score_packed` is exact for this model: sequences packed in one row, two of
    them sharing a prefix, must give the hidden states they give alone. Models that ignore
    `position_ids` or custom 4D masks (e.g. flash-attention kernels) fail and are padded,
    as are sliding-window models (the check's short sequences cannot see the window)."""
    import torch

    text = model.config.get_text_config() if hasattr(model.config, "get_text_config") else None
    if getattr(text, "sliding_window", None) or getattr(text, "attention_chunk_size", None):
        return False  # a custom mask would override the window on long sequences
    base, _ = base_and_head(model)
    vocab = int(getattr(model.config, "vocab_size", 0) or 2)
    seqs = [[(7 * k + 3) % vocab for k in range(n)] for n in (6, 4)]
    seqs = [seqs[0] + [5 % vocab, 9 % vocab], seqs[0] + [2 % vocab], seqs[1]]
    layout = layout_row(seqs, [[0, 1], [2]])
    try:
        with torch.inference_mode():
            ids, extra = _packed_inputs(model, [layout], device)
            packed = _hidden(base, ids, extra)[0].float()
            alone = [_hidden(base, torch.tensor([s], device=device), {})[0] for s in seqs]
    except Exception:  # an architecture that rejects position_ids or 4D masks
        return False
    expected = torch.cat([a.float() for a in alone])
    got = torch.cat([packed[layout.paths[i]] for i in range(len(seqs))])
    scale = float(expected.abs().max()) or 1.0
    dtype = next(model.parameters()).dtype
    tolerance = 1e-4 if dtype == torch.float32 else 3e-2  # relative, per dtype precision
    return float((got - expected).abs().max()) <= tolerance * scale


def _hidden(base: Any, ids: Any, extra: dict[str, Any]) -> Any:
    out = base(input_ids=ids, use_cache=False, **extra)
    return out.last_hidden_state if hasattr(out, "last_hidden_state") else out[0]
