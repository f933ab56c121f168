"""Shared helpers of the matchers: who is speaking, where, with what rights — read through
the side's room (``port``), whichever side the message came over."""

from __future__ import annotations

from nonebot.adapters import Bot, Event, Message

from ..actions.basics import reply
from ..messaging import chatter, deliver, private
from ..names import clean_name
from ..port import Said, said


def heard(bot: Bot, event: Event) -> Said:
    """The neutral view of the message a handler runs for (its matcher takes only the
    port's message events, so there is one)."""
    found = said(bot, event)
    if found is None:
        raise TypeError(f"{type(event).__name__} is not a person's message on a known side")
    return found


def display_name(who: Said) -> str:
    """The sender's group card, else nickname, else user id, through
    :func:`~nonebot_plugin_paizhuo.names.clean_name` (control characters dropped, no CQ code, at
    most 20 characters)."""
    return clean_name(who.name) or who.user_id


def is_manager(bot: Bot, who: Said) -> bool:
    """Group owner, group admin, or a SUPERUSER of the bot."""
    if who.role in ("owner", "admin"):
        return True
    return who.user_id in bot.config.superusers


USAGE: dict[str, str] = {
    "退出": "用法：/退出（不带参数），开局前离座或两局之间关桌",
    "结束": "用法：/结束（不带参数），关闭本群牌桌，进行中的一局不计分",
    "牌桌": "用法：/牌桌（不带参数），重发当前桌面",
    "继续": "用法：/继续（不带参数），一局结束后全员发送开下一局",
    "托管": "用法：/托管（不带参数），让机器人代打，再发一次取消",
    "开始": "用法：/开始（不带参数），不定人数的手把一由开局人发送开打",
    "手牌": "用法：/手牌（不带参数），私聊重发你的手牌",
    "记牌": "用法：/记牌（不带参数），私聊列出你还没见过的牌",
    "战绩": "用法：/战绩 查自己；/战绩 @某人 查群友（要真的 @ 选人，或写 QQ 号）",
}
"""The right form of each command, for a reply to wrong or extra arguments."""


async def wrong_args(bot: Bot, who: Said, args: Message, command: str) -> bool:
    """For a command that takes no arguments: when text follows it, answer with its
    :data:`USAGE` (an @-reply in a group, privately otherwise) and return ``True``."""
    if not args.extract_plain_text().strip():
        return False
    out = (reply(who.group_id, who.user_id, USAGE[command]) if who.group_id is not None
           else private(who.user_id, USAGE[command]))
    await deliver(bot, [chatter(out)])
    return True
