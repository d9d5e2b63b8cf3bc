"""Loading a causal LM and its tokenizer for the HF judge, with errors that say where we looked.

torch and transformers are imported inside functions only: importing this module is cheap
and works without them.
"""

from __future__ import annotations

import copy
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from arena.errors import ConfigError, JudgeError, MissingExtraError, did_you_mean

# Accepted dtype names -> canonical name ("auto": the checkpoint's own dtype).
DTYPES: dict[str, str] = {
    "float32": "float32",
    "fp32": "float32",
    "float16": "float16",
    "fp16": "float16",
    "half": "float16",
    "bfloat16": "bfloat16",
    "bf16": "bfloat16",
    "auto": "auto",
}
TORCH_INSTALL = "pip install torch==2.13.0 && pip install xent-arena"


def canonical_dtype(name: str) -> str:
    """The canonical dtype name for `name`; `ConfigError` listing the options otherwise."""
    key = name.strip().lower()
    if key not in DTYPES:
        raise ConfigError(
            f"Unknown judge dtype '{name}'.{did_you_mean(key, DTYPES)} "
            "Use float32 for exact scores, bfloat16 or float16 to halve GPU memory."
        )
    return DTYPES[key]


def require_torch() -> tuple[ModuleType, ModuleType]:
    """Import torch and transformers, or say how to reinstall them."""
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise MissingExtraError(
            "The HF judge", f"torch and transformers ({exc.name or exc})", TORCH_INSTALL
        ) from None
    return torch, transformers


def auto_device() -> str:
    """The best device here: cuda when present, then mps, else cpu."""
    torch, _ = require_torch()
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def check_devices(device: str | Sequence[str]) -> list[str]:
    """Validated device names, one per model replica (`auto`: see `auto_device`)."""
    torch, _ = require_torch()
    names = [device] if isinstance(device, str) else list(device)
    names = [n.strip() for part in names for n in part.split(",") if n.strip()]
    names = [auto_device() if n.lower() == "auto" else n for n in names]
    if not names:
        raise ConfigError("No judge device given. Use e.g. device=cpu or device=cuda:0,cuda:1.")
    for name in names:
        try:
            dev = torch.device(name)
        except (RuntimeError, ValueError):
            raise ConfigError(
                f"Unknown judge device '{name}'. Use auto, cpu, cuda, cuda:<index> or mps."
            ) from None
        if dev.type == "cuda":
            count = torch.cuda.device_count() if torch.cuda.is_available() else 0
            if count == 0 or (dev.index is not None and dev.index >= count):
                raise ConfigError(
                    f"Judge device '{name}' is not available: this machine has {count} CUDA "
                    "device(s). Use device=cpu or an index below the device count."
                )
        if dev.type == "mps" and not torch.backends.mps.is_available():
            raise ConfigError(f"Judge device '{name}' is not available here. Use device=cpu.")
    return names


def configure_cuda(tf32: bool) -> None:
    """Process-wide CUDA settings for scoring: TF32 matmuls for float32 models (`tf32`;
    ~7x the float32 rate on an H100, 10-bit mantissa products with float32 sums), and
    no cuDNN attention: it builds a plan (~130 ms) for every new batch shape, and packed
    batches almost never repeat a shape (it made bfloat16 slower than float32)."""
    torch, _ = require_torch()
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    enable = getattr(torch.backends.cuda, "enable_cudnn_sdp", None)
    if enable is not None:
        enable(False)


def fuse_activations(model: Any) -> int:
    """Swap transformers' Python tanh-GELU (`NewGELUActivation`, GPT-2's five elementwise
    kernels) for torch's fused kernel of the same function (`GELUTanh`): a third of a small
    model's CPU forward. Rounding differs by ~1e-7 relative. Returns how many were swapped."""
    from transformers import activations

    slow = getattr(activations, "NewGELUActivation", None)
    fast = getattr(activations, "GELUTanh", None) or getattr(activations, "PytorchGELUTanh", None)
    if slow is None or fast is None:
        return 0
    swapped = 0
    for module in model.modules():
        for name, child in list(module.named_children()):
            if type(child) is slow:
                replacement = fast()
                replacement.swapped_from = slow  # lets a benchmark rebuild the stock model
                setattr(module, name, replacement)
                swapped += 1
    return swapped


def stock_activations(model: Any) -> Any:
    """A copy of `model` with the activations `fuse_activations` swapped put back."""
    stock = copy.deepcopy(model)
    for module in stock.modules():
        for name, child in list(module.named_children()):
            original = getattr(child, "swapped_from", None)
            if original is not None:
                setattr(module, name, original())
    return stock


def _local_dir(model: str) -> Path | None:
    """The local folder `model` names, None for a hub id; error for a missing path."""
    path = Path(model).expanduser()
    if path.exists():
        if not (path / "config.json").is_file():
            raise JudgeError(
                f"Cannot load judge model '{model}': looked in the local folder "
                f"{path.resolve()} and found no config.json. Point to a folder written by "
                "save_pretrained (config.json, weights, tokenizer files)."
            )
        return path
    looks_like_path = (
        path.is_absolute() or model.startswith((".", "~")) or model.count("/") > 1 or "\\" in model
    )
    if looks_like_path:
        raise JudgeError(
            f"Cannot load judge model '{model}': there is no folder at {path.resolve()}. "
            "Check the path, or give a Hugging Face hub id such as 'gpt2'."
        )
    return None


def weights_digest(folder: Path) -> str:
    """A short sha256 over a local checkpoint's weight files: its revision."""
    digest = hashlib.sha256()
    files = sorted(
        p for p in folder.iterdir() if p.suffix in (".safetensors", ".bin") and p.is_file()
    )
    for file in files:
        digest.update(file.name.encode())
        with file.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return "sha256:" + digest.hexdigest()[:16]


def load_pretrained(
    model: str,
    *,
    dtype: str,
    attn_implementation: str | None,
    revision: str | None,
    trust_remote_code: bool,
) -> tuple[Any, Any, str]:
    """(model on CPU in eval mode, fast tokenizer, revision string)."""
    torch, transformers = require_torch()
    local = _local_dir(model)
    where = (
        f"the local folder {local.resolve()}"
        if local is not None
        else f"the Hugging Face hub (revision '{revision or 'main'}', cache {_hub_cache()})"
    )
    fix = (
        "Check that the folder has config.json, weights and tokenizer files."
        if local is not None
        else "Check the model id and revision, the network (or HF_HUB_OFFLINE=1 to use the "
        "cache only) and HF_TOKEN for gated models."
    )
    kwargs: dict[str, Any] = {"revision": revision, "trust_remote_code": trust_remote_code}
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(model, **kwargs)
    except Exception as exc:  # transformers raises OSError, ValueError, KeyError, ...
        raise JudgeError(
            f"Cannot load the tokenizer of judge model '{model}' from {where}: {exc} {fix}"
        ) from exc
    if not getattr(tokenizer, "is_fast", False):
        raise JudgeError(
            f"Judge model '{model}' has no fast tokenizer (tokenizer.json); the judge needs "
            "one for exact token offsets. Convert it with transformers and save it again."
        )
    torch_dtype = "auto" if dtype == "auto" else getattr(torch, dtype)
    dtype_kw = "dtype" if _transformers_at_least(transformers, 4, 56) else "torch_dtype"
    kwargs[dtype_kw] = torch_dtype
    if attn_implementation:
        kwargs["attn_implementation"] = attn_implementation
    try:
        lm = transformers.AutoModelForCausalLM.from_pretrained(model, **kwargs)
    except Exception as exc:
        attn = f" with attn_implementation='{attn_implementation}'" if attn_implementation else ""
        raise JudgeError(
            f"Cannot load judge model '{model}'{attn} from {where}: {exc} {fix}"
        ) from exc
    lm.eval()
    lm.requires_grad_(False)
    rev = getattr(lm.config, "_commit_hash", None) or ""
    if local is not None:
        rev = weights_digest(local)
    return lm, tokenizer, str(rev or revision or "")


def _hub_cache() -> str:
    try:
        from huggingface_hub import constants

        return str(constants.HF_HUB_CACHE)
    except ImportError:  # transformers always brings it; keep the message useful anyway
        return os.environ.get("HF_HUB_CACHE", "~/.cache/huggingface/hub")


def _transformers_at_least(transformers: ModuleType, major: int, minor: int) -> bool:
    parts = str(transformers.__version__).split(".")
    try:
        return (int(parts[0]), int(parts[1])) >= (major, minor)
    except (ValueError, IndexError):
        return True
