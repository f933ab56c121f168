"""Cheap venvs for the install tests (``tests/e2e/test_host_install.py``,
``tests/e2e/test_install.py``): made without pip, seeing this environment's dependencies,
and a copy of the project to build from (no build writes into the repository)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCE = ["src", "pyproject.toml", "README.md", "LICENSE"]
"""What a build of the project reads."""


def copy_source(target: Path) -> Path:
    """Copy the files a build reads (:data:`SOURCE`, caches left out) into ``target``."""
    target.mkdir(parents=True)
    for name in SOURCE:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, target / name, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(REPO / name, target / name)
    return target


def make_venv(path: Path) -> Path:
    """A venv without pip that sees this environment's site-packages (dependencies only:
    a path line in a ``.pth`` is not itself scanned for ``.pth`` files, so this
    environment's editable install of the project stays out). Returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    purelib = subprocess.run([str(python), "-c",
                              "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python
