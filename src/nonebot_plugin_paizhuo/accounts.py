"""Several bot accounts (机器人账号): which account answers a command, whose tables a
process holds, and which account a table's messages and timers go through.

Rules (docs/deployment.md, “多个机器人账号”):

* A table belongs to the account in whose group it was opened (``Table.account``, saved
  with it). Its group and private messages, friend checks and timers go through that
  account only. While that account is not connected, the table waits (timers act when
  it is back); no other account takes it over.
* One process at a time serves an account (:func:`hold`): the process an account
  connects to takes it (PostgreSQL: an advisory lock per account, held while the account
  is connected; SQLite: the database file is the process's alone); while it holds the
  account, another process refuses that account's connection. A hold can be lost
  without the process doing anything (PostgreSQL ended the lock's session: a restart, an
  operator, a failover): the store notices at once, or a write finds another process's
  newer hold (every write carries the hold's token, ``paizhuo_db.holds``); then
  :func:`lost` stops serving the account at once (its tables dropped from memory, its
  events wait) and takes it again before serving it again — or, when another process
  took it, gives the connection up. A process holds only the
  tables of the accounts connected to it: when an account connects, its tables are
  loaded from the database (:func:`ensure_restored`), never kept from an earlier
  connection (they are dropped when it disconnects: another process may have played
  them meanwhile); events of that account wait until then. Tables saved before accounts were recorded (no account)
  go to the first account that connects and is in that group (by its group list; when
  the list cannot be read, that account takes them all: such a database comes from a
  one-account set-up).
* Each message once: the ids of the messages an account handled are kept (bounded, in
  the database: a restart keeps them), and one delivered again is not handled again
  (:func:`first_delivery`).
* One answer per command when several accounts are in a group: a group command is
  handled by the account of the group's table; in a group without a table, by the
  connected account with the lowest QQ number among those in the group (group lists
  read once per connection, kept up to date by join/leave notices). A group whose table
  belongs to an account not connected here (another process, or offline) is left to it.
  A seated player who writes privately to another account is told which account runs
  their table.
"""

from __future__ import annotations

import asyncio
import hashlib
import unicodedata
from collections import OrderedDict

import nonebot
from nonebot import logger
from nonebot.adapters import Bot, Event
from nonebot.adapters import Bot as AnyBot
from nonebot.drivers import WebSocket

from paizhuo_db.store import SEEN_KEPT, AccountLost, Store

from .actions import deadlines
from .port import Delivery, account_of, room_of, said
from .tables import REGISTRY, Table

_group_lists: dict[str, set[str] | None] = {}
"""Each connected account's groups as its side listed them (``None``: unreadable)."""
_seen: dict[str, set[str]] = {}
"""Groups each account received events from (it is surely in them)."""
_lists_lock = asyncio.Lock()
_restoring: dict[tuple[str, str], tuple[Bot, asyncio.Task[None]]] = {}
"""Each account's restore per side (room name, account), with the connection (bot
object) it was made for."""
_holders: dict[str, object] = {}
"""The accounts this process holds, with what took each (the connection, or the bot)."""
_sides: dict[str, str] = {}
"""The side (room name) each held account is connected over."""
_hold_locks: dict[str, asyncio.Lock] = {}
refused: dict[str, Bot] = {}
"""Connections refused because another process holds their account (the plugin inside
another bot, whose adapter cannot refuse the connection), or because this process serves
the account over another side already: their events are ignored."""
_dropped: set[str] = set()
"""Groups whose table this process dropped when its account disconnected: reloaded on
reconnect without the restart post."""
_not_loaded: set[str] | None = None
"""With an exclusive database (SQLite): the groups whose live table was in the database
when first asked and not held here (another account's, not connected yet). Other groups
without a table here have none anywhere, so a command there needs no query."""
_recent: dict[str, OrderedDict[str, str]] = {}
"""Per account: the ids of the messages it handled most recently, with their marks
(loaded from the database when the account's tables are, kept up to date by
:func:`first_delivery`)."""
_tasks: set[asyncio.Task[None]] = set()
RETAKE_FIRST = 0.2
"""Seconds before a lost account is tried again when the database could not tell (it
doubles each time, up to :data:`RETAKE_MAX`)."""
RETAKE_MAX = 5.0


def account_order(self_id: str) -> tuple[int, str]:
    """Sort key of an account: by QQ number (shorter digit strings are smaller)."""
    return (len(self_id), self_id)


def connected() -> dict[str, Bot]:
    """The accounts connected to this process over a side with a room, by account (the
    QQ number); a connection refused for its account (:data:`refused`) is not one."""
    found: dict[str, Bot] = {}
    for bot in nonebot.get_bots().values():
        if room_of(bot) is None or is_refused(bot):
            continue
        found.setdefault(account_of(bot), bot)
    return found


def is_refused(bot: AnyBot) -> bool:
    """Whether this connection's events are ignored (:data:`refused`)."""
    return refused.get(account_of(bot)) is bot


def bot_for(table: Table) -> Bot | None:
    """The connected bot of the table's account, ``None`` while that account is not
    connected here. A table without an account (saved before accounts were recorded and
    not yet adopted) is adopted by the lowest connected account (saved with its next
    change)."""
    bots = connected()
    if table.account is None and bots:
        table.account = min(bots, key=account_order)
        logger.info(f"event=adopt group={table.group_id} account={table.account}")
    return bots.get(table.account) if table.account is not None else None


async def group_list(bot: Bot) -> set[str] | None:
    """The groups ``bot``'s account is in (read once per connection; ``None`` when the
    side cannot list them)."""
    me = account_of(bot)
    if me not in _group_lists:
        room = room_of(bot)
        try:
            if room is None:
                raise LookupError("no room for this side")
            _group_lists[me] = await room.group_ids(bot)
        except Exception as err:  # noqa: BLE001 - fall back to the groups seen in events
            logger.warning(f"group list failed for account {me}: {err!r}")
            _group_lists[me] = None
    return _group_lists[me]


async def in_group(bot: Bot, group_id: str) -> bool:
    """Whether ``bot``'s account is in ``group_id`` (its group list or its events)."""
    if group_id in _seen.get(account_of(bot), set()):
        return True
    groups = await group_list(bot)
    return groups is not None and group_id in groups


async def group_handler(group_id: str, receiver: Bot) -> str:
    """The account that answers in a group without a table: the lowest connected account
    in the group (``receiver`` is in it, having received the message). With one account
    connected no group list is read."""
    bots = connected()
    me = account_of(receiver)
    candidates = [me]
    if len(bots) > 1:
        async with _lists_lock:  # read the lists one at a time, in a fixed order
            for sid in sorted(bots, key=account_order):
                if sid != me and await in_group(bots[sid], group_id):
                    candidates.append(sid)
    return min(candidates, key=account_order)


def note_event(bot: AnyBot, event: Event) -> None:
    """Keep the accounts' group lists current from events: a message from a group, the
    account joining or leaving a group."""
    room = room_of(bot)
    if room is None:
        return
    me = room.account(bot)
    heard = room.said(bot, event)
    if heard is not None:
        if heard.group_id is not None:
            _seen.setdefault(me, set()).add(heard.group_id)
        return
    change = room.membership(bot, event)
    if change is None:
        return
    how, group_id = change
    if how == "joined":
        _seen.setdefault(me, set()).add(group_id)
    else:
        _seen.get(me, set()).discard(group_id)
        groups = _group_lists.get(me)
        if groups is not None:
            groups.discard(group_id)


def _may_be_command(text: str) -> bool:
    """Whether the message starts with a command prefix (``COMMAND_START``)."""
    text = unicodedata.normalize("NFKC", text).lstrip()
    starts = [unicodedata.normalize("NFKC", s) for s in nonebot.get_driver().config.command_start]
    return any(text.startswith(s) for s in starts)


async def handles(bot: AnyBot, event: Event) -> bool:
    """Whether ``bot``'s account handles this message (see the module rules); decided
    once per message, before any matcher. A seated player writing privately to an
    account that does not run their table is told which one does."""
    heard = said(bot, event)
    if heard is None:
        return True
    me = heard.account
    if heard.group_id is not None:
        group_id = heard.group_id
        table = REGISTRY.get(group_id)
        if table is not None:
            if table.account is None:
                table.account = me  # it received the message: it is in the group
                logger.info(f"event=adopt group={group_id} account={me}")
            return table.account == me
        if not _may_be_command(heard.text):
            return True  # without a table only prefixed commands are answered
        if await _held_elsewhere(group_id):  # a table this process does not hold
            return False
        return await group_handler(group_id, bot) == me
    table = REGISTRY.table_of_user(heard.user_id)
    if table is None or table.account in (None, me):
        return True
    from .messaging import deliver, private

    await deliver(bot, [private(heard.user_id, f"你的牌桌由机器人 {table.account} 主持，请私聊它。")])
    return False


async def _held_elsewhere(group_id: str) -> bool:
    """Whether the database has a live table of ``group_id`` that is not in ``REGISTRY``
    (the caller checked that it is not): one query, or none with an exclusive database
    when the group had no table when this process first looked (``_not_loaded``)."""
    global _not_loaded
    store = REGISTRY.require_store()
    if store.exclusive:
        if _not_loaded is None:
            live = await store.load_live_groups()
            if _not_loaded is None:
                _not_loaded = {g for g in live if g not in REGISTRY.tables}
        if group_id not in _not_loaded:
            return False
    if group_id in await store.live_owners([group_id]):
        return True
    if _not_loaded is not None:
        _not_loaded.discard(group_id)
    return False


def _hold_lock(self_id: str) -> asyncio.Lock:
    return _hold_locks.setdefault(self_id, asyncio.Lock())


async def hold(self_id: str, owner: object, side: str | None = None) -> bool:
    """Take the account ``self_id`` (its QQ number) for this process (``owner``: the
    connection or bot that takes it, over ``side``, a room's name: the bot's own, else
    ``onebot``, whose guarded adapter holds the account with its WebSocket). ``True`` at
    once when this process already holds it over the same side. ``False``, with one log
    line, while another process holds it, when the database cannot tell, or while this
    process serves the account over another side (one QQ account connected over OneBot and
    Milky at once is refused like two processes on one account)."""
    if side is None:
        room = room_of(owner) if isinstance(owner, Bot) else None
        side = room.name if room is not None else "onebot"
    store = REGISTRY.store
    if store is None:
        return True
    async with _hold_lock(self_id):
        if self_id in _holders:
            held_over = _sides.get(self_id, side)
            if held_over != side and _still_connected(self_id, held_over):
                logger.warning(f"牌桌: 拒绝 Bot {self_id} 经 {side} 的连接：这个账号正经 {held_over} "
                               "连着本进程，一个账号同时只能经一个协议端连接")
                return False
            if held_over != side or (isinstance(owner, Bot) and isinstance(_holders[self_id], Bot)):
                # A new connection (over another side once the first went): the hold is
                # its now, and the old one's let_go is moot.
                _holders[self_id] = owner
            _sides[self_id] = side
            return True
        try:
            got = await store.hold_account(self_id)
        except Exception as err:  # noqa: BLE001 - cannot tell: do not serve it twice
            logger.error(f"牌桌: 拒绝 Bot {self_id}：无法在数据库确认账号归属（{err!r}）")
            return False
        if not got:
            logger.warning(f"牌桌: 拒绝 Bot {self_id}：这个账号正由连着同一数据库的另一个进程服务，"
                           "一个账号同时只能连一个进程")
            return False
        _holders[self_id] = owner
        _sides[self_id] = side
        return True


def _still_connected(account: str, side: str) -> bool:
    """Whether a connection of ``account`` over ``side`` is connected now."""
    for bot in nonebot.get_bots().values():
        room = room_of(bot)
        if room is not None and room.name == side and room.account(bot) == account:
            return True
    holder = _holders.get(account)  # OneBot's WebSocket, until it closes
    return side == "onebot" and isinstance(holder, WebSocket) and not holder.closed


async def let_go(self_id: str, owner: object) -> None:
    """The connection (or bot) ``owner`` that took the account is gone: drop the
    account's tables from memory (after any change under way) and let the account go,
    so another process may take it — or a connection of it over another side that this
    process refused meanwhile (:func:`_retry_refused`). Nothing when ``owner`` did not
    take it."""
    async with _hold_lock(self_id):
        if _holders.get(self_id) is not owner:
            return
        store = REGISTRY.store
        if store is not None and not store.exclusive:
            await _drop_tables(self_id)
        del _holders[self_id]
        _sides.pop(self_id, None)
        if store is not None:
            await store.release_account(self_id)
    _retry_refused(self_id)


def _retry_refused(self_id: str) -> None:
    """The account's connection here went: a connection of it over another side that was
    refused meanwhile (still connected) is tried again, as if it had just connected."""
    waiting = refused.get(self_id)
    if waiting is None or waiting not in nonebot.get_bots().values():
        return
    del refused[self_id]
    known = _restoring.get(_connection_key(waiting))
    if known is not None and known[0] is waiting:
        del _restoring[_connection_key(waiting)]
    from .actions import announce

    task = asyncio.get_running_loop().create_task(announce.bot_connected(waiting))
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


async def _drop_tables(self_id: str) -> None:
    """Forget the account's tables in memory and stop their timers (each after the
    change holding its lock); they are loaded from the database when it is back. Only
    with a shared database (PostgreSQL): with an exclusive one (SQLite, one process)
    nobody else can have changed them, and they stay."""
    dropped = []
    for table in [t for t in REGISTRY.tables.values() if t.account == self_id]:
        async with table.lock:
            if REGISTRY.get(table.group_id) is not table:
                continue
            REGISTRY.remove(table)
            REGISTRY.resumed.discard(table.group_id)
            _dropped.add(table.group_id)
            if _not_loaded is not None:
                _not_loaded.add(table.group_id)
        deadlines.schedule(table)  # not registered: only cancels its timer
        dropped.append(table.group_id)
    if dropped:
        logger.info(f"event=tables_dropped account={self_id} groups={','.join(dropped)}")


async def ensure_restored(bot: Bot) -> None:
    """Load the account's saved tables (once per connection): first it claims the tables
    saved without an account in its groups, then its own are restored and their timers
    re-armed (an expired deadline acts at once)."""
    key = _connection_key(bot)
    known = _restoring.get(key)
    task = known[1] if known is not None and known[0] is bot else None
    if task is None or (task.done() and (task.cancelled() or task.exception() is not None)):
        task = asyncio.create_task(_restore(bot))
        _restoring[key] = (bot, task)
    await asyncio.shield(task)


async def _restore(bot: Bot) -> None:
    me = account_of(bot)
    if not await hold(me, bot):
        refused[me] = bot
        return
    if refused.get(me) is not None and refused[me] is not bot:
        del refused[me]
    await _load(bot)


async def _load(bot: Bot) -> None:
    """Load the held account's tables and the messages it handled recently from the
    database."""
    me = account_of(bot)
    store = REGISTRY.require_store()
    _recent[me] = OrderedDict(await store.seen_events(me))
    if not store.exclusive:  # never from memory: reload what the database has
        await _drop_tables(me)
    # Rows without an account whose tables this process already holds are adopted by
    # the account that serves them (``bot_for``, ``handles``): only the others are claimed.
    if [g for g in await store.unowned_live() if g not in REGISTRY.tables]:
        groups = await group_list(bot)
        claimed = await store.claim_live(me, groups)
        if claimed:
            logger.info(f"event=claim account={me} groups={','.join(claimed)}")
    async with REGISTRY.guard:  # no table opens or closes between loading and adding
        tables = await REGISTRY.restore(me)
    for table in tables:
        if table.group_id in _dropped:  # a reconnect, not a restart: no restart post
            _dropped.discard(table.group_id)
            REGISTRY.resumed.discard(table.group_id)
        deadlines.schedule(table)
    logger.info(f"牌桌: 账号 {me} 已连上，恢复了 {len(tables)} 桌牌局")


def _connection_key(bot: AnyBot) -> tuple[str, str]:
    room = room_of(bot)
    return (room.name if room is not None else type(bot).__module__, account_of(bot))


def watch(store: Store) -> None:
    """Have ``store`` report the accounts whose hold it finds lost to :func:`lost`."""
    store.on_account_lost = lost


def lost(self_id: str, reason: str) -> None:
    """This process no longer holds account ``self_id`` (the account's id on its side,
    ``port.account_of``: the QQ number whichever side it connects over; the store found its
    lock's session ended, or a write refused under another process's newer hold): one log
    line, and from now on the account is not served until it is taken again — its events
    wait for that (:func:`ensure_restored`), its tables are dropped from memory after the
    change under way and their timers stopped, then the account is taken again (with a
    new token) and its tables loaded from the database; when another process holds it,
    this one gives the account's connection up (:func:`_take_back`). Nothing when it is
    not held (already lost)."""
    owner = _holders.pop(self_id, None)
    if owner is None:
        return
    side = _sides.pop(self_id, None)
    logger.error(f"牌桌: 账号 {self_id} 在数据库的持有已失去（{reason}）："
                 "停止服务这个账号，重新取得之后再继续")
    bot = connected().get(self_id)
    if bot is None and isinstance(owner, Bot):
        bot = owner
    task = asyncio.get_running_loop().create_task(_take_back(self_id, owner, bot, side))
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)
    if bot is not None:
        _restoring[_connection_key(bot)] = (bot, task)


def _gone(self_id: str, owner: object, bot: Bot | None) -> bool:
    """Whether the connection an account was lost on is gone (its next connection takes
    the account as every connection does): OneBot's WebSocket closed, or the side's
    connection (a bot) no longer the account's."""
    if isinstance(owner, WebSocket) and owner.closed:
        return True
    return bot is not None and connected().get(self_id) is not bot


async def _take_back(self_id: str, owner: object, bot: Bot | None, side: str | None) -> None:
    store = REGISTRY.require_store()
    async with _hold_lock(self_id):
        await _drop_tables(self_id)
        await store.release_account(self_id)  # a hold that looks intact is not trusted
    wait, told = RETAKE_FIRST, False
    while not _gone(self_id, owner, bot):
        got: bool | None = None
        async with _hold_lock(self_id):
            if self_id in _holders or _gone(self_id, owner, bot):
                return  # a new connection of the account took it meanwhile (or went)
            try:
                got = await store.hold_account(self_id)
            except Exception as err:  # noqa: BLE001 - the database cannot tell: try again
                if not told:
                    logger.warning(f"牌桌: 账号 {self_id} 暂时无法在数据库重新取得（{err!r}），稍后重试")
                    told = True
            if got and _gone(self_id, owner, bot):  # the connection went while it was taken
                await store.release_account(self_id)
                return
            if got:
                _holders[self_id] = owner
                if side is not None:
                    _sides[self_id] = side
        if got:
            logger.warning(f"牌桌: 账号 {self_id} 已重新取得，牌桌从数据库重新载入")
            if bot is not None:
                await _load(bot)
            return
        if got is False:
            logger.warning(f"牌桌: 账号 {self_id} 已由连着同一数据库的另一个进程服务："
                           "这个进程不再服务它，断开它的连接")
            if bot is not None:
                refused[self_id] = bot  # its events are ignored (a side the bot dials too)
            if isinstance(owner, WebSocket):  # OneBot: the side dials again, and is refused
                try:
                    await owner.close(1008, "Account served by another process")
                except Exception as err:  # noqa: BLE001 - already closed
                    logger.debug(f"closing the connection of account {self_id}: {err!r}")
            return
        await asyncio.sleep(wait)
        wait = min(RETAKE_MAX, wait * 2)


SEEN_KEY_MAX = 64
"""Characters of a message key kept as it is (``seen_events.event_id``); a longer one is
kept as its digest."""


def seen_key(delivery: Delivery) -> str:
    """A message's key (the room's ``Delivery.key``: OneBot's ``message_id``, Milky's
    (scene, peer, seq), Satori's message id) as it is stored: the id as text, the parts of
    a tuple joined by ``/``, a digest when longer than :data:`SEEN_KEY_MAX`."""
    key = delivery.key
    text = "/".join(str(part) for part in key) if isinstance(key, tuple) else str(key)
    if len(text) > SEEN_KEY_MAX:
        text = "#" + hashlib.sha256(text.encode()).hexdigest()[:SEEN_KEY_MAX - 1]
    return text


def event_mark(delivery: Delivery) -> str:
    """A short digest of what a message says besides its key (``Delivery.mark``: sender,
    time, text as the side gives them): a key that comes back with another mark is a new
    message."""
    return hashlib.sha256(repr(delivery.mark).encode()).hexdigest()[:32]


async def first_delivery(bot: AnyBot, event: Event) -> bool:
    """Whether this message is handled: ``False`` for one the account already handled
    (the same key and mark, even before a restart; the key is the side's, from its room,
    ``Room.delivery``); otherwise it is recorded in the database — on PostgreSQL under
    the account's token, so an account another process took handles nothing here — and
    ``True``. Other events: ``True``. A record that fails for another reason (the
    database away) does not stop the message: its change meets the same failure and says
    so.

    Raises:
        AccountLost: this process does not hold the account (any more).
    """
    room = room_of(bot)
    found = room.delivery(event) if room is not None else None
    if found is None or found.key is None:
        return True
    me = room.account(bot)  # type: ignore[union-attr]
    key, mark = seen_key(found), event_mark(found)
    recent = _recent.setdefault(me, OrderedDict())
    if recent.get(key) == mark:
        logger.info(f"event=duplicate account={me} message_id={key} stored=True")
        return False
    store = REGISTRY.require_store()
    token = store.account_token(me)
    if token is None and not store.exclusive:
        raise AccountLost(me, "this process does not hold it")
    recent[key] = mark  # claimed before the write: a second delivery meanwhile is dropped
    recent.move_to_end(key)
    while len(recent) > SEEN_KEPT:
        recent.popitem(last=False)
    try:
        await store.note_event(me, key, mark, token)
    except AccountLost:
        if recent.get(key) == mark:
            del recent[key]
        raise
    except Exception as err:  # noqa: BLE001 - see the docstring
        logger.warning(f"event=note_event_failed account={me} message_id={key} "
                       f"cause={err!r}")
    return True


def disconnected(bot: AnyBot) -> None:
    """Forget what was learnt about an account that disconnected (its tables are dropped
    by :func:`let_go`)."""
    me = account_of(bot)
    if refused.get(me) is bot:
        del refused[me]
    key = _connection_key(bot)
    known = _restoring.get(key)
    if known is None or known[0] is not bot:
        return  # the account is already connected again (hooks may run late)
    del _restoring[key]
    _group_lists.pop(me, None)
    _seen.pop(me, None)
    if not known[1].done():
        known[1].cancel()


def reset() -> None:
    """Forget every account (tests)."""
    global _not_loaded
    _not_loaded = None
    _recent.clear()
    _holders.clear()
    _sides.clear()
    _hold_locks.clear()
    refused.clear()
    _dropped.clear()
    _group_lists.clear()
    _seen.clear()
    for _bot, task in _restoring.values():
        task.cancel()
    _restoring.clear()
