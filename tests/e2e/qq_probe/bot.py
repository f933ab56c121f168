"""A bare NoneBot bot with nonebot-adapter-qq and one probe plugin, no game: what
``tests/e2e/test_qq_open_sim.py`` runs against ``tools/qq_open_sim.py`` to prove the fake
speaks the adapter's protocol. Settings come from the environment (``QQ_BOTS``,
``QQ_API_BASE``, ``QQ_AUTH_BASE``, ``DRIVER`` from ``QQOpenSim.bot_env()``; ``QQ_PROBE_LOG``
names the file the probe writes what it received and how each call ended;
``QQ_PROBE_RECONNECT_INTERVAL`` shortens the adapter's pause of 3 s before each reconnect, so
a test of three reconnects does not wait nine seconds). Run from this directory:
``python bot.py``."""

from __future__ import annotations

import os

import nonebot
import nonebot.adapters.qq.adapter as qq_adapter
from nonebot.adapters.qq import Adapter

if interval := os.environ.get("QQ_PROBE_RECONNECT_INTERVAL"):
    qq_adapter.RECONNECT_INTERVAL = float(interval)

nonebot.init()
nonebot.get_driver().register_adapter(Adapter)
nonebot.load_plugins("plugins")

if __name__ == "__main__":
    nonebot.run()
