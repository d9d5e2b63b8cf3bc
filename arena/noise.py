"""Third-party chatter on the terminal: warnings, log lines and progress bars from
transformers, huggingface_hub, tokenizers, torch and litellm.

A person reading `arena` output should see the arena's own messages only; `--verbose`
(a global option of `arena`) lets the libraries speak again.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings

# Read by the libraries when they are imported (so set them before that happens).
QUIET_ENV = {
    "TRANSFORMERS_VERBOSITY": "error",
    "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "LITELLM_LOG": "ERROR",
}
NOISY_LOGGERS = (
    "transformers", "huggingface_hub", "tokenizers", "torch", "safetensors", "filelock",
    "urllib3", "httpx", "LiteLLM", "litellm", "aiohttp",
)
FIRST_PARTY = r"(arena|judges|players|tournaments|dashboard)(\..*)?$"


def quiet_third_party() -> None:
    """Silence third-party warnings, logs below ERROR and progress bars in this process.

    Environment settings the user made explicitly win (``setdefault``)."""
    for name, value in QUIET_ENV.items():
        os.environ.setdefault(name, value)
    warnings.filterwarnings("ignore")
    warnings.filterwarnings("default", module=FIRST_PARTY)
    for name in NOISY_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)
    _quiet_imported_libraries()


def _quiet_imported_libraries() -> None:
    """Libraries imported before `quiet_third_party` read their settings already."""
    hub = sys.modules.get("huggingface_hub.utils")
    if hub is not None:
        hub.disable_progress_bars()
    hf_logging = sys.modules.get("transformers.utils.logging")
    if hf_logging is not None:
        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()


def verbose_third_party() -> None:
    """`--verbose`: warnings shown once each and library logs at INFO on stderr."""
    warnings.simplefilter("default")
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s: %(message)s")
