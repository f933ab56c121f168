"""牌桌 bot entry point: ``python bot.py``.

Reads settings from the environment and ``.env`` (see ``.env.example``), loads the game
plugin and registers the protocol sides: the OneBot v11 adapter (reverse WebSocket at
``ws://HOST:PORT/onebot/v11/ws``) with the checks of ``src/nonebot_plugin_paizhuo/guard.py``
— the bot refuses to start on unsafe settings, a database file already in use or a busy
port, and logs what the owner needs to connect it — and, when ``MILKY_CLIENTS`` /
``SATORI_CLIENTS`` name a side to dial, the Milky / Satori adapter (README
“LLBot 与 Lagrange.Milky”).

Files stay beside this script unless the settings say otherwise: the database in
``data/`` (``data/paizhuo.db``, localstore's data directory of the plugin) and the logs in
``logs/paizhuo.log`` (also on the terminal; ``PAIZHUO_LOG_FILE``, rotated).
"""

from __future__ import annotations

import sys
from pathlib import Path

import nonebot
from pydantic import BaseModel

ROOT = Path(__file__).resolve().parent

nonebot.init()


class _Given(BaseModel):
    """The settings ``bot.py`` gives a default of its own, as NoneBot reads them (from
    the environment, ``.env`` and ``init``): ``None`` when not given."""

    paizhuo_log_file: str | None = None
    localstore_data_dir: str | None = None
    localstore_use_cwd: bool | None = None
    localstore_plugin_data_dir: dict[str, str] = {}


_given = nonebot.get_plugin_config(_Given)
_config = nonebot.get_driver().config
if _given.paizhuo_log_file is None:
    _config.paizhuo_log_file = str(ROOT / "logs" / "paizhuo.log")
if (_given.localstore_data_dir is None and _given.localstore_use_cwd is None
        and "nonebot_plugin_paizhuo" not in _given.localstore_plugin_data_dir):
    _config.localstore_plugin_data_dir = {**_given.localstore_plugin_data_dir,
                                          "nonebot_plugin_paizhuo": str(ROOT / "data")}

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
