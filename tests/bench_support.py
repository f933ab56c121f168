"""Running a benchmark script from a test (``tests/e2e/test_benches.py``,
``tests/e2e/test_ai_benches.py``): the scripts run at their smallest size to prove they
still work; their figures go to docs/, not to assertions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
"""The repository root, the scripts' working directory."""


def run(*args: str, timeout: float = 180) -> str:
    """Run ``python *args`` in the repository root and return its standard output.
    Fails the test (with the output's tail) when it exits non-zero; raises
    ``subprocess.TimeoutExpired`` after ``timeout`` seconds."""
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return done.stdout
