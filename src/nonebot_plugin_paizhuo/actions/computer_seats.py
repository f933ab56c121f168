"""Computer players' seats: ``/加机器人 [n]`` seats 电脑1, 电脑2 … and ``/踢机器人`` lets
them all go, before the first deal or between games (the opener, a group admin/owner or a
SUPERUSER). The game starts as usual when the seats are full.

Owns seating computer players; may call :mod:`.basics`, :mod:`.commit`,
:func:`.deadlines.schedule` and :mod:`.seating` (dealing, the between-games status).
"""

from __future__ import annotations

import unicodedata

from nonebot.adapters import Bot

from paizhuo_engine.numbers import parse_int

from ..games.base import COMPUTER_PREFIX, SeatView, computer_name, is_computer
from ..messaging import (
    Outgoing,
    deliver,
    group,
)
from ..tables import (
    FINISHED,
    REGISTRY,
    WAITING,
)
from .basics import (
    NO_TABLE,
    capacity,
    log_event,
    reply,
    seat_list,
)
from .commit import run_locked
from .deadlines import schedule
from .seating import between_games_status, ready_to_deal, start_game


async def add_computers(bot: Bot, group_id: str, user_id: str, arg: str, is_manager: bool) -> None:
    """``/加机器人 [n]``: seat ``n`` (default 1) computer players 电脑1, 电脑2 … before the
    start or between games (the opener, a group admin/owner or a SUPERUSER); the game
    starts as usual when the seats are full."""
    table = REGISTRY.get(group_id)
    if table is None:
        await deliver(bot, [reply(group_id, user_id, NO_TABLE)])
        return
    text = unicodedata.normalize("NFKC", arg).strip()
    count = CN_NUMBERS[text] if text in CN_NUMBERS else parse_int(text, max_digits=2)
    if count is None or count < 1:
        await deliver(bot, [reply(group_id, user_id, "用法：/加机器人 [人数]，例如 /加机器人 2。")])
        return
    if not is_manager and table.opener != user_id:
        await deliver(bot, [reply(group_id, user_id, "只有开局人、群主、管理员或超级用户可以加机器人。")])
        return

    async def change() -> list[Outgoing]:
        if REGISTRY.get(group_id) is not table or table.playing:
            return [reply(group_id, user_id, "牌局进行中不能加机器人；等这局结束再加。")]
        free = capacity(table) - len(table.seats)
        if free <= 0:
            return [reply(group_id, user_id, "这桌已经坐满了。")]
        if count > free:
            return [reply(group_id, user_id, f"这桌只剩 {free} 个空位。")]
        taken = {s.user_id for s in table.seats}
        added = []
        n = 1
        while len(added) < count:
            uid = f"{COMPUTER_PREFIX}{n}"
            if uid not in taken:
                table.seats.append(SeatView(uid, computer_name(uid)))
                added.append(computer_name(uid))
                if table.status == FINISHED:
                    table.ready.append(uid)
            n += 1
        log_event(table, "computers_in", count=count)
        line = f"{'、'.join(added)} 入座（电脑玩家）。"
        if table.status == WAITING and len(table.seats) == capacity(table):
            return [group(group_id, line)] + await start_game(table)
        if table.status == FINISHED and ready_to_deal(table):
            return [group(group_id, line)] + await start_game(table)
        table.rearm()
        await REGISTRY.save(table)
        schedule(table)
        status = between_games_status(table) if table.status == FINISHED else ""
        return [group(group_id, f"{line}座位：{seat_list(table)}" + (f"\n{status}" if status else ""))]

    await run_locked(bot, table, change)

async def remove_computers(bot: Bot, group_id: str, user_id: str, is_manager: bool) -> None:
    """``/踢机器人``: every computer player leaves (before the start or between games)."""
    table = REGISTRY.get(group_id)
    if table is None:
        await deliver(bot, [reply(group_id, user_id, NO_TABLE)])
        return
    if not is_manager and table.opener != user_id:
        await deliver(bot, [reply(group_id, user_id, "只有开局人、群主、管理员或超级用户可以请机器人离座。")])
        return

    async def change() -> list[Outgoing]:
        if REGISTRY.get(group_id) is not table or table.playing:
            return [reply(group_id, user_id, "牌局进行中不能请机器人离座；等这局结束。")]
        gone = [s for s in table.seats if is_computer(s.user_id)]
        if not gone:
            return [reply(group_id, user_id, "这桌没有电脑玩家。")]
        table.seats = [s for s in table.seats if not is_computer(s.user_id)]
        table.ready = [u for u in table.ready if not is_computer(u)]
        names = "、".join(s.name for s in gone)
        log_event(table, "computers_out", count=len(gone))
        if not table.seats:
            async with REGISTRY.guard:
                await REGISTRY.close(table)
            schedule(table)
            return [group(group_id, f"{names} 离座，牌桌已关闭。")]
        table.rearm()
        await REGISTRY.save(table)
        schedule(table)
        status = between_games_status(table) if table.status == FINISHED else ""
        return [group(group_id, f"{names} 离座。座位：{seat_list(table)}" + (f"\n{status}" if status else ""))]

    await run_locked(bot, table, change)

CN_NUMBERS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "": 1}
"""``/加机器人`` counts written in Chinese (and no count = 1)."""
