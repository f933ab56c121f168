"""Small pieces every stage of the chat layer uses: the common replies (``reply``,
:data:`NO_TABLE`, :data:`NOT_APPLIED` …), the structured log line (:func:`log_event`),
the seat list and capacity of a table, who must decide now (:func:`_actor`, the only
user a post may @-mention), the end message's game number, the turn time left on a
re-posted table, the group's settings for a game, and the friend check.

Calls nothing else in :mod:`nonebot_plugin_paizhuo.actions` (only tables, messaging, runs).
"""

from __future__ import annotations

from nonebot import logger
from nonebot.adapters import Bot

from ..games import GameAdapter
from ..games.base import is_computer
from ..messaging import (
    Outgoing,
    group,
    timed,
)
from ..port import Message, MessageSegment, room_of
from ..runs import only_at
from ..tables import (
    REGISTRY,
    Table,
    timer_now,
)

JOIN_HINT = "发送 /加入 入座"


NO_TABLE = "本群还没有牌桌，发送 /开局 <游戏> 开一桌（抓特务 / 挖坑 / 手把一，/帮助 查看用法）。"


OTHER_TABLE = "你已经在另一个群的牌桌上了，先在那边 /退出 或打完。"


NOT_APPLIED = "没有生效，请重试。"
"""Reply to a command whose change could not be saved."""


def reply(group_id: str, user_id: str, text: str) -> Outgoing:
    """A short group reply that @-mentions the player."""
    return group(group_id, MessageSegment.at(user_id) + MessageSegment.text(f" {text}"))


async def can_message_privately(bot: Bot, user_id: str) -> bool:
    """Whether the bot can send ``user_id`` private messages (hands, questions): a friend
    of the account, or anyone on a side that allows temporary sessions (the room says,
    ``port.room.Room.reachable``). ``False`` when the side cannot tell (logged)."""
    room = room_of(bot)
    if room is None:
        return False
    try:
        return await timed(room.reachable(bot, user_id))
    except Exception as err:  # noqa: BLE001
        logger.warning(f"friend check failed for {user_id}: {err!r}")
        return False


def not_friend_text(bot: Bot | None = None) -> str:
    """Reply for a player the bot cannot message privately (the side's own words,
    ``Room.join_text``)."""
    room = room_of(bot) if bot is not None else None
    return room.join_text() if room is not None else "机器人需要私聊给你发牌：请先加机器人为好友，再来入座。"


def capacity(table: Table) -> int:
    """The seats of a table: its size, or the game's seat limit for an open-ended table
    (手把一 opened without a size starts on ``/开始``)."""
    return table.size or table.adapter.max_seats(table.settings)


def seat_list(table: Table) -> str:
    """``1.张三 2.李四（2/4）`` (``2/最多 6`` for an open-ended table)."""
    names = " ".join(f"{i + 1}.{s.name}" for i, s in enumerate(table.seats))
    limit = table.size or f"最多 {capacity(table)}"
    return f"{names}（{len(table.seats)}/{limit}）"


def log_event(table: Table, event: str, seat: int | None = None, **extra: object) -> None:
    """One structured INFO line per table event and accepted move."""
    fields = [f"event={event}", f"group={table.group_id}", f"game={table.game}",
              f"table={table.uid or '-'}"]
    if seat is not None:
        fields.append(f"seat={seat + 1} user={table.seats[seat].user_id}")
    fields += [f"{k}={v!r}" for k, v in extra.items()]
    logger.info(" ".join(fields))


DETAILS_POINTER = "本群第 {number} 局。每人发到的牌和每一手：/对局 {number}"
"""The end message's last line: the game's number and where its details are (every hand
as dealt with its role, the dealer, spy cards and tribute / the bottom / the cards set
aside, every move in order, the result: ``/对局 N``, answered in the group)."""


def numbered(message: Message, number: int | None) -> Message:
    """An end message with the game's number in its group (第 N 局) and where to see the
    deal and every move (:data:`DETAILS_POINTER`)."""
    if not number:
        return message
    return message + MessageSegment.text("\n" + DETAILS_POINTER.format(number=number))


def _actor(table: Table) -> str | None:
    """The user who must decide now (the only one a post may @-mention), if any."""
    if not table.playing or table.adapter.is_over(table.engine):
        return None
    seat = table.adapter.acting_seat(table.engine)
    if seat is None:
        return None
    user = table.seats[seat].user_id
    return None if is_computer(user) or user in table.auto else user


def _at_actor_only(table: Table, message: Message) -> Message:
    """``message`` (the table with its prompt) @-mentioning only the user who must decide
    now: a player in 托管 is named, not @-mentioned."""
    return only_at(message, _actor(table), {s.user_id: s.name for s in table.seats})


async def group_settings(group_id: str, adapter: GameAdapter) -> dict:
    """The group's settings for a game, defaults filled in, invalid values dropped."""
    stored = await REGISTRY.require_store().get_settings(group_id, adapter.name)
    return adapter.schema.clean(stored)


def with_time_left(table: Table, msg: Message) -> Message:
    """A re-posted table whose prompt shows the turn time still left (``（还剩 23 秒）``)
    instead of the full limit the prompt was first sent with (``（60 秒）``, G-3)."""
    turn = getattr(getattr(table.engine, "rules", None), "turn_seconds", 0)
    if (not table.playing or table.deadline is None or not turn
            or table.adapter.prompt_seconds(table.engine)):
        return msg
    left = max(1, int((table.deadline - timer_now()).total_seconds()))
    full = f"（{turn} 秒）"
    out = Message()
    for seg in msg:
        text = seg.data.get("text", "") if seg.type == "text" else ""
        if text.endswith(full):
            seg = MessageSegment.text(text[: -len(full)] + f"（还剩 {left} 秒）")
        out.append(seg)
    return out
