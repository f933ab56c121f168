"""Posts of a table outside any change: ``/牌桌`` (the table again), and what a bot
account's (re)connection posts — end messages never confirmed sent (``机器人重启前这局已结束``),
each resumed game re-posted once, timers that came due while it was away (see
:func:`bot_connected`).

Owns (re)connect and pending announcements; may call :mod:`.basics`, :mod:`.commit`
(:func:`.commit.mark_announced`), :mod:`.deadlines`, :mod:`.seating` (the between-games
status) and ``accounts``.
"""

from __future__ import annotations

from nonebot import logger
from nonebot.adapters import Bot

from paizhuo_db.store import PendingAnnouncement

from .. import accounts
from ..messaging import (
    deliver,
    group,
    plain,
)
from ..port import MessageSegment, account_of
from ..tables import (
    FINISHED,
    REGISTRY,
    WAITING,
    message_from_json,
    now_utc,
)
from .basics import (
    JOIN_HINT,
    NO_TABLE,
    _at_actor_only,
    numbered,
    reply,
    seat_list,
    with_time_left,
)
from .commit import _private_turn, mark_announced
from .deadlines import _timer_due, resume_deferred
from .seating import between_games_status

RESTART_PREFIX = "机器人重启前这局已结束：\n"


RECONNECT_PREFIX = "机器人掉线时这局已结束：\n"


_STARTED_AT = now_utc()


async def show_table(bot: Bot, group_id: str, user_id: str) -> None:
    """``/牌桌``: re-post the public table."""
    table = REGISTRY.get(group_id)
    if table is None:
        await deliver(bot, [reply(group_id, user_id, NO_TABLE)])
        return
    async with table.lock:
        if table.status == WAITING:
            msg = plain(f"【{table.game}】等人入座：{seat_list(table)}，{JOIN_HINT}。")
        else:
            msg = with_time_left(table, _at_actor_only(
                table, table.adapter.table(table.engine, table.seats)))
            if table.status == FINISHED:
                msg += MessageSegment.text(f"\n本局已结束：{between_games_status(table)}")
    out = group(group_id, msg)  # in order with the game's posts: it shows the table now
    out.coalesce = "table"  # a newer /牌桌 replaces one still waiting
    await deliver(bot, [out])


async def announce_resumed(bot: Bot) -> None:
    """When a bot (re)connects after a restart: post each resumed game of its account's
    tables, so the player to act is @-mentioned again and nobody waits for a prompt that
    was lost. One post per table: a table whose timer is due (a deadline that passed
    meanwhile, a reminder, computer players to move) or already posted is not re-posted:
    the timer's message carries the next prompt."""
    for group_id in sorted(REGISTRY.resumed):
        table = REGISTRY.get(group_id)
        if table is not None and accounts.bot_for(table) is not bot:
            continue  # another account's table: announced when that account connects
        if table is None:
            REGISTRY.resumed.discard(group_id)
            continue
        async with table.lock:
            if group_id not in REGISTRY.resumed:
                continue  # its timer posted meanwhile
            REGISTRY.resumed.discard(group_id)
            if not table.playing or _timer_due(table):
                continue
            msg = plain("机器人已重启，牌局继续：\n") + with_time_left(
                table, _at_actor_only(table, table.adapter.table(table.engine, table.seats)))
            outs = [group(group_id, msg)]
            seat = table.adapter.acting_seat(table.engine)
            if seat is not None and table.seats[seat].user_id not in table.auto:
                # Where players act in private chat, the player to act gets their turn
                # there again (or, unreachable, the group is told so at once).
                _private_turn(table, outs, seat)
        await deliver(bot, outs)


async def _announces(bot: Bot, group_id: str, owners: dict[str, str | None]) -> bool:
    """Whether ``bot``'s account sends the pending end message of ``group_id``: the
    account of the group's table (in memory, or saved by another process: ``owners``);
    for a group whose table is gone, the account that answers there (the lowest
    connected account in the group)."""
    table = REGISTRY.get(group_id)
    if table is not None:
        return accounts.bot_for(table) is bot
    owner = owners.get(group_id)
    if owner is not None:
        return owner == account_of(bot)
    if len(accounts.connected()) <= 1:
        return True
    return (await accounts.in_group(bot, group_id)
            and await accounts.group_handler(group_id, bot) == account_of(bot))


async def announce_pending(bot: Bot) -> None:
    """Send every finished game's end message of ``bot``'s account's groups (see
    :func:`_announces`) that was never confirmed sent (the bot was killed or had no
    connection right after the game ended), oldest first, each marked announced once
    sent. A game that ended before this process started is prefixed with
    :data:`RESTART_PREFIX`. Each message is sent once whatever runs meanwhile: it is
    claimed (``REGISTRY.claims``, where the change that ends a game claims its own before its
    record is written) and read again from the database before it is sent (the list is
    read first and may be out of date: a resumed table's timer can end its game, post
    and mark it while the list is worked through)."""
    try:
        pending = await REGISTRY.require_store().pending_announcements()
        owners = await REGISTRY.require_store().live_owners(item.group_id for item in pending)
    except Exception as err:  # noqa: BLE001 - try again on the next connect
        logger.error(f"event=pending_announcements_failed cause={err!r}")
        return
    for item in pending:
        if item.uid in REGISTRY.claims:
            continue  # its end message is being sent right now
        if not await _announces(bot, item.group_id, owners):
            continue  # another account's group: it sends the message when it connects
        if item.uid in REGISTRY.claims:
            continue
        REGISTRY.claims.add(item.uid)  # this connect sends it; nobody else meanwhile
        try:
            await _announce_late(bot, item)
        finally:
            REGISTRY.claims.discard(item.uid)


async def _announce_late(bot: Bot, item: PendingAnnouncement) -> None:
    """Send one end message never confirmed sent (claimed by the caller), unless the
    database says it was announced since the list was read (by the change that ended
    the game, or another connect)."""
    try:
        if not await REGISTRY.require_store().announcement_pending(item.uid):
            return
    except Exception as err:  # noqa: BLE001 - try again on the next connect
        logger.error(f"event=pending_announcements_failed cause={err!r}")
        return
    prefix = RESTART_PREFIX if item.ended_at < _STARTED_AT else RECONNECT_PREFIX
    number = await REGISTRY.game_number(item.uid)
    out = group(item.group_id, numbered(plain(prefix) + message_from_json(item.message), number))
    await deliver(bot, [out])
    if out.sent:
        logger.info(f"event=end_announced group={item.group_id} uid={item.uid} late=True")
        await mark_announced(item.uid)


async def bot_connected(bot: Bot) -> None:
    """A bot account connected: its saved tables are loaded (once); end messages of its
    groups never sent go out; its timers that came due while it was away act now, with
    someone to tell; then its resumed tables are re-posted."""
    await accounts.ensure_restored(bot)
    if accounts.is_refused(bot):
        return  # another process serves this account
    await announce_pending(bot)
    resume_deferred(lambda table: accounts.bot_for(table) is bot)
    await announce_resumed(bot)
