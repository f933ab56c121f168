"""The second pass of ``.ci/run`` (lowest NoneBot versions, ``PAIZHUO_FAST_DISPATCH=false``)
leaves out the tests marked ``once``; these checks keep that honest: the README's command
still runs them (the marker deselects nothing by default), the second pass deselects them
and the soaks, each marked file is named in ``.ci/run``'s opening comment, and a matcher
test module marked ``once`` as a whole drives no NoneBot (no nonebug, no event handled).
End-to-end modules marked ``once`` do start real bots; each is marked for its own reason,
given beside the mark and in ``.ci/run``'s comment (test_combo's slices)."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CI = ROOT / ".ci" / "run"
MARKED = re.compile(r"pytest\.mark\.once\b")
WHOLE_MODULE = re.compile(r"^pytestmark = pytest\.mark\.once\b", re.M)
DRIVES_NONEBOT = re.compile(r"^\s*(?:from|import)\s+(?:nonebot|nonebug)\b|\bhandle_event\(|"
                            r"\btest_matcher\(|\bapp: App\b|\bworld: World\b", re.M)


def pytest_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"][
        "ini_options"]


def lowest_pass_args() -> list[str]:
    """The arguments of the pytest command ``.ci/run`` runs in the lowest versions' venv."""
    text = CI.read_text(encoding="utf-8").replace("\\\n", " ")
    commands = [line for line in text.splitlines() if ".venv-lowest/bin/python -m pytest" in line]
    assert len(commands) == 1, commands
    return shlex.split(commands[0].split("-m pytest", 1)[1])


def opening_comment() -> str:
    lines = CI.read_text(encoding="utf-8").splitlines()
    return "\n".join(line for line in lines[1:] if line.startswith("#"))


def marked_files() -> list[Path]:
    return sorted(p for p in (ROOT / "tests").rglob("test_*.py")
                  if p != Path(__file__).resolve() and MARKED.search(p.read_text(encoding="utf-8")))


def test_once_is_registered_and_the_default_run_keeps_it() -> None:
    config = pytest_config()
    assert any(m.startswith("once:") for m in config["markers"])
    assert "once" not in config["addopts"]


def test_the_lowest_pass_leaves_out_once_and_the_soaks() -> None:
    args = lowest_pass_args()
    expressions = [args[i + 1] for i, a in enumerate(args) if a == "-m"]
    # a later -m replaces the default -m 'not soak' of addopts: it must keep the soaks out too
    assert "-m 'not soak'" in pytest_config()["addopts"]
    assert expressions == ["not soak and not once"], expressions
    assert "tests/matchers" in args and "tests/e2e" in args


def test_every_file_with_once_is_named_in_the_opening_comment() -> None:
    files = marked_files()
    assert len(files) >= 3  # the scan sees the marks
    comment = opening_comment()
    assert [p.name for p in files if p.stem not in comment] == []


def test_a_matcher_module_marked_once_drives_no_nonebot() -> None:
    whole = [p for p in marked_files() if WHOLE_MODULE.search(p.read_text(encoding="utf-8"))
             and p.parent.name == "matchers"]
    assert len(whole) >= 3
    found = [f"{p.relative_to(ROOT)}: {m.group(0).strip()}" for p in whole
             for m in DRIVES_NONEBOT.finditer(p.read_text(encoding="utf-8"))]
    assert found == []


def test_the_lowest_pass_waits_for_the_editable_install_of_this_distribution() -> None:
    """The second pass waits for the first pass's editable install (its ``.pth`` file,
    named by setuptools after the distribution) before building: a glob naming another
    distribution would wait for ever."""
    name = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]
    waits = re.findall(r"__editable__\.([\w*.-]+)\.pth", CI.read_text(encoding="utf-8"))
    assert waits == [re.sub(r"[-.]+", "_", name).lower() + "*"], waits
