"""``bot.py`` with NoneBot's built-in ``echo`` command loaded beside the game: the floor of
``bench/load.py`` (``@bot /echo x`` is answered by NoneBot itself, with no database and no
game code, over the same connection and event loop as the game)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import nonebot  # noqa: E402

runpy.run_path(str(ROOT / "bot.py"), run_name="bot")  # init, the game plugin, the adapter
nonebot.load_builtin_plugin("echo")

from nonebot_plugin_paizhuo.guard import check_startup  # noqa: E402

if __name__ == "__main__":
    check_startup(nonebot.get_driver())
    nonebot.run()
