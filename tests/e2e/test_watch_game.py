"""``tools/watch_game.py`` checks the table size of the game before it starts a bot: a size
the game does not allow stops at once with the reason, instead of a bot refusing the table
and the script waiting for a game that never starts."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tools.watch_game import DEFAULT_SIZE, SIZES, size_error

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("args", "reason"), [
    (["5"], "抓特务只能 3–4 人玩，不能 5 人"),
    (["2"], "抓特务只能 3–4 人玩，不能 2 人"),
    (["4", "--game", "挖坑"], "挖坑只能 3 人玩，不能 4 人"),
    (["7", "--game", "手把一"], "手把一只能 2–6 人玩，不能 7 人"),
])
def test_a_size_the_game_does_not_allow_stops_before_the_bot_starts(args: list[str], reason: str) -> None:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "tools/watch_game.py", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2  # argparse's usage error
    assert reason in done.stderr
    assert "===" not in done.stdout  # no game was announced, no bot started
    assert time.monotonic() - started < 30


def test_every_size_each_game_allows_passes_and_the_defaults_are_allowed() -> None:
    assert SIZES == {"抓特务": (3, 4), "挖坑": (3,), "手把一": (2, 3, 4, 5, 6)}
    for game, sizes in SIZES.items():
        assert all(size_error(game, n) is None for n in sizes)
        assert size_error(game, DEFAULT_SIZE[game]) is None
        assert all(size_error(game, n) is not None for n in range(1, 8) if n not in sizes)
