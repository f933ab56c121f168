"""The Satori room (LLBot's Satori, Chronocat; nonebot-adapter-satori: the bot dials the
server's ``/v1`` API and event stream, ``SATORI_CLIENTS``).

* Ids are strings. On QQ a group is a guild whose one channel has the group's number as
  its id; a private channel is ``private:<QQ>`` (the adapter's ``send_private_message``
  opens it). ``bot.self_id`` is ``<platform>:<QQ>`` (``llonebot:10001``); the account is
  the QQ number (``bot.get_self_id()``), so a table and its records are the same whether
  the account connects over OneBot, Milky or Satori.
* Private messages reach group members who are not friends (the server sends them as a
  temporary session): nobody is asked to add the bot first.
* Private or group is decided by the event class (the channel's type), never by a
  library's scene: LLBot declares ``guild.plain``, so uninfo reports private channels as
  group scenes.
* A picture is ``<img src="data:image/png;base64,…">`` (given its MIME type: without one
  the adapter's element can go out as the text ``[image]``); a long text ``<message
  forward>`` nesting one ``<message>`` per node; an @ ``<at id>``. A line break next to an
  element is lost on the server (``甲\\n<at/>\\n乙`` arrives as one line): every line
  break is sent as ``<br/>``.
* A refused send is an HTTP error raised as the adapter's ``ActionFailed`` family (HTTP
  500: ``ApiNotImplementedException``); a hung one waits for the HTTP client's timeout,
  which defaults to none — the send scheduler's call timeout cuts it off.
* Message ids are strings (LLBot: ``chatType|peer|seq``), the key the gate de-duplicates
  on; the adapter itself delivers a message sent again twice.
* The scope is QQ's (``QQClient``) for the QQ platforms (``llonebot``, ``chronocat``,
  ``qq``…); another platform's persons get ``satori:<platform>``.
"""

from __future__ import annotations

from typing import Any

from nonebot.adapters import Bot as AnyBot
from nonebot.adapters import Event as AnyEvent
from nonebot.adapters.satori import Adapter, Bot, Message, MessageSegment
from nonebot.adapters.satori.event import (
    GuildMemberAddedEvent,
    GuildMemberRemovedEvent,
    MessageCreatedEvent,
    PrivateMessageCreatedEvent,
    PublicMessageCreatedEvent,
)

from . import message as neutral
from .room import QQ_SCOPE, Delivery, Outgoing, Room, Said

QQ_PLATFORMS = frozenset({"llonebot", "chronocat", "qq", "lagrange", "onebot", "milky",
                          "red", "nekobox", "satori-qq"})
"""Satori platform names of QQ client implementations: their ids are QQ numbers."""
ROLES = {"4": "owner", "owner": "owner", "3": "admin", "admin": "admin"}
"""Member role ids and names (LLBot: 4 owner, 3 admin, 2 member)."""


def native(message: neutral.Message) -> Message:
    """A neutral message as Satori elements; each line break a ``<br/>``."""
    out = Message()
    for seg in message:
        if seg.type == neutral.AT:
            out.append(MessageSegment.at(seg.data["user_id"]))
            continue
        for i, line in enumerate(seg.data["text"].split("\n")):
            if i:
                out.append(MessageSegment.br())
            if line:
                out.append(MessageSegment.text(line))
    return out


def _picture(data: bytes) -> MessageSegment:
    return MessageSegment.image(raw=data, mime="image/png")


class SatoriRoom(Room):
    """Satori (see the module docstring)."""

    name = "satori"
    supported_adapter = "~satori"
    bot_class = Bot
    group_events = (PublicMessageCreatedEvent,)
    private_events = (PrivateMessageCreatedEvent,)
    private_to_strangers = True
    adapter = Adapter

    def configured(self) -> bool:
        """``SATORI_CLIENTS`` names a server."""
        from nonebot import get_plugin_config
        from nonebot.adapters.satori.config import Config

        return bool(get_plugin_config(Config).satori_clients)

    def account(self, bot: AnyBot) -> str:
        assert isinstance(bot, Bot)
        return str(bot.get_self_id())

    def scope(self, bot: AnyBot) -> str:
        platform = str(getattr(bot, "platform", "") or "")
        return QQ_SCOPE if platform in QQ_PLATFORMS else f"satori:{platform}"

    def said(self, bot: AnyBot, event: AnyEvent) -> Said | None:
        if isinstance(event, PublicMessageCreatedEvent):
            member = event.member
            user = event.user
            name = (member.nick if member is not None else None) or user.nick or user.name or ""
            roles = [ROLES.get(r.id) or ROLES.get(str(r.name)) for r in member.roles] \
                if member is not None else []
            role = "owner" if "owner" in roles else "admin" if "admin" in roles else "member"
            group = event.guild.id if event.guild is not None else event.channel.id
            return Said(self, self.account(bot), self.scope(bot), str(user.id), str(group),
                        name, role, event.get_plaintext(),
                        tuple(self.mentions(event.get_message())))
        if isinstance(event, PrivateMessageCreatedEvent):
            user = event.user
            return Said(self, self.account(bot), self.scope(bot), str(user.id), None,
                        user.nick or user.name or "", "member", event.get_plaintext())
        return None

    def where(self, event: AnyEvent) -> tuple[str | None, str]:
        user = str(event.user.id)  # type: ignore[attr-defined]
        if isinstance(event, PublicMessageCreatedEvent):
            return str(event.guild.id if event.guild is not None else event.channel.id), user
        return None, user

    def delivery(self, event: AnyEvent) -> Delivery | None:
        if not isinstance(event, MessageCreatedEvent):
            return None
        return Delivery(event.message.id, str(event.user.id),
                        (str(event.user.id), event.get_plaintext()))

    def mentions(self, message: Any) -> list[str]:
        return [str(seg.data["id"]) for seg in message
                if seg.type == "at" and seg.data.get("id") and not seg.data.get("type")]

    def membership(self, bot: AnyBot, event: AnyEvent) -> tuple[str, str] | None:
        if isinstance(event, GuildMemberAddedEvent | GuildMemberRemovedEvent):
            user = getattr(event, "user", None)
            if user is not None and str(user.id) == self.account(bot) and event.guild:
                joined = isinstance(event, GuildMemberAddedEvent)
                return ("joined" if joined else "left"), str(event.guild.id)
        return None

    async def send(self, bot: AnyBot, out: Outgoing) -> None:
        assert isinstance(bot, Bot)
        if out.forward is not None:
            nodes = [MessageSegment.message(content=Message(_picture(part)) if isinstance(part, bytes)
                                            else native(part)) for part in out.forward]
            content = Message(MessageSegment.message(forward=True, content=Message(nodes)))
        elif out.image is not None:
            content = Message(_picture(out.image))
        else:
            content = native(out.message)
        if out.kind == "group":
            await bot.send_message(str(out.target), content)
        else:
            await bot.send_private_message(str(out.target), content)

    async def is_friend(self, bot: AnyBot, user_id: str) -> bool:
        assert isinstance(bot, Bot)
        token: str | None = None
        while True:
            page = await bot.friend_list(next_token=token)
            if any(str(u.id) == user_id for u in page.data):
                return True
            token = page.next
            if not token:
                return False

    async def group_ids(self, bot: AnyBot) -> set[str]:
        assert isinstance(bot, Bot)
        found: set[str] = set()
        token: str | None = None
        while True:
            page = await bot.guild_list(next_token=token)
            found |= {str(g.id) for g in page.data}
            token = page.next
            if not token:
                return found

    async def member_name(self, bot: AnyBot, group_id: str, user_id: str) -> str | None:
        assert isinstance(bot, Bot)
        member = await bot.guild_member_get(guild_id=group_id, user_id=user_id)
        user = member.user
        return member.nick or (user.nick or user.name if user is not None else None) or None

    async def member_names(self, bot: AnyBot, group_id: str) -> dict[str, str]:
        assert isinstance(bot, Bot)
        names: dict[str, str] = {}
        token: str | None = None
        while True:
            page = await bot.guild_member_list(guild_id=group_id, next_token=token)
            for member in page.data:
                if member.user is not None:
                    names[str(member.user.id)] = (member.nick or member.user.nick
                                                  or member.user.name or "")
            token = page.next
            if not token:
                return names
