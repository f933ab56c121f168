"""牌桌 bot entry point: ``python bot.py``.

Reads settings from the environment and ``.env`` (see ``.env.example``), registers the
OneBot v11 adapter (reverse WebSocket at ``ws://HOST:PORT/onebot/v11/ws``) and loads the
game plugin.
"""

from __future__ import annotations

import sys

import nonebot
from nonebot.adapters.onebot.v11 import Adapter as OneBotV11Adapter

nonebot.init()
nonebot.get_driver().register_adapter(OneBotV11Adapter)
if nonebot.load_plugin("plugins.paizhuo") is None:
    # A bot that cannot play must not sit connected and silent.
    sys.exit("牌桌 plugin failed to load; see the error above")

if __name__ == "__main__":
    nonebot.run()
