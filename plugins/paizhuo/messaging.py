"""Outgoing messages: what an action wants said, delivered after the table lock is released.

A handler collects :class:`Outgoing` items while it holds a table's lock and hands them to
:func:`deliver` afterwards, so no lock is held while waiting on the network. A private
message that fails is reported in the group with how to fix it (never with its content).
"""

from __future__ import annotations

from dataclasses import dataclass

from nonebot import logger
from nonebot.adapters.onebot.v11 import Bot, Message, MessageSegment


@dataclass(slots=True)
class Outgoing:
    """One message: ``kind`` ``"group"`` or ``"private"``, ``target`` the group or user id
    (as a string), ``message`` the content. ``group_id`` of a private message is the group
    to tell if it cannot be delivered."""

    kind: str
    target: str
    message: Message
    group_id: str | None = None


def group(group_id: str, message: Message | str) -> Outgoing:
    """A group message."""
    return Outgoing("group", group_id, Message(message))


def private(user_id: str, message: Message | str, group_id: str | None = None) -> Outgoing:
    """A private message to ``user_id``; failures are reported in ``group_id``."""
    return Outgoing("private", user_id, Message(message), group_id)


def private_failed_notice(user_id: str) -> Message:
    """The group notice for a private message that could not be delivered."""
    return MessageSegment.at(int(user_id)) + " 私聊消息发送失败：请先加机器人为好友，再发送 /手牌 取回手牌。"


async def deliver(bot: Bot, outs: list[Outgoing]) -> None:
    """Send ``outs`` in order. A failed private message is reported in its group; a failed
    group message is logged. Never raises."""
    for out in outs:
        try:
            if out.kind == "group":
                await bot.send_group_msg(group_id=int(out.target), message=out.message)
            else:
                await bot.send_private_msg(user_id=int(out.target), message=out.message)
        except Exception as err:  # noqa: BLE001 - any failure of the OneBot side
            logger.warning(f"send failed: {out.kind} {out.target}: {err!r}")
            if out.kind == "private" and out.group_id:
                try:
                    await bot.send_group_msg(group_id=int(out.group_id),
                                             message=private_failed_notice(out.target))
                except Exception as err2:  # noqa: BLE001
                    logger.warning(f"send failed: group {out.group_id}: {err2!r}")
