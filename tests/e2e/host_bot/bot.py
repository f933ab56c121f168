"""A plain NoneBot bot (FastAPI driver, OneBot v11 adapter, one plugin of its own) that
knows nothing of 牌桌: the "other bot" that shares a QQ account with the game bot in
``tests/e2e/test_beside.py``. Run from this directory: ``python bot.py``."""

from __future__ import annotations

import nonebot
from nonebot.adapters.onebot.v11 import Adapter

nonebot.init()
nonebot.get_driver().register_adapter(Adapter)
nonebot.load_plugins("plugins")

if __name__ == "__main__":
    nonebot.run()
