"""The README sends players to the Chinese players' guide (docs/commands.md); RULES.md,
the English specification, is named as such."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_readme_points_players_to_the_chinese_guide() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    intro = readme.split("## ", 1)[0]
    assert "玩家看 [docs/commands.md](docs/commands.md)" in intro
    assert "规则以 [docs/RULES.md]" not in readme  # players are not sent to the English spec
    assert re.search(r"\[docs/RULES\.md\]\(docs/RULES\.md\) 是实现所依据的规格（英文", intro)


def test_the_players_guide_is_chinese() -> None:
    guide = (ROOT / "docs" / "commands.md").read_text("utf-8")
    cjk = sum(1 for ch in guide if "\u4e00" <= ch <= "\u9fff")
    latin = len(re.findall(r"\b[a-zA-Z]{4,}\b", re.sub(r"`[^`]*`|\([^)]*\)", "", guide)))
    assert cjk > 2000 and latin < cjk / 20
