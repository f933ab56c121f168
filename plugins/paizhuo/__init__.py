"""牌桌: 抓特务 (and, to come, 挖坑 and 手把一) for QQ groups over OneBot v11.

On start-up the database is migrated to the latest schema; when a bot account connects,
its saved tables are restored, so games in progress continue after a restart. With
several accounts, each command is handled by one account (``accounts``).
"""

from __future__ import annotations

from nonebot import get_driver, logger
from nonebot.adapters import Bot as AnyBot
from nonebot.adapters import Event
from nonebot.adapters.onebot.v11 import Bot
from nonebot.exception import IgnoredException
from nonebot.message import event_preprocessor
from nonebot.plugin import PluginMetadata

from db.store import Store
from plugins.paizhuo.config import Config, plugin_config
from plugins.paizhuo.tables import REGISTRY

__plugin_meta__ = PluginMetadata(
    name="牌桌",
    description="在群里玩抓特务等爬坡类扑克牌游戏",
    usage="/帮助",
    type="application",
    config=Config,
)

import plugins.paizhuo.guard  # noqa: E402,F401  (ignores the bot's own messages)
from plugins.paizhuo import accounts, actions, matchers, messaging  # noqa: E402,F401  (registers the matchers)

driver = get_driver()


@driver.on_startup
async def _start_store() -> None:
    config = plugin_config()
    store = Store(config.database_url, busy_timeout=config.database_busy_timeout)
    await store.migrate()
    REGISTRY.store = store
    logger.info("牌桌: database ready; each bot account's tables are resumed when it connects")


@driver.on_bot_connect
async def _bot_connected(bot: Bot) -> None:
    await actions.bot_connected(bot)


@driver.on_bot_disconnect
async def _bot_disconnected(bot: AnyBot) -> None:
    accounts.disconnected(bot)


@event_preprocessor
async def _one_account_answers(bot: AnyBot, event: Event) -> None:
    """Before any matcher: an account's events wait until its saved tables are loaded (a
    move sent right after a reconnect finds its table), and a message that another
    account handles is dropped here (each command is answered once)."""
    accounts.note_event(bot, event)
    if not isinstance(bot, Bot) or REGISTRY.store is None:
        return
    await accounts.ensure_restored(bot)
    if not await accounts.handles(bot, event):
        raise IgnoredException("another bot account handles this message")


@driver.on_shutdown
async def _stop_store() -> None:
    actions.cancel_timers()
    await messaging.stop_queues()
    if REGISTRY.store is not None:
        await REGISTRY.store.close()
        REGISTRY.store = None
