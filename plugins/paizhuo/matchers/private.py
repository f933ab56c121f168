"""Private answers to the bot: ``还 <牌>`` (return tribute, Z-8) and ``明`` / ``明牌`` / ``暗``
(declaring, Z-9). Hidden choices are only ever made here, never in the group (G-4)."""

from __future__ import annotations

import unicodedata

from nonebot import on_message
from nonebot.adapters.onebot.v11 import Bot, PrivateMessageEvent
from nonebot.rule import Rule

from plugins.paizhuo import actions
from plugins.paizhuo.messaging import deliver, private

ANSWER_WORDS = {"明", "明牌", "暗", "明特务", "暗特务"}


def is_answer_text(text: str) -> bool:
    """``还 …`` or one of the declare words."""
    t = unicodedata.normalize("NFKC", text).strip()
    return t in ANSWER_WORDS or t.startswith("还")


async def _is_answer(event: PrivateMessageEvent) -> bool:
    return is_answer_text(event.get_plaintext())


answer_msg = on_message(rule=Rule(_is_answer), priority=5, block=True)


@answer_msg.handle()
async def _(bot: Bot, event: PrivateMessageEvent) -> None:
    user_id = str(event.user_id)
    if not await actions.answer(bot, user_id, event.get_plaintext()):
        await deliver(bot, [private(user_id, "你现在没有需要回复的牌局提问。发送 /帮助 查看用法。")])
