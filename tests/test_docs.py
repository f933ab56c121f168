"""The README and docs/ stay usable: the README is short, the two commands CI relies on
(``.ci/run`` runs the test command) are there verbatim, and every relative link in the
README and docs/ leads to a file that exists and, with ``#…``, to a heading in it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

START = ("python3 -m venv .venv && .venv/bin/pip install -e . && "
         "(test -f .env || cp .env.example .env) && .venv/bin/python bot.py")
START_ONLY = ".venv/bin/python bot.py"
"""The README's command that only starts the bot (installed already)."""
TEST = ('python3 -m venv .venv && .venv/bin/pip install -e ".[test,postgres]" && '
        ".venv/bin/python -m pytest")

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to ``-``."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading anchor of a Markdown page (repeated headings get ``-1``, ``-2``…)."""
    seen: dict[str, int] = {}
    found = set()
    for line in FENCE.sub("", page.read_text(encoding="utf-8")).splitlines():
        if m := re.match(r"#{1,6} (.+)", line):
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def links(page: Path) -> list[str]:
    """The link targets of a page outside code blocks."""
    return LINK.findall(FENCE.sub("", page.read_text(encoding="utf-8")))


def test_readme_is_short() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 260, f"README.md has {len(lines)} lines; move details into docs/"


def test_readme_has_the_two_commands_verbatim() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert START in readme
    assert TEST in readme
    assert START_ONLY in readme and START.endswith(START_ONLY)


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert TEST.replace('-e ".[test,postgres]"', '-q -e ".[test,postgres]"') in ci


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in links(page):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no file {file.relative_to(ROOT)}")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no heading #{anchor} in {file.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_the_link_check_sees_links() -> None:
    assert "docs/DESIGN.md" in links(ROOT / "README.md")
    assert slug("出牌生成（三个游戏共用 `src/paizhuo_engine/moves.py`）") == "出牌生成三个游戏共用-srcpaizhuo_enginemovespy"


DOC_MENTION = re.compile(r"\bdocs/[\w.-]+\.md")
FIGURES_IN_README = re.compile(r"[Ff]igures (?:go|are) (?:in|to) the README")
CODE = [p for d in ("bench", "tools", "src", "tests")
        for p in sorted((ROOT / d).rglob("*.py"))]


def test_every_doc_the_code_names_exists() -> None:
    """A docstring or comment that says where figures or rules live names a page of
    docs/ that exists; none sends figures to the README (they live in docs/)."""
    texts = {p: p.read_text(encoding="utf-8") for p in CODE}
    missing = sorted({f"{p.relative_to(ROOT)}: {m}" for p, text in texts.items()
                      for m in DOC_MENTION.findall(text) if not (ROOT / m).exists()})
    assert not missing, "; ".join(missing)
    readme = [str(p.relative_to(ROOT)) for p, text in texts.items()
              if FIGURES_IN_README.search(text) and p.name != "test_docs.py"]
    assert not readme, f"figures belong in docs/benchmarks.md: {readme}"
    assert any("docs/benchmarks.md" in text for text in texts.values())
