"""The probe plugin: answers a few commands through the adapter's own API and writes what
it received and what each send gave to ``PROBE_LOG`` (JSON lines).

Commands (the whole message's text; in a group or privately):

* ``echo <text>`` — ``bot.send`` the text back where it came from;
* ``private <text>`` — send the text to the speaker privately;
* ``image`` — a small PNG where it came from; ``forward`` — a merged forward of two texts;
* ``mention`` — ``@speaker 轮到你``; ``lines`` — ``第一行\\n@speaker\\n第二行``;
* ``whois`` — the speaker's name in the group, read through the adapter, sent back;
* ``send group <id> <text>`` / ``send private <id> <text>`` — send to that chat.
"""

from __future__ import annotations

import base64
import json
import os
from typing import Any

from nonebot import get_driver, on_message
from nonebot.adapters import Bot, Event

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
"""A 1×1 PNG."""
ADAPTER = os.environ["PROBE_ADAPTER"]


def log(**fields: Any) -> None:
    with open(os.environ["PROBE_LOG"], "a", encoding="utf-8") as out:
        out.write(json.dumps(fields, ensure_ascii=False, default=str) + "\n")


driver = get_driver()


@driver.on_bot_connect
async def _connected(bot: Bot) -> None:
    log(kind="connect", self_id=bot.self_id)


@driver.on_bot_disconnect
async def _disconnected(bot: Bot) -> None:
    log(kind="disconnect", self_id=bot.self_id)


probe = on_message(priority=1, block=True)


def _describe(event: Event) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "kind": "event", "class": type(event).__name__, "user": event.get_user_id(),
        "session": event.get_session_id(), "text": event.get_plaintext(),
        "to_me": event.is_tome(), "message": [
            {"type": seg.type, "data": {k: v for k, v in seg.data.items() if not k.startswith("_")}}
            for seg in event.get_message()]}
    if ADAPTER == "milky":
        data = event.data  # type: ignore[attr-defined]
        fields.update(message_id=data.message_seq, scene=data.message_scene, peer=data.peer_id)
    else:
        fields.update(message_id=event.message.id, channel=event.channel.id,  # type: ignore[attr-defined]
                      channel_type=int(event.channel.type),  # type: ignore[attr-defined]
                      guild=event.guild.id if event.guild else None)  # type: ignore[attr-defined]
    return fields


async def _attempt(command: str, coro) -> None:
    try:
        result = await coro
    except Exception as exc:  # the probe reports every failure as it surfaced
        log(kind="send", cmd=command, ok=False, error=type(exc).__name__,
            mro=[c.__name__ for c in type(exc).__mro__], detail=repr(exc)[:400])
    else:
        log(kind="send", cmd=command, ok=True, result=repr(result)[:400])


@probe.handle()
async def _probe(bot: Bot, event: Event) -> None:
    log(**_describe(event))
    text = event.get_plaintext().strip()
    command, _, rest = text.partition(" ")
    if ADAPTER == "milky":
        from nonebot.adapters.milky import Message, MessageSegment
        from nonebot.adapters.milky.event import GroupMessageEvent

        uid = int(event.get_user_id())
        group = event.data.peer_id if isinstance(event, GroupMessageEvent) else None  # type: ignore[attr-defined]

        async def to_chat(kind: str, target: int, message: Any) -> Any:
            if kind == "group":
                return await bot.send_group_message(group_id=target, message=message)  # type: ignore[attr-defined]
            return await bot.send_private_message(user_id=target, message=message)  # type: ignore[attr-defined]

        image = MessageSegment.image(raw=PNG)
        forward = MessageSegment.forward([
            MessageSegment.node(int(bot.self_id), "牌桌", Message("第一段")),
            MessageSegment.node(int(bot.self_id), "牌桌", Message("第二段"))])
        mention = MessageSegment.mention(uid)

        async def name_of() -> str:
            member = await bot.get_group_member_info(group_id=group, user_id=uid)  # type: ignore[attr-defined]
            return member.card or member.nickname
    else:
        from nonebot.adapters.satori import MessageSegment

        uid = event.get_user_id()  # type: ignore[assignment]
        group = event.guild.id if event.guild else None  # type: ignore[attr-defined]

        async def to_chat(kind: str, target: Any, message: Any) -> Any:
            if kind == "group":
                return await bot.send_message(str(target), message)  # type: ignore[attr-defined]
            return await bot.send_private_message(str(target), message)  # type: ignore[attr-defined]

        image = MessageSegment.image(raw=PNG, mime="image/png")
        forward = MessageSegment.message(forward=True)(
            MessageSegment.message()("第一段"), MessageSegment.message()("第二段"))
        mention = MessageSegment.at(str(uid))

        async def name_of() -> str:
            member = await bot.guild_member_get(guild_id=group, user_id=str(uid))  # type: ignore[attr-defined]
            return member.nick or (member.user.name if member.user else "") or ""

    if command == "echo":
        await _attempt(text, bot.send(event, rest))
    elif command == "private":
        await _attempt(text, to_chat("private", uid, rest))
    elif command == "image":
        await _attempt(text, bot.send(event, image))
    elif command == "forward":
        await _attempt(text, bot.send(event, forward))
    elif command == "mention":
        await _attempt(text, bot.send(event, mention + " 轮到你"))
    elif command == "lines":
        await _attempt(text, bot.send(event, "第一行\n" + mention + "\n第二行"))
    elif command == "whois":
        await _attempt(text, _say_name(bot, event, name_of))
    elif command == "send":
        kind, _, rest = rest.partition(" ")
        target, _, words = rest.partition(" ")
        await _attempt(text, to_chat(kind, int(target) if ADAPTER == "milky" else target, words))


async def _say_name(bot: Bot, event: Event, name_of) -> Any:
    return await bot.send(event, "名字：" + await name_of())
