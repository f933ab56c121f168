"""牌桌: three climbing card games — 抓特务, 挖坑 and 手把一 — played in QQ groups over
OneBot v11, Milky or Satori (one room per side behind the platform port, ``port/``). Players open a table in a group, sit down (or seat computer players), get
their hands and answer hidden questions by private message, and play in the group; the
bot keeps time, plays for players who time out or are in 托管, records every finished
game (/战绩, /排行, /对局 replays) and lets each group set its rules (/规则, /设置).

On start-up the database is migrated to the latest schema; when a bot account connects,
its saved tables are restored, so games in progress continue after a restart. With
several accounts, each command is handled by one account (``accounts``).

Where to start reading: ``matchers/`` (the commands: one module per group of commands)
→ ``actions/`` (what each command does to a table: ``seating``, ``turns``,
``house_rules``, ``announce``; every change goes through ``actions/commit.py``, save
before effect; timers in ``actions/deadlines.py``) → ``games/`` (one adapter per game
between the chat and the pure ``engine`` package: texts, prompts, what differs per
game) → ``tables.py`` (the live tables and their saving to ``db``) and ``messaging.py``
(sending, through ``send_queue.py``).
"""

from __future__ import annotations

from nonebot import get_driver, logger
from nonebot.adapters import Bot, Event
from nonebot.exception import IgnoredException
from nonebot.matcher import current_bot, current_event, current_matcher
from nonebot.message import event_preprocessor, run_preprocessor
from nonebot.plugin import PluginMetadata
from nonebot.typing import T_State

from paizhuo_db.store import AccountLost, Store

from . import logfile

logfile.start()  # first: the plugin's own start-up lines go to the file too

from . import accounts, guard, matchers, messaging, storage  # noqa: F401  (registers the matchers)
from .actions import announce, deadlines, turns  # noqa: F401  (turns: what a due timer does)
from .config import Config, plugin_config, warn_old_names
from .internals import dispatch
from .matchers import namespace
from .port import account_of, room_of
from .tables import REGISTRY
from .version import __version__

__plugin_meta__ = PluginMetadata(
    name="牌桌",
    description="在 QQ 群里玩抓特务、挖坑、手把一（爬坡类扑克牌游戏），可加电脑玩家",
    usage=namespace.usage_text(),
    type="application",
    homepage=None,
    config=Config,
    supported_adapters={"~onebot.v11", "~milky", "~satori", "~qq"},
    extra={"version": __version__, "license": "MIT"},
)
"""The plugin's metadata, as NoneBot's plugin store reads it (``tests/e2e/test_install.py``
loads the built wheel the way the store's load test does). ``usage`` spells the command
words as ``PAIZHUO_BARE_COMMANDS`` has them at start-up; ``supported_adapters`` names the
sides the tests run through (OneBot v11, Milky, Satori, the official QQ bot: its adapter
comes with the ``qq`` extra). ``homepage`` is ``None`` until the project has
a public page (README「装进已有的 NoneBot 机器人」says so); the store requires one."""

warn_old_names()
logger.info(f"牌桌 {__version__}（nonebot-plugin-paizhuo）")

driver = get_driver()


@driver.on_startup
async def _start_store() -> None:
    config = plugin_config()
    store = Store(storage.database().url, busy_timeout=config.database_busy_timeout)
    await store.migrate()
    accounts.watch(store)
    REGISTRY.store = store
    logger.info("牌桌: 数据库已就绪；每个机器人账号连上时恢复它的牌桌")


@driver.on_bot_connect
async def _bot_connected(bot: Bot) -> None:
    if room_of(bot) is not None:
        await announce.bot_connected(bot)


@driver.on_bot_disconnect
async def _bot_disconnected(bot: Bot) -> None:
    if room_of(bot) is None:
        return
    accounts.disconnected(bot)
    await accounts.let_go(account_of(bot), bot)


ACCOUNT_CHECK = "paizhuo_account_check"
"""State key of the event's account decision, shared by the plugin's matchers."""


@event_preprocessor
async def _note_event(bot: Bot, event: Event, state: T_State) -> None:
    """Every event: keep the accounts' group lists current (nothing is dropped here:
    other plugins' events pass untouched)."""
    accounts.note_event(bot, event)
    state[ACCOUNT_CHECK] = {}


@run_preprocessor
async def _one_account_answers(state: T_State) -> None:
    """Before each matcher of this plugin (only: other plugins' matchers see every
    event): the bot's own echoed messages are ignored; an account's events wait until its
    saved tables are loaded (a move sent right after a reconnect finds its table); a
    message that another account handles, or an account another process holds, is
    ignored (each command is answered once). Decided once per event. (The matcher, bot
    and event come from NoneBot's context, set for the run: fewer parameters to solve.)"""
    if not dispatch.ours(current_matcher.get()):
        return
    bot, event = current_bot.get(), current_event.get()
    if guard.is_own_message(bot, event):
        raise IgnoredException("event from the bot's own account")
    if room_of(bot) is None or REGISTRY.store is None:
        return
    holder = state.get(ACCOUNT_CHECK)
    if holder is None:
        holder = state[ACCOUNT_CHECK] = {}
    if "answers" not in holder:  # the plugin's matchers run one after another
        holder["answers"] = await _answers_here(bot, event)
    if not holder["answers"]:
        raise IgnoredException("another bot account (or process) handles this message")


async def _answers_here(bot: Bot, event: Event) -> bool:
    """Whether this process's ``bot`` answers ``event``: once the account's tables are
    loaded (or, when its hold was lost, once it is taken again), when the account handles
    it and it was not handled before (``accounts.first_delivery``, which records it; on
    every side, by the key its room gives)."""
    for _ in range(3):
        await accounts.ensure_restored(bot)
        if accounts.is_refused(bot) or not await accounts.handles(bot, event):
            return False
        try:
            return await accounts.first_delivery(bot, event)
        except AccountLost as err:  # the account is being taken back: wait, then again
            accounts.lost(account_of(bot), err.reason)
    return False


@driver.on_shutdown
async def _stop_store() -> None:
    deadlines.cancel_timers()
    await messaging.stop_queues()
    if REGISTRY.store is not None:
        await REGISTRY.store.close()
        REGISTRY.store = None
