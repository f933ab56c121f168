"""A minimal NoneBot process for the protocol fakes' own tests: the adapter named by
``PROBE_ADAPTER`` (``milky`` or ``satori``, configured by ``MILKY_CLIENTS`` /
``SATORI_CLIENTS``) and the probe plugin beside this file, no game.

``python bot.py`` with ``PROBE_LOG`` set to a file: the probe writes there, one JSON object
a line, every event it receives and the outcome of every send it makes."""

from __future__ import annotations

import os
from pathlib import Path

import nonebot

nonebot.init()
driver = nonebot.get_driver()
if os.environ["PROBE_ADAPTER"] == "milky":
    from nonebot.adapters.milky import Adapter
else:
    from nonebot.adapters.satori import Adapter
driver.register_adapter(Adapter)
nonebot.load_plugin(Path(__file__).resolve().parent / "probe.py")

if __name__ == "__main__":
    nonebot.run()
