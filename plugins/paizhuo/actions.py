"""What each command does to the tables: game-independent, chat-shaped (returns the
messages to send), with the table lock held while the state changes and released before
anything is sent.

Data flows one way: command → engine move → new state → saved → messages.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable

from nonebot import logger
from nonebot.adapters.onebot.v11 import Bot, Message, MessageSegment

from engine.errors import MoveError
from plugins.paizhuo.games import GameAdapter, UsageError, find_game
from plugins.paizhuo.games.base import SeatView
from plugins.paizhuo.messaging import Outgoing, deliver, group, private
from plugins.paizhuo.tables import REGISTRY, Table, end_record, now_utc

JOIN_HINT = "发送 /加入 入座"


def reply(group_id: str, user_id: str, text: str) -> Outgoing:
    """A short group reply that @-mentions the player."""
    return group(group_id, MessageSegment.at(int(user_id)) + f" {text}")


async def run_locked(bot: Bot, table: Table,
                     change: Callable[[], Awaitable[list[Outgoing]]]) -> None:
    """Apply ``change`` under the table's lock, then send its messages in order without
    holding the lock (the send lock keeps one table's messages in command order)."""
    async with table.lock:
        outs = await change()
        await table.send_lock.acquire()
    try:
        await deliver(bot, outs)
    finally:
        table.send_lock.release()


async def can_message_privately(bot: Bot, user_id: str) -> bool:
    """Whether ``user_id`` is on the bot's friend list (hands go only by private message
    between friends, never through a group temp session)."""
    try:
        friends = await bot.get_friend_list()
    except Exception as err:  # noqa: BLE001
        logger.warning(f"get_friend_list failed: {err!r}")
        return False
    return any(str(f.get("user_id")) == user_id for f in friends)


def not_friend_text() -> str:
    """Reply for a player the bot cannot message privately."""
    return "机器人需要私聊给你发牌：请先加机器人为好友，再来入座。"


def hand_messages(table: Table, seats: list[int] | None = None) -> list[Outgoing]:
    """Each listed seat's hand and role, privately (G-4)."""
    chosen = range(len(table.seats)) if seats is None else seats
    return [private(table.seats[s].user_id,
                    table.adapter.render_hand(table.engine, table.seats, s), table.group_id)
            for s in chosen]


async def start_game(table: Table) -> list[Outgoing]:
    """Deal when the seats are full; returns the start message and the hands."""
    table.engine = table.adapter.new_game(table.size, table.settings, secrets.randbits(62))
    table.started_at = now_utc()
    table.uid = f"{table.group_id}-{table.started_at:%Y%m%d%H%M%S%f}-{secrets.token_hex(4)}"
    await REGISTRY.save(table)
    logger.info(f"table start group={table.group_id} game={table.game} uid={table.uid}")
    return [group(table.group_id, table.adapter.render_start(table.engine, table.seats)),
            *hand_messages(table)]


def seat_list(table: Table) -> str:
    """``1.张三 2.李四`` and how many seats are free."""
    names = " ".join(f"{i + 1}.{s.name}" for i, s in enumerate(table.seats))
    return f"{names}（{len(table.seats)}/{table.size}）"


async def open_table(bot: Bot, group_id: str, user_id: str, name: str, args: str) -> None:
    """``/开局 <游戏> <人数>``: open a table in the group and seat the opener."""
    parts = args.split()
    try:
        adapter: GameAdapter = find_game(parts[0] if parts else "")
        size = adapter.parse_size(" ".join(parts[1:]))
    except UsageError as err:
        await deliver(bot, [reply(group_id, user_id, str(err))])
        return
    if not await can_message_privately(bot, user_id):
        await deliver(bot, [reply(group_id, user_id, not_friend_text())])
        return
    async with REGISTRY.guard:
        existing = REGISTRY.get(group_id)
        seated = REGISTRY.table_of_user(user_id)
        if existing is not None:
            out = reply(group_id, user_id, f"本群已有一桌{existing.game}，{JOIN_HINT}，或等这桌结束。")
        elif seated is not None:
            out = reply(group_id, user_id, "你已经在另一个群的牌桌上了，先在那边 /退出 或打完。")
        else:
            table = Table(group_id=group_id, game=adapter.name, size=size, opener=user_id,
                          seats=[SeatView(user_id, name)], settings={}, created_at=now_utc())
            REGISTRY.add(table)
            out = None
    if out is not None:
        await deliver(bot, [out])
        return
    await REGISTRY.save(table)
    logger.info(f"table open group={group_id} game={adapter.name} size={size} by={user_id}")
    await deliver(bot, [group(group_id, f"{name} 开了一桌{adapter.name}（{size} 人），"
                                        f"{JOIN_HINT}。\n座位：{seat_list(table)}")])


async def join_table(bot: Bot, group_id: str, user_id: str, name: str) -> None:
    """``/加入``: take a seat; the game starts by itself when the seats are full."""
    table = REGISTRY.get(group_id)
    if table is None:
        await deliver(bot, [reply(group_id, user_id, "本群还没有牌桌，发送 /开局 抓特务 四人 开一桌。")])
        return
    if table.seat_of(user_id) is not None:
        await deliver(bot, [reply(group_id, user_id, "你已经在这桌了。")])
        return
    if table.playing:
        await deliver(bot, [reply(group_id, user_id, "这桌已经开始了，等下一局吧。")])
        return
    if not await can_message_privately(bot, user_id):
        await deliver(bot, [reply(group_id, user_id, not_friend_text())])
        return

    async def change() -> list[Outgoing]:
        if REGISTRY.get(group_id) is not table or table.playing:
            return [reply(group_id, user_id, "这桌已经开始了，等下一局吧。")]
        if table.seat_of(user_id) is not None:
            return [reply(group_id, user_id, "你已经在这桌了。")]
        async with REGISTRY.guard:
            if REGISTRY.table_of_user(user_id) is not None:
                return [reply(group_id, user_id, "你已经在另一个群的牌桌上了，先在那边 /退出 或打完。")]
            table.seats.append(SeatView(user_id, name))
            REGISTRY.by_user[user_id] = group_id
        outs = [group(group_id, f"{name} 入座。座位：{seat_list(table)}")]
        if len(table.seats) == table.size:
            outs += await start_game(table)
        else:
            await REGISTRY.save(table)
        return outs

    await run_locked(bot, table, change)


async def leave_table(bot: Bot, group_id: str, user_id: str) -> None:
    """``/退出``: leave before the start; the last one out closes the table."""
    table = REGISTRY.get(group_id)
    if table is None or table.seat_of(user_id) is None:
        await deliver(bot, [reply(group_id, user_id, "你不在本群的牌桌上。")])
        return

    async def change() -> list[Outgoing]:
        seat = table.seat_of(user_id)
        if REGISTRY.get(group_id) is not table or seat is None:
            return [reply(group_id, user_id, "你不在本群的牌桌上。")]
        if table.playing:
            return [reply(group_id, user_id, "牌局进行中，不能退出；可请开局人或管理员发送 /结束。")]
        name = table.seats.pop(seat).name
        async with REGISTRY.guard:
            REGISTRY.unseat(table, user_id)
        if not table.seats:
            await REGISTRY.close(table)
            return [group(group_id, f"{name} 退出，牌桌已关闭。")]
        if table.opener == user_id:
            table.opener = table.seats[0].user_id
        await REGISTRY.save(table)
        return [group(group_id, f"{name} 退出。座位：{seat_list(table)}")]

    await run_locked(bot, table, change)


async def end_table(bot: Bot, group_id: str, user_id: str, is_manager: bool) -> None:
    """``/结束``: close the table without score (opener, group admin/owner, SUPERUSER)."""
    table = REGISTRY.get(group_id)
    if table is None:
        await deliver(bot, [reply(group_id, user_id, "本群没有牌桌。")])
        return
    if not is_manager and table.opener != user_id:
        await deliver(bot, [reply(group_id, user_id, "只有开局人、群主、管理员可以结束牌局。")])
        return

    async def change() -> list[Outgoing]:
        if REGISTRY.get(group_id) is not table:
            return [reply(group_id, user_id, "本群没有牌桌。")]
        async with REGISTRY.guard:
            await REGISTRY.close(table)
        logger.info(f"table ended group={group_id} by={user_id}")
        return [group(group_id, f"牌局已结束（{table.game}，不计分）。")]

    await run_locked(bot, table, change)


async def move(bot: Bot, group_id: str, user_id: str, text: str | None) -> None:
    """``出 <牌>`` (``text``) or ``过`` (``text is None``) at the group's table."""
    table = REGISTRY.get(group_id)
    if table is None or not table.playing:
        return
    if table.seat_of(user_id) is None:
        await deliver(bot, [reply(group_id, user_id, "你不在这桌牌局中。")])
        return

    async def change() -> list[Outgoing]:
        seat = table.seat_of(user_id)
        if REGISTRY.get(group_id) is not table or not table.playing or seat is None:
            return [reply(group_id, user_id, "这桌牌局已经结束了。")]
        adapter = table.adapter
        snapshot = adapter.dump(table.engine)
        try:
            if text is None:
                result = adapter.pass_turn(table.engine, seat)
            else:
                result = adapter.play(table.engine, seat, text)
        except MoveError as err:
            return [reply(group_id, user_id, err.message)]
        except Exception:
            table.engine = adapter.load(snapshot)
            logger.exception(f"move failed group={group_id} seat={seat} text={text!r}")
            return [reply(group_id, user_id, "出错了，这步没有生效，请重试。")]
        logger.info(f"move group={group_id} uid={table.uid} seat={seat + 1} "
                    f"action={'pass' if text is None else 'play'} text={text!r}")
        outs = [group(group_id, adapter.render_move(table.engine, table.seats, result))]
        if adapter.hand_changed(result):
            outs += hand_messages(table, [seat])
        if adapter.is_over(table.engine):
            record = end_record(table)
            async with REGISTRY.guard:
                await REGISTRY.finish(table, record)
            logger.info(f"table finished group={group_id} uid={table.uid}")
            outs.append(group(group_id, adapter.render_end(table.engine, table.seats)))
        else:
            await REGISTRY.save(table)
        return outs

    await run_locked(bot, table, change)


async def resend_hand(bot: Bot, user_id: str, group_id: str | None) -> None:
    """``/手牌``: the caller's hand again, privately."""
    table = REGISTRY.table_of_user(user_id)
    if table is None or not table.playing:
        text = "你现在没有进行中的牌局。"
        out = reply(group_id, user_id, text) if group_id else private(user_id, text)
        await deliver(bot, [out])
        return
    async with table.lock:
        seat = table.seat_of(user_id)
        outs = hand_messages(table, [seat]) if seat is not None else []
    for out in outs:
        out.group_id = table.group_id
    await deliver(bot, outs)


async def show_table(bot: Bot, group_id: str, user_id: str) -> None:
    """``/牌桌``: re-post the public table."""
    table = REGISTRY.get(group_id)
    if table is None:
        await deliver(bot, [reply(group_id, user_id, "本群没有牌桌，发送 /开局 抓特务 四人 开一桌。")])
        return
    async with table.lock:
        if table.playing:
            msg: Message = table.adapter.render_table(table.engine, table.seats)
        else:
            msg = Message(f"【{table.game}】等人入座：{seat_list(table)}，{JOIN_HINT}。")
    await deliver(bot, [group(group_id, msg)])
