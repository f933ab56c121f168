"""Shared helpers of the matchers: who is speaking, with what rights."""

from __future__ import annotations

from nonebot.adapters.onebot.v11 import Bot, GroupMessageEvent, MessageEvent


def display_name(event: MessageEvent) -> str:
    """The sender's group card, else nickname, else QQ number."""
    sender = event.sender
    return (getattr(sender, "card", None) or sender.nickname or str(event.user_id)).strip()[:20]


def is_manager(bot: Bot, event: GroupMessageEvent) -> bool:
    """Group owner, group admin, or a SUPERUSER of the bot."""
    if event.sender.role in ("owner", "admin"):
        return True
    return str(event.user_id) in bot.config.superusers
