"""牌桌: 抓特务 (and, to come, 挖坑 and 手把一) for QQ groups over OneBot v11.

On start-up the database is migrated to the latest schema and every saved table is
restored, so games in progress continue after a restart.
"""

from __future__ import annotations

from nonebot import get_driver, get_plugin_config, logger
from nonebot.adapters.onebot.v11 import Bot
from nonebot.plugin import PluginMetadata

from db.store import Store
from plugins.paizhuo.config import Config
from plugins.paizhuo.tables import REGISTRY

__plugin_meta__ = PluginMetadata(
    name="牌桌",
    description="在群里玩抓特务等爬坡类扑克牌游戏",
    usage="/帮助",
    type="application",
    config=Config,
)

import plugins.paizhuo.guard  # noqa: E402,F401  (ignores the bot's own messages)
from plugins.paizhuo import actions, matchers, messaging  # noqa: E402,F401  (registers the matchers)

driver = get_driver()


@driver.on_startup
async def _start_store() -> None:
    config = get_plugin_config(Config)
    store = Store(config.database_url, busy_timeout=config.database_busy_timeout)
    await store.migrate()
    REGISTRY.store = store
    resumed = await REGISTRY.restore()
    await actions.resume_timers()
    logger.info(f"牌桌: database ready, {len(resumed)} table(s) resumed")


@driver.on_bot_connect
async def _bot_connected(bot: Bot) -> None:
    await actions.bot_connected(bot)


@driver.on_shutdown
async def _stop_store() -> None:
    actions.cancel_timers()
    await messaging.stop_queues()
    if REGISTRY.store is not None:
        await REGISTRY.store.close()
        REGISTRY.store = None
