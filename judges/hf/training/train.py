"""Train the bundled judge: a byte-level BPE tokenizer and a small GPT-2 on the story corpus.

Usage:
    python -m arena.judges.hf.training.train --out judges/hf/bundled --minutes 25

Runs on CPU (2 threads by default) with fixed seeds. The learning rate follows a warmup and
a cosine decay over the time budget (or over `--steps` when given), so a run of any length
ends with a decayed rate. Writes config.json, generation_config.json, model.safetensors,
the tokenizer files and training_info.json into `--out`.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path
from typing import Any

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import GenerationConfig, GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast
from transformers import logging as hf_logging

from arena.judges.hf.training.corpus import HELDOUT_SEED, TRAIN_SEED, generate_corpus

SPECIAL = "<|endoftext|>"  # BOS, EOS and padding, as in GPT-2
MAX_BUNDLE_BYTES = 20 * 1024 * 1024


def train_tokenizer(docs: list[str], vocab_size: int) -> PreTrainedTokenizerFast:
    """A byte-level BPE over the documents as the judge sees them (leading space)."""
    tok = Tokenizer(models.BPE())
    # add_prefix_space=False: the judge adds the leading space itself (XGL dialect xgl).
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        special_tokens=[SPECIAL],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator((" " + d for d in docs), trainer)
    return PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=tok,
        bos_token=SPECIAL,
        eos_token=SPECIAL,
        unk_token=SPECIAL,
        pad_token=SPECIAL,
        model_max_length=512,
    )


def encode(tokenizer: PreTrainedTokenizerFast, docs: list[str], max_len: int) -> list[list[int]]:
    """BOS + tokens of " " + document, cut to `max_len`: the judge's xgl sequence layout."""
    bos = tokenizer.bos_token_id
    assert bos is not None
    out: list[list[int]] = []
    for i in range(0, len(docs), 2000):  # in chunks: whole-corpus encodings take gigabytes
        chunk = [" " + d for d in docs[i : i + 2000]]
        ids = tokenizer(chunk, add_special_tokens=False)["input_ids"]
        out += [([bos, *seq, bos])[:max_len] for seq in ids]
    return out


def batch_tensors(seqs: list[list[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-padded inputs and labels (-100 on padding, so padding is never learned)."""
    width = max(len(s) for s in seqs)
    inputs = torch.full((len(seqs), width), pad_id, dtype=torch.long)
    labels = torch.full((len(seqs), width), -100, dtype=torch.long)
    for i, s in enumerate(seqs):
        inputs[i, : len(s)] = torch.tensor(s)
        labels[i, : len(s)] = torch.tensor(s)
    return inputs, labels


def lr_at(progress: float, peak: float, warmup: float) -> float:
    """Linear warmup over the first `warmup` fraction, then cosine decay to 10% of peak."""
    if progress < warmup:
        return peak * progress / warmup
    frac = min(1.0, (progress - warmup) / (1.0 - warmup))
    return peak * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * frac)))


@torch.no_grad()
def eval_loss(model: GPT2LMHeadModel, seqs: list[list[int]], pad_id: int) -> float:
    """Mean per-token loss (nats) on `seqs`."""
    model.train(False)  # inference mode for the held-out loss
    total, count = 0.0, 0
    for i in range(0, len(seqs), 32):
        inputs, labels = batch_tensors(seqs[i : i + 32], pad_id)
        n = int((labels[:, 1:] != -100).sum())
        total += float(model(input_ids=inputs, labels=labels).loss) * n
        count += n
    model.train()
    return total / max(count, 1)


def new_model(
    tokenizer: PreTrainedTokenizerFast, args: argparse.Namespace, pad_id: int
) -> GPT2LMHeadModel:
    """A freshly initialised GPT-2 sized by the command line (no dropout: one pass)."""
    config = GPT2Config(
        vocab_size=len(tokenizer),
        n_positions=512,
        n_embd=args.n_embd,
        n_layer=args.n_layer,
        n_head=args.n_head,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=pad_id,
    )
    return GPT2LMHeadModel(config)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("judges/hf/bundled"))
    p.add_argument("--minutes", type=float, default=25.0, help="training time budget")
    p.add_argument("--steps", type=int, default=0, help="fixed step count (overrides minutes)")
    p.add_argument("--stories", type=int, default=120000)
    p.add_argument("--init", type=Path, default=None, help="checkpoint folder to continue")
    p.add_argument("--corpus-seed", type=int, default=TRAIN_SEED)
    p.add_argument("--seed", type=int, default=0, help="torch / batching seed")
    p.add_argument("--vocab", type=int, default=3000)
    p.add_argument("--n-layer", type=int, default=4)
    p.add_argument("--n-embd", type=int, default=256)
    p.add_argument("--n-head", type=int, default=4)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--max-len", type=int, default=320)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--log-every", type=int, default=50)
    p.add_argument("--no-bf16", dest="bf16", action="store_false", help="train in plain fp32")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    # Right padding without an attention mask is intended: the model is causal.
    hf_logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    t0 = time.monotonic()

    before = previous_info(args.init)
    docs = generate_corpus(args.stories, args.corpus_seed)
    if args.init:
        tokenizer = PreTrainedTokenizerFast.from_pretrained(str(args.init))
    else:
        tokenizer = train_tokenizer(docs, args.vocab)
    seqs = encode(tokenizer, docs, args.max_len)
    held = encode(tokenizer, generate_corpus(200, HELDOUT_SEED), args.max_len)
    pad_id = int(tokenizer.pad_token_id or 0)
    n_tokens = sum(len(s) for s in seqs)
    print(f"corpus: {len(docs)} docs, {n_tokens} tokens, vocab {len(tokenizer)}", flush=True)

    if args.init:  # continue training a saved checkpoint (same tokenizer, same config)
        model = GPT2LMHeadModel.from_pretrained(str(args.init), dtype=torch.float32)
    else:
        model = new_model(tokenizer, args, pad_id)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"model: {n_params} parameters", flush=True)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}],
        lr=args.lr,
        betas=(0.9, 0.98),
    )

    budget = args.minutes * 60.0
    t_train = time.monotonic()
    order: list[int] = []
    step, seen_tokens, loss_ema = 0, 0, float("nan")
    model.train()
    while True:
        elapsed = time.monotonic() - t_train
        progress = step / args.steps if args.steps else elapsed / budget
        if progress >= 1.0:
            break
        for group in opt.param_groups:
            group["lr"] = lr_at(progress, args.lr, warmup=0.03)
        if len(order) < args.batch:
            order = list(range(len(seqs)))
            rng.shuffle(order)
        idx, order = order[: args.batch], order[args.batch :]
        inputs, labels = batch_tensors([seqs[i] for i in idx], pad_id)
        # bf16 autocast keeps fp32 master weights and is ~3x faster on AVX-512 CPUs.
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
            loss = model(input_ids=inputs, labels=labels).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        seen_tokens += int((labels != -100).sum())
        value = loss.item()
        loss_ema = value if math.isnan(loss_ema) else 0.98 * loss_ema + 0.02 * value
        if step % args.log_every == 0:
            rate = seen_tokens / max(elapsed, 1e-9)
            lr = opt.param_groups[0]["lr"]
            print(
                f"step {step} loss {value:.3f} ema {loss_ema:.3f} lr {lr:.2e}"
                f" elapsed {elapsed:.0f}s tok/s {rate:.0f}",
                flush=True,
            )
    train_seconds = time.monotonic() - t_train
    held_loss = eval_loss(model, held, pad_id)
    print(f"done: {step} steps, held-out loss {held_loss:.3f} nats/token", flush=True)
    save(
        model,
        tokenizer,
        args,
        {
            "corpus_seed": args.corpus_seed,
            "heldout_seed": HELDOUT_SEED,
            "stories": len(docs),
            "corpus_tokens": n_tokens,
            "vocab_size": len(tokenizer),
            "parameters": n_params,
            "steps": step + int(before.get("steps", 0)),
            "steps_this_run": step,
            "batch": args.batch,
            "tokens_seen": seen_tokens,
            "final_loss_ema_nats": round(loss_ema, 4),
            "heldout_loss_nats": round(held_loss, 4),
            "train_seconds": round(train_seconds, 1),
            "wall_seconds": round(time.monotonic() - t0, 1),
            "threads": args.threads,
            "bf16_autocast": args.bf16,
            "torch": torch.__version__,
            "continued_from": before,
        },
    )


def previous_info(init: Path | None) -> dict[str, Any]:
    """training_info.json of the checkpoint a run continues from ({} for a fresh model)."""
    if init is None or not (init / "training_info.json").is_file():
        return {}
    info: dict[str, Any] = json.loads((init / "training_info.json").read_text())
    return info


def save(
    model: GPT2LMHeadModel,
    tokenizer: PreTrainedTokenizerFast,
    args: argparse.Namespace,
    info: dict[str, Any],
) -> None:
    """Write the checkpoint; fp16 weights only if fp32 would break the size limit."""
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    dtype = "float32"
    if sum(p.numel() for p in model.parameters()) * 4 > MAX_BUNDLE_BYTES - 1_000_000:
        model = model.half()  # type: ignore[no-untyped-call]
        dtype = "float16"
    model.generation_config = GenerationConfig(  # type: ignore[no-untyped-call]
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        do_sample=True,
        max_new_tokens=200,
    )
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    info = {**info, "weights_dtype": dtype, "args": {k: str(v) for k, v in vars(args).items()}}
    (out / "training_info.json").write_text(json.dumps(info, indent=2) + "\n")
    total = sum(f.stat().st_size for f in out.iterdir() if f.is_file())
    print(f"saved to {out}: {total / 1e6:.2f} MB", flush=True)


if __name__ == "__main__":
    main()
