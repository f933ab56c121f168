"""Shared helpers of the matchers: who is speaking, with what rights."""

from __future__ import annotations

from nonebot.adapters.onebot.v11 import Bot, GroupMessageEvent, MessageEvent


def display_name(event: MessageEvent) -> str:
    """The sender's group card, else nickname, else QQ number; control characters
    dropped, square brackets made full-width (no CQ code can hide in a name), at most 20
    characters."""
    sender = event.sender
    for raw in (getattr(sender, "card", None), sender.nickname, str(event.user_id)):
        name = "".join(ch for ch in (raw or "") if ch.isprintable()).strip()
        name = name.replace("[", "［").replace("]", "］")[:20].strip()
        if name:
            return name
    return str(event.user_id)


def is_manager(bot: Bot, event: GroupMessageEvent) -> bool:
    """Group owner, group admin, or a SUPERUSER of the bot."""
    if event.sender.role in ("owner", "admin"):
        return True
    return str(event.user_id) in bot.config.superusers
