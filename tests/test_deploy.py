"""The systemd unit in the repository (``deploy/paizhuo-bot.service``, README「一直运行」) is
one systemd accepts as it is shipped: ``systemd-analyze verify`` finds nothing to say about
it (unknown keys, bad values, a missing program), checked in a root of its own laid out
as the unit expects (the unit's own paths, systemd's units), and it keeps the bot running
as an operator needs: restarted on failure, in the repository's folder, as a user that
is not root, with the venv's python running ``bot.py``, started at boot."""

from __future__ import annotations

import configparser
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "deploy" / "paizhuo-bot.service"
SYSTEM_UNITS = Path("/usr/lib/systemd/system")


def unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case
    parser.read_string(UNIT.read_text(encoding="utf-8"))
    return parser


def verify(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    """``systemd-analyze verify`` of a unit with ``text`` installed in a root made under
    ``tmp_path``: systemd's own units, and the unit's ExecStart program (a stand-in)."""
    root = tmp_path / "root"
    if not root.exists():
        shutil.copytree(SYSTEM_UNITS, root / SYSTEM_UNITS.relative_to("/"), symlinks=True)
        program = Path(unit()["Service"]["ExecStart"].split()[0])
        stand_in = root / program.relative_to("/")
        stand_in.parent.mkdir(parents=True)
        stand_in.write_text("#!/bin/sh\n")
        stand_in.chmod(0o755)
        (root / "etc/systemd/system").mkdir(parents=True)
    (root / "etc/systemd/system" / UNIT.name).write_text(text, encoding="utf-8")
    return subprocess.run(["systemd-analyze", "verify", f"--root={root}",
                           f"/etc/systemd/system/{UNIT.name}"],
                          capture_output=True, text=True, timeout=60)


def test_the_unit_keeps_the_bot_running_as_an_operator_needs() -> None:
    service = unit()["Service"]
    assert service["Restart"] == "on-failure" and float(service["RestartSec"]) > 0
    assert service["User"] not in ("", "root")
    workdir = Path(service["WorkingDirectory"])
    program, *args = service["ExecStart"].split()
    assert Path(program) == workdir / ".venv" / "bin" / "python"  # the README's venv
    assert args == ["bot.py"] and (ROOT / "bot.py").is_file()
    assert unit()["Install"]["WantedBy"] == "multi-user.target"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None or not SYSTEM_UNITS.is_dir(),
                    reason="systemd-analyze is not installed (.ci/run installs it)")
def test_systemd_analyze_verify_accepts_the_unit(tmp_path: Path) -> None:
    text = UNIT.read_text(encoding="utf-8")
    done = verify(tmp_path, text)
    assert done.returncode == 0 and (done.stdout + done.stderr).strip() == "", done
    # the check sees mistakes: a bad value and an unknown key are reported
    broken = text.replace("RestartSec=10", "RestartSec=ten\nRestartAfter=1")
    assert broken != text
    said = verify(tmp_path, broken)
    assert "ten" in said.stderr and "RestartAfter" in said.stderr, said
