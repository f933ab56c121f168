"""The OneBot v11 room (NapCat, LLBot's OneBot, Lagrange V1): QQ numbers; private messages
to friends only (the bot never uses group temporary sessions); a picture is an ``image``
segment of the PNG, a long text a merged forward of custom nodes
(``send_group_forward_msg`` / ``send_private_forward_msg``); an @ is an ``at`` segment; a
refused send raises ``ActionFailed`` (the retcode), a side that is away ``NetworkError``
or ``ApiNotAvailable``.

The side connects to the bot (reverse WebSocket); its guards, the per-account ordering and
the de-duplication sit in the guarded adapter (``internals/adapter.py``), which keeps this
room's event keys (:meth:`OneBotRoom.delivery`).
"""

from __future__ import annotations

from typing import Any

from nonebot.adapters import Bot as AnyBot
from nonebot.adapters import Event as AnyEvent
from nonebot.adapters.onebot.v11 import (
    Bot,
    GroupDecreaseNoticeEvent,
    GroupIncreaseNoticeEvent,
    GroupMessageEvent,
    Message,
    MessageSegment,
    PrivateMessageEvent,
)

from . import message as neutral
from .room import Delivery, Outgoing, Room, Said


def onebot_secrets() -> tuple[str, str]:
    """``(ONEBOT_ACCESS_TOKEN, ONEBOT_SECRET)`` as the adapter reads them (empty when
    unset), for the start-up checks (``guard.py``)."""
    from nonebot import get_plugin_config
    from nonebot.adapters.onebot.v11.config import Config

    config = get_plugin_config(Config)
    return config.onebot_access_token or "", config.onebot_secret or ""


def native(message: neutral.Message) -> Message:
    """A neutral message as OneBot segments (text stays text: nothing becomes CQ code)."""
    out = Message()
    for seg in message:
        if seg.type == neutral.AT:
            out.append(MessageSegment.at(seg.data["user_id"]))
        else:
            out.append(MessageSegment.text(seg.data["text"]))
    return out


class OneBotRoom(Room):
    """OneBot v11 (see the module docstring)."""

    name = "onebot"
    supported_adapter = "~onebot.v11"
    bot_class = Bot
    group_events = (GroupMessageEvent,)
    private_events = (PrivateMessageEvent,)

    def said(self, bot: AnyBot, event: AnyEvent) -> Said | None:
        if isinstance(event, GroupMessageEvent):
            sender = event.sender
            return Said(self, str(bot.self_id), self.scope(bot), str(event.user_id),
                        str(event.group_id), sender.card or sender.nickname or "",
                        sender.role or "member", event.get_plaintext(),
                        tuple(self.mentions(event.get_message())))
        if isinstance(event, PrivateMessageEvent):
            return Said(self, str(bot.self_id), self.scope(bot), str(event.user_id), None,
                        event.sender.nickname or "", "member", event.get_plaintext())
        return None

    def where(self, event: AnyEvent) -> tuple[str | None, str]:
        group = getattr(event, "group_id", None)
        return (str(group) if group is not None else None), str(getattr(event, "user_id", ""))

    def delivery(self, event: AnyEvent) -> Delivery | None:
        if getattr(event, "post_type", None) != "message":
            return None
        user = getattr(event, "user_id", None)
        if user is None:
            return None
        return Delivery(getattr(event, "message_id", None), str(user),
                        (user, getattr(event, "time", None), str(getattr(event, "raw_message", ""))))

    def mentions(self, message: Any) -> list[str]:
        return [str(seg.data["qq"]) for seg in message
                if seg.type == "at" and str(seg.data.get("qq")) != "all"]

    def membership(self, bot: AnyBot, event: AnyEvent) -> tuple[str, str] | None:
        if isinstance(event, GroupIncreaseNoticeEvent) and str(event.user_id) == bot.self_id:
            return "joined", str(event.group_id)
        if isinstance(event, GroupDecreaseNoticeEvent) and str(event.user_id) == bot.self_id:
            return "left", str(event.group_id)
        return None

    async def send(self, bot: AnyBot, out: Outgoing) -> None:
        assert isinstance(bot, Bot)
        if out.forward is not None:
            nodes = Message([MessageSegment.node_custom(
                user_id=int(bot.self_id), nickname=self.forward_sender,
                content=Message(MessageSegment.image(part)) if isinstance(part, bytes)
                else native(part)) for part in out.forward])
            if out.kind == "group":
                await bot.send_group_forward_msg(group_id=int(out.target), messages=nodes)
            else:
                await bot.send_private_forward_msg(user_id=int(out.target), messages=nodes)
            return
        content = Message(MessageSegment.image(out.image)) if out.image is not None \
            else native(out.message)
        if out.kind == "group":
            await bot.send_group_msg(group_id=int(out.target), message=content)
        else:
            await bot.send_private_msg(user_id=int(out.target), message=content)

    async def is_friend(self, bot: AnyBot, user_id: str) -> bool:
        friends = await bot.call_api("get_friend_list")
        return any(str(f.get("user_id")) == user_id for f in friends)

    async def group_ids(self, bot: AnyBot) -> set[str]:
        return {str(g["group_id"]) for g in await bot.call_api("get_group_list")}

    async def member_name(self, bot: AnyBot, group_id: str, user_id: str) -> str | None:
        info = await bot.call_api("get_group_member_info", group_id=int(group_id),
                                  user_id=int(user_id))
        return (info or {}).get("card") or (info or {}).get("nickname") or None

    async def member_names(self, bot: AnyBot, group_id: str) -> dict[str, str]:
        members = await bot.call_api("get_group_member_list", group_id=int(group_id))
        return {str(m.get("user_id")): str(m.get("card") or m.get("nickname") or "")
                for m in members or []}
