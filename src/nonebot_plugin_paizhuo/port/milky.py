"""The Milky room (Lagrange.Milky, LLBot's Milky; nonebot-adapter-milky: the bot dials the
side's HTTP API and WebSocket event stream, ``MILKY_CLIENTS``).

* Ids are QQ numbers, ints on the wire; ``bot.self_id`` is the account's QQ number.
* Private messages reach friends only (``send_private_message`` to anyone else fails,
  -404 on the reference side). A message from a non-friend arrives as a temporary session
  (``TempMessageEvent``): it is a private message here, and it is answered — like every
  private message — with ``send_private_message`` (the adapter's own ``bot.send`` on such
  an event would call ``send_group_message`` with the person's number as the group).
* A picture is an ``image`` segment with a ``base64://`` URI; a long text one ``forward``
  segment of nodes (the account's number, :attr:`Room.forward_sender`, the segments); an @
  a ``mention`` with the QQ number as an int.
* ``message_seq`` counts per conversation: a message is (scene, peer, seq) — the key the
  gate de-duplicates on; the adapter itself delivers a message sent again twice.
* A refused send raises ``ActionFailed`` (its retcode); a hung one ``NetworkError`` after
  NoneBot's ``API_TIMEOUT`` (the send scheduler's own call timeout comes first); a side
  that is away ``NetworkError``.
"""

from __future__ import annotations

from typing import Any

from nonebot.adapters import Bot as AnyBot
from nonebot.adapters import Event as AnyEvent
from nonebot.adapters.milky import Adapter, Bot, Message, MessageSegment
from nonebot.adapters.milky.event import (
    FriendMessageEvent,
    GroupMemberDecreaseEvent,
    GroupMemberIncreaseEvent,
    GroupMessageEvent,
    MessageEvent,
    TempMessageEvent,
)

from . import message as neutral
from .room import Delivery, Outgoing, Room, Said


def native(message: neutral.Message) -> Message:
    """A neutral message as Milky segments."""
    out = Message()
    for seg in message:
        if seg.type == neutral.AT:
            out.append(MessageSegment.mention(int(seg.data["user_id"])))
        else:
            out.append(MessageSegment.text(seg.data["text"]))
    return out


class MilkyRoom(Room):
    """Milky (see the module docstring)."""

    name = "milky"
    supported_adapter = "~milky"
    bot_class = Bot
    group_events = (GroupMessageEvent,)
    private_events = (FriendMessageEvent, TempMessageEvent)
    adapter = Adapter

    def configured(self) -> bool:
        """``MILKY_CLIENTS`` (or ``MILKY_WEBHOOK``) names a side."""
        from nonebot import get_plugin_config
        from nonebot.adapters.milky.config import Config

        config = get_plugin_config(Config)
        return bool(config.milky_clients or config.milky_webhook)

    def said(self, bot: AnyBot, event: AnyEvent) -> Said | None:
        if not isinstance(event, MessageEvent):
            return None
        data = event.data
        text = event.get_plaintext()
        if isinstance(event, GroupMessageEvent):
            member = data.group_member
            name = (member.card or member.nickname) if member is not None else ""
            role = member.role if member is not None else "member"
            return Said(self, str(bot.self_id), self.scope(bot), str(data.sender_id),
                        str(data.peer_id), name, role, text,
                        tuple(self.mentions(event.get_message())))
        if isinstance(event, FriendMessageEvent | TempMessageEvent):
            name = data.friend.nickname if data.friend is not None else ""
            return Said(self, str(bot.self_id), self.scope(bot), str(data.sender_id), None,
                        name, "member", text)
        return None

    def where(self, event: AnyEvent) -> tuple[str | None, str]:
        data = event.data  # type: ignore[attr-defined]
        group = str(data.peer_id) if isinstance(event, GroupMessageEvent) else None
        return group, str(data.sender_id)

    def delivery(self, event: AnyEvent) -> Delivery | None:
        if not isinstance(event, MessageEvent):
            return None
        data = event.data
        return Delivery((data.message_scene, data.peer_id, data.message_seq), str(data.sender_id),
                        (data.sender_id, data.time, event.get_plaintext()))

    def mentions(self, message: Any) -> list[str]:
        return [str(seg.data["user_id"]) for seg in message if seg.type == "mention"]

    def membership(self, bot: AnyBot, event: AnyEvent) -> tuple[str, str] | None:
        if isinstance(event, GroupMemberIncreaseEvent | GroupMemberDecreaseEvent) \
                and str(event.data.user_id) == bot.self_id:
            joined = isinstance(event, GroupMemberIncreaseEvent)
            return ("joined" if joined else "left"), str(event.data.group_id)
        return None

    async def send(self, bot: AnyBot, out: Outgoing) -> None:
        assert isinstance(bot, Bot)
        if out.forward is not None:
            content: Any = MessageSegment.forward([
                MessageSegment.node(int(bot.self_id), self.forward_sender,
                                    Message(MessageSegment.image(raw=part))
                                    if isinstance(part, bytes) else native(part))
                for part in out.forward])
        elif out.image is not None:
            content = MessageSegment.image(raw=out.image)
        else:
            content = native(out.message)
        if out.kind == "group":
            await bot.send_group_message(group_id=int(out.target), message=content)
        else:
            await bot.send_private_message(user_id=int(out.target), message=content)

    async def is_friend(self, bot: AnyBot, user_id: str) -> bool:
        assert isinstance(bot, Bot)
        return any(str(f.user_id) == user_id for f in await bot.get_friend_list())

    async def group_ids(self, bot: AnyBot) -> set[str]:
        assert isinstance(bot, Bot)
        return {str(g.group_id) for g in await bot.get_group_list()}

    async def member_name(self, bot: AnyBot, group_id: str, user_id: str) -> str | None:
        assert isinstance(bot, Bot)
        member = await bot.get_group_member_info(group_id=int(group_id), user_id=int(user_id))
        return member.card or member.nickname or None

    async def member_names(self, bot: AnyBot, group_id: str) -> dict[str, str]:
        assert isinstance(bot, Bot)
        return {str(m.user_id): m.card or m.nickname
                for m in await bot.get_group_member_list(group_id=int(group_id))}
