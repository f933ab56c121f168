"""Group game commands — ``出 <牌>``, ``过`` / ``不要`` and each game's own (e.g. 挖坑
``叫 2`` / ``不叫``) — with or without the command prefix."""

from __future__ import annotations

import unicodedata

from nonebot import get_driver, on_message
from nonebot.adapters import Bot
from nonebot.rule import Rule
from nonebot.typing import T_State

from paizhuo_engine.cards import NotationError, parse_cards
from paizhuo_engine.readings import trailing_type_word

from ..actions import basics, turns
from ..games import GAMES
from ..internals import dispatch
from ..messaging import chatter, deliver
from ..port import GroupEvent, where
from ..tables import REGISTRY


def strip_prefix(text: str) -> str:
    """``text`` without a configured command prefix, NFKC-folded and stripped."""
    t = unicodedata.normalize("NFKC", text).strip()
    for start in sorted(get_driver().config.command_start, key=len, reverse=True):
        if start and t.startswith(unicodedata.normalize("NFKC", start)):
            return t[len(start):].lstrip()
    return t


def parse_move(text: str) -> tuple[str, str | None] | None:
    """Any game's group command in ``text`` (used where no table decides, e.g. private
    chat); ``None`` for anything else."""
    t = strip_prefix(text)
    for adapter in GAMES.values():
        parsed = adapter.parse_command(t)
        if parsed is not None:
            return parsed
    return None


def looks_like_cards(text: str) -> bool:
    """Whether ``text`` parses as cards (with an optional type name of any game)."""
    word = trailing_type_word(text)
    try:
        parse_cards(text.rstrip()[: -len(word)] if word else text)
    except NotationError:
        return False
    return True


MOVE = "paizhuo_move"
"""State key where the rule leaves the parsed command ``(kind, argument)`` for the
handler: the text is parsed once."""


async def _is_move(event: GroupEvent, state: T_State) -> bool:
    """A game command of the group's table in play (read once, with the sender and the
    group, into ``state[MOVE]``)."""
    group_id, user_id = group_and_user(event)
    table = REGISTRY.get(group_id)
    if table is None or not table.playing:
        return False
    parsed = table.adapter.parse_command(strip_prefix(event.get_plaintext()))
    if parsed is None:
        return False
    if table.seat_of(user_id) is None and not (
            parsed[0] == "play" and looks_like_cards(parsed[1] or "")):
        # A bystander saying 过 / 不要, or chat that merely starts with 出, is not a move.
        return False
    state[MOVE] = (group_id, user_id, *parsed)
    return True


def group_and_user(event: GroupEvent) -> tuple[str, str]:
    """The group and the sender of a group message (``port.where``: the rule has no bot)."""
    group_id, user_id = where(event)
    if group_id is None:
        raise TypeError(f"{type(event).__name__} is not a group message")
    return group_id, user_id


move_msg = on_message(rule=Rule(_is_move), priority=5, block=True)
dispatch.UNLIMITED.add(move_msg)


@move_msg.handle()
async def _(bot: Bot, event: GroupEvent, state: T_State) -> None:
    parsed = state.get(MOVE)
    if parsed is None:
        return
    group_id, user_id, kind, arg = parsed
    if kind == "play" and not arg:
        await deliver(bot, [chatter(basics.reply(group_id, user_id, "请在“出”后面写牌，例如：出 33"))])
        return
    await turns.move(bot, group_id, user_id, kind, arg)
