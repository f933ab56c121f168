"""The probe: logs every event the adapter hands it and answers a few commands with the
adapter's own calls, logging each call's outcome (the exception class and the platform's
code when refused) as JSON lines in ``QQ_PROBE_LOG``.

Commands (group or C2C, the text after the @):
``回 N`` reply N times to this message; ``记`` keep this message and reply once; ``旧`` reply
to the kept message of this chat; ``重`` reply twice with ``msg_seq`` 1; ``主动`` send to
this chat without a message to reply to; ``状态`` read the group's bot_state; ``按钮 OPENID``
markdown with a callback button only OPENID may press and a command button for everyone;
``图`` an uploaded PNG; ``图链 URL`` an image by URL. A button press is acknowledged
(``PUT /interactions``) and answered once; FRIEND_ADD and GROUP_ADD_ROBOT are greeted."""

from __future__ import annotations

import json
import os
from typing import Any

from nonebot import on_message, on_notice
from nonebot.adapters.qq import (
    Bot,
    C2CMessageCreateEvent,
    FriendAddEvent,
    GroupAddRobotEvent,
    GroupMessageCreateEvent,
    InteractionCreateEvent,
    MessageSegment,
)
from nonebot.adapters.qq.exception import ActionFailed
from nonebot.adapters.qq.models import (
    Action,
    Button,
    InlineKeyboard,
    InlineKeyboardRow,
    MessageKeyboard,
    Permission,
    RenderData,
)

LOG = os.environ.get("QQ_PROBE_LOG", "probe.jsonl")
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f80f0000010100005a0a4e5c0000000049454e44ae426082")
KEPT: dict[str, Any] = {}


def log(**entry: Any) -> None:
    with open(LOG, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry, ensure_ascii=False, default=str) + "\n")


async def call(tag: str, coro: Any) -> Any:
    """Await ``coro`` and log how it ended."""
    try:
        result = await coro
    except ActionFailed as e:
        log(kind="call", tag=tag, ok=False, error=type(e).__name__, status=e.status_code,
            code=e.code, message=e.message)
        return None
    except Exception as e:  # the probe reports every outcome
        log(kind="call", tag=tag, ok=False, error=type(e).__name__, message=str(e))
        return None
    log(kind="call", tag=tag, ok=True, result=getattr(result, "__dict__", result))
    return result


def chat_key(event: C2CMessageCreateEvent | GroupMessageCreateEvent) -> str:
    if isinstance(event, GroupMessageCreateEvent):
        return f"group:{event.group_openid}:{event.author.member_openid}"
    return f"c2c:{event.author.user_openid}"


messages = on_message(priority=1, block=True)


@messages.handle()
async def _(bot: Bot, event: C2CMessageCreateEvent | GroupMessageCreateEvent) -> None:
    text = event.get_plaintext().strip()
    log(kind="event", type=event.get_event_name(), id=event.id, user=event.get_user_id(),
        group=getattr(event, "group_openid", None), text=text, to_me=event.is_tome(),
        author=event.author.model_dump())
    word, _, arg = text.partition(" ")
    group = isinstance(event, GroupMessageCreateEvent)
    if word == "回":
        for i in range(1, int(arg) + 1):
            await call(f"reply{i}", bot.send(event, f"回复 {i}"))
    elif word == "记":
        KEPT[chat_key(event)] = event
        await call("keep", bot.send(event, "记下了"))
    elif word == "旧":
        await call("old", bot.send(KEPT[chat_key(event)], "旧消息的回复"))
    elif word == "重":
        for tag in ("seq1", "seq1-again"):
            if group:
                coro = bot.send_to_group(event.group_openid, "同一序号", msg_id=event.id,
                                         msg_seq=1)
            else:
                coro = bot.send_to_c2c(event.author.user_openid, "同一序号", msg_id=event.id,
                                       msg_seq=1)
            await call(tag, coro)
    elif word == "主动":
        if group:
            await call("proactive", bot.send_to_group(event.group_openid, "主动的群消息"))
        else:
            await call("proactive", bot.send_to_c2c(event.author.user_openid, "主动的私聊"))
    elif word == "状态" and group:
        state = await call("state", bot.get_group_bot_state(group_id=event.group_openid))
        if state is not None:
            log(kind="state", allow_proactive_msg=state.allow_proactive_msg,
                recv_msg_setting=state.recv_msg_setting)
    elif word == "按钮":
        only = arg or event.get_user_id()
        keyboard = MessageKeyboard(content=InlineKeyboard(rows=[
            InlineKeyboardRow(buttons=[Button(
                id="play", render_data=RenderData(label="出 3", visited_label="出 3", style=1),
                action=Action(type=1, data="出 3", unsupport_tips="请升级",
                              permission=Permission(type=0, specify_user_ids=[only])))]),
            InlineKeyboardRow(buttons=[Button(
                id="pass", render_data=RenderData(label="过", visited_label="过", style=0),
                action=Action(type=2, data="过", enter=True, unsupport_tips="请升级",
                              permission=Permission(type=2)))]),
        ]))
        await call("buttons", bot.send(event, MessageSegment.markdown("**轮到你**：出牌或过")
                                       + MessageSegment.keyboard(keyboard)))
    elif word == "图":
        await call("image", bot.send(event, MessageSegment.file_image(PNG)))
    elif word == "图链":
        await call("image-url", bot.send(event, MessageSegment.image(arg)))


notices = on_notice(priority=1, block=True)


@notices.handle()
async def _(bot: Bot, event: InteractionCreateEvent | FriendAddEvent | GroupAddRobotEvent
            ) -> None:
    if isinstance(event, InteractionCreateEvent):
        resolved = event.data.resolved
        log(kind="event", type="INTERACTION_CREATE", id=event.id, event_id=event.event_id,
            user=event.get_user_id(), group=event.group_openid, scene=event.scene,
            button_id=resolved.button_id, button_data=resolved.button_data)
        await call("ack", bot.put_interaction(interaction_id=event.id, code=0))
        await call("interaction-reply", bot.send(event, f"收到 {resolved.button_data}"))
    else:
        log(kind="event", type=event.get_event_name(), event_id=event.event_id,
            user=event.get_user_id())
        await call("greet", bot.send(event, "你好"))
