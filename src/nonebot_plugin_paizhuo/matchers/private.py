"""Private answers to the bot — 抓特务 ``还 <牌>`` (Z-8) and ``明`` / ``明牌`` / ``暗`` (Z-9),
挖坑 ``扣 <4 张>`` (W-3) — and short explanations for group commands sent privately.
Hidden choices are only ever made here, never in the group (G-4)."""

from __future__ import annotations

import typing
import unicodedata

from nonebot import get_driver, on_message
from nonebot.adapters import Bot
from nonebot.matcher import Matcher
from nonebot.rule import Rule

from ..actions import turns
from ..games import GAMES
from ..internals import dispatch
from ..messaging import chatter, deliver, private
from ..port import GroupEvent, PrivateEvent, room_of, where
from ..tables import REGISTRY
from ..tally import NO_GAME
from .play import parse_move, strip_prefix


def is_answer_text(text: str) -> bool:
    """Whether ``text`` is a private answer of any game (``还 <牌>``, ``明``, ``扣 <牌>`` …),
    well-formed or not, with or without the command prefix; chat that merely starts with
    the same word (``还没开始吗``) is not."""
    t = strip_prefix(text)
    return any(adapter.is_answer(t) for adapter in GAMES.values())


async def _is_answer(event: PrivateEvent) -> bool:
    return is_answer_text(event.get_plaintext())


answer_msg = on_message(rule=Rule(_is_answer), priority=5, block=True)
dispatch.UNLIMITED.add(answer_msg)


@answer_msg.handle()
async def _(bot: Bot, event: PrivateEvent) -> None:
    user_id = where(event)[1]
    if not await turns.answer(bot, user_id, strip_prefix(event.get_plaintext())):
        await deliver(bot, [chatter(private(user_id, "你现在没有需要回复的牌局提问。发送 /帮助 查看用法。"))])


_words: tuple[tuple[type[Matcher], ...], frozenset[str], frozenset[str]] | None = None


def command_words() -> tuple[frozenset[str], frozenset[str]]:
    """``(group only, private too)``: the plugin's command words (names and aliases, as
    each command declares them), split by what its handlers take: a command whose every
    handler takes a group message (``port.GroupEvent``) works only in a group. Worked out again only
    when the plugin's matchers change (``dispatch.adopt``)."""
    global _words
    ours = tuple(dispatch.OURS)
    if _words is None or _words[0] != ours:
        group_only: set[str] = set()
        anywhere: set[str] = set()
        for matcher in ours:
            words = dispatch.command_words(matcher)
            if not words:
                continue
            kinds = {typing.get_type_hints(h.call).get("event") for h in matcher.handlers}
            (group_only if kinds == {GroupEvent} else anywhere).update(words)
        _words = (ours, frozenset(group_only), frozenset(anywhere))
    return _words[1], _words[2]


async def _is_group_only(event: PrivateEvent) -> bool:
    """A group command sent privately — read like NoneBot reads commands: the message
    must start with a text segment holding the command."""
    message = event.get_message()
    if not message or message[0].type != "text":
        return False
    t = unicodedata.normalize("NFKC", message[0].data.get("text", "")).strip()
    starts = [unicodedata.normalize("NFKC", s) for s in get_driver().config.command_start]
    group_only, private_ok = command_words()
    if any(t.startswith(s + name) for s in starts for name in private_ok):
        return False
    return any(t.startswith(s + name) for s in starts for name in group_only)


group_only_cmd = on_message(rule=Rule(_is_group_only), priority=9, block=True)


async def _is_private_move(event: PrivateEvent) -> bool:
    return parse_move(event.get_plaintext()) is not None


private_move = on_message(rule=Rule(_is_private_move), priority=6, block=True)


PRIVATE_USES = "/手牌、/提示、/记牌、还 <牌>、明 / 明牌 / 暗、扣 <4 张牌>"
"""What a private chat is for on every side."""


@group_only_cmd.handle()
async def _(bot: Bot, event: PrivateEvent) -> None:
    room = room_of(bot)
    uses = ("出牌、过、叫分、" if room is not None and room.plays_privately else "") + PRIVATE_USES
    await deliver(bot, [chatter(private(where(event)[1], f"这个命令请在群里发送。私聊只用于：{uses}。"))])


@private_move.handle()
async def _(bot: Bot, event: PrivateEvent) -> None:
    user_id = where(event)[1]
    room = room_of(bot)
    if room is not None and room.plays_privately:
        table = REGISTRY.table_of_user(user_id)
        if table is not None and table.playing and table.seat_of(user_id) is not None:
            parsed = table.adapter.parse_command(strip_prefix(event.get_plaintext()))
            if parsed is not None and not (parsed[0] == "play" and not parsed[1]):
                await turns.move(bot, table.group_id, user_id, *parsed, privately=True)
                return
            text = "请写出要出的牌，例如 出 33；不要请发：过"
        else:
            # Moves are taken here on this side: nothing to play, not the wrong chat.
            text = NO_GAME
        await deliver(bot, [chatter(private(user_id, text))])
        return
    await deliver(bot, [chatter(private(user_id, "出牌、过和叫分请在群里发送，大家才看得到。"))])
