"""Third-party chatter (warnings, log lines and progress bars from transformers and
huggingface_hub) stays off the terminal unless `arena --verbose`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NOISY = """
import sys, warnings
from arena.cli import build_app, main
app = build_app()
@app.command("noisy")
def noisy() -> None:
    from huggingface_hub.utils import tqdm
    from transformers.utils import logging as hf_logging
    hf_logging.get_logger("transformers.modeling_utils").warning("NOISY-LOG")
    warnings.warn("NOISY-WARNING", FutureWarning, stacklevel=1)
    for _ in tqdm(range(3), desc="NOISY-BAR"):
        pass
    print("the command's own output")
main(sys.argv[1:])
"""


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TRANSFORMERS_", "HF_HUB_DISABLE"))}
    return subprocess.run([sys.executable, "-c", NOISY, *argv], capture_output=True, text=True,
                          env={**env, "PYTHONPATH": str(REPO)}, timeout=300, check=False)


def test_library_noise_is_silent_by_default_and_shown_with_verbose() -> None:
    quiet = run("noisy")
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stdout == "the command's own output\n"
    assert "NOISY" not in quiet.stderr, quiet.stderr
    loud = run("--verbose", "noisy")
    assert loud.returncode == 0, loud.stderr
    for noise in ("NOISY-LOG", "NOISY-WARNING", "NOISY-BAR"):
        assert noise in loud.stderr, (noise, loud.stderr)
