"""牌桌 bot entry point: ``python bot.py``.

Reads settings from the environment and ``.env`` (see ``.env.example``), loads the game
plugin and registers the protocol sides: the OneBot v11 adapter (reverse WebSocket at
``ws://HOST:PORT/onebot/v11/ws``) with the checks of ``src/nonebot_plugin_paizhuo/guard.py``
— the bot refuses to start on unsafe settings, a database file already in use or a busy
port, and logs what the owner needs to connect it — and, when ``MILKY_CLIENTS`` /
``SATORI_CLIENTS`` name a side to dial, the Milky / Satori adapter (README
“LLBot 与 Lagrange.Milky”).
"""

from __future__ import annotations

import sys

import nonebot

nonebot.init()

# NoneBot's console handler takes every record (level 0) and drops those under LOG_LEVEL
# in a filter, so each debug line NoneBot writes per event is built and then thrown
# away. The same handler with LOG_LEVEL as its level lets loguru skip them up front.
from nonebot.log import default_format, logger, logger_id  # noqa: E402

logger.remove(logger_id)
logger.add(sys.stdout, level=nonebot.get_driver().config.log_level, diagnose=False,
           format=default_format)

if nonebot.load_plugin("nonebot_plugin_paizhuo") is None:
    # A bot that cannot play must not sit connected and silent.
    sys.exit("牌桌 plugin failed to load; see the error above")

from nonebot_plugin_paizhuo.guard import GuardedAdapter, check_startup  # noqa: E402
from nonebot_plugin_paizhuo.internals.gated import dial_sides  # noqa: E402

nonebot.get_driver().register_adapter(GuardedAdapter)
for side in dial_sides(nonebot.get_driver()):  # Milky, Satori: only those configured
    nonebot.get_driver().register_adapter(side)

if __name__ == "__main__":
    check_startup(nonebot.get_driver())
    nonebot.run()
