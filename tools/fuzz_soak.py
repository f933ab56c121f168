"""The long hostile-input run: ``python tools/fuzz_soak.py --scale 20``.

Runs the hypothesis fuzz tests of ``tests/matchers/test_fuzz.py`` (random Unicode, long
card lists, full-width and control characters, CQ codes, @, images, replies — from
players and strangers, in groups and in private, at every phase of a table) with every
example count multiplied by ``--scale``, and prints the figures: inputs fuzzed, examples,
failures found, time.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=int, default=20, help="example count multiplier")
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        counter = Path(tmp) / "inputs.txt"
        env = dict(os.environ, FUZZ_SCALE=str(ns.scale), FUZZ_COUNT_FILE=str(counter),
                   HYPOTHESIS_PROFILE="soak")
        start = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "tests/matchers/test_fuzz.py", "-q", "-p", "no:cacheprovider",
             "--hypothesis-show-statistics"],
            cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        elapsed = time.monotonic() - start
        inputs = len(counter.read_text().splitlines()) if counter.exists() else 0
    out = proc.stdout
    examples = sum(int(n) for n in re.findall(r"(\d+) passing", out))
    failed = re.search(r"(\d+) failed", out)
    print(f"scale: {ns.scale}")
    print(f"inputs fuzzed: {inputs}")
    print(f"examples: {examples}")
    print(f"failures found: {int(failed.group(1)) if failed else 0}")
    print(f"time: {elapsed:.0f} s")
    if proc.returncode:
        print(out[-4000:])
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
