"""``出 <牌>`` and ``过`` / ``不要``, with or without the command prefix, in the group."""

from __future__ import annotations

import re
import unicodedata

from nonebot import get_driver, on_message
from nonebot.adapters.onebot.v11 import Bot, GroupMessageEvent
from nonebot.rule import Rule

from engine.cards import NotationError, parse_cards
from engine.readings import split_type_hint
from plugins.paizhuo import actions
from plugins.paizhuo.tables import REGISTRY

PLAY_RE = re.compile(r"^出(?:牌)?\s*(.*)$", re.S)
PASS_WORDS = {"过", "不要", "要不起", "pass", "过牌"}


def parse_move(text: str) -> tuple[str, str | None] | None:
    """``("play", cards)`` / ``("pass", None)`` for a move's text, ``None`` for anything
    else. The configured command prefixes are accepted and ignored."""
    t = unicodedata.normalize("NFKC", text).strip()
    for start in sorted(get_driver().config.command_start, key=len, reverse=True):
        if start and t.startswith(start):
            t = t[len(start):].lstrip()
            break
    if t.lower() in PASS_WORDS:
        return ("pass", None)
    m = PLAY_RE.match(t)
    if m:
        return ("play", m.group(1).strip())
    return None


def looks_like_cards(text: str) -> bool:
    """Whether ``text`` parses as cards (with an optional type name)."""
    try:
        parse_cards(split_type_hint(text)[0])
    except NotationError:
        return False
    return True


async def _is_move(event: GroupMessageEvent) -> bool:
    table = REGISTRY.get(str(event.group_id))
    if table is None or not table.playing:
        return False
    parsed = parse_move(event.get_plaintext())
    if parsed is None:
        return False
    if table.seat_of(str(event.user_id)) is None:
        # A bystander saying 过 / 不要, or chat that merely starts with 出, is not a move.
        return parsed[0] == "play" and looks_like_cards(parsed[1] or "")
    return True


move_msg = on_message(rule=Rule(_is_move), priority=5, block=True)


@move_msg.handle()
async def _(bot: Bot, event: GroupMessageEvent) -> None:
    parsed = parse_move(event.get_plaintext())
    if parsed is None:
        return
    kind, cards = parsed
    if kind == "play" and not cards:
        await actions.deliver(bot, [actions.reply(str(event.group_id), str(event.user_id),
                                                  "请在“出”后面写牌，例如：出 33")])
        return
    await actions.move(bot, str(event.group_id), str(event.user_id),
                       cards if kind == "play" else None)
