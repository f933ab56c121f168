"""``/排行`` (the group's leaderboard of a game) and ``/对局`` (numbered game records and
their replays)."""

from __future__ import annotations

import unicodedata

from nonebot.adapters import Bot, Message
from nonebot.params import CommandArg

from paizhuo_db.history import game_by_number, recent_games
from paizhuo_engine.numbers import parse_int

from ..actions import basics
from ..forward import forward
from ..games import GAMES
from ..history_texts import (
    board_for,
    board_text,
    games_list_text,
    member_names,
    replay_text,
    replayed_end,
)
from ..messaging import deliver_reply, group
from ..pictures import picture, pictures_on, replay_picture
from ..port import QQ_SCOPE, GroupEvent
from ..tables import REGISTRY
from .depends import heard
from .namespace import on_command  # bare words only in NoneBot's prefix table

board_cmd = on_command("排行", aliases={"排行榜", "排名"}, priority=10, block=True)
games_cmd = on_command("对局", aliases={"复盘", "对局记录"}, priority=10, block=True)
GAMES_USAGE = "用法：/对局 列出本群最近的对局；/对局 <编号> 查看那一局的复盘，例如 /对局 3"
BOARD_PICTURE_ROWS = 5
"""A board of fewer ranked rows goes as text: a picture of one or two lines is a thin
strip that a phone shows too small to read."""
REPLAY_WORDS = ("查看复盘", "看复盘", "复盘")
"""Words that may follow the number (end messages before 第 N 局's pointer said
``/对局 N 查看复盘``; still understood)."""


def game_number_arg(args: str) -> int | None:
    """The game number of ``/对局`` arguments: ``3``, ``第3局``, ``3 查看复盘`` → 3;
    ``None`` for anything else (ASCII digits only, at most 9)."""
    arg = unicodedata.normalize("NFKC", args).strip()
    for word in REPLAY_WORDS:
        if arg.endswith(word):
            arg = arg.removesuffix(word).strip()
            break
    return parse_int(arg.removeprefix("第").removesuffix("局").strip())


async def show_board(bot: Bot, group_id: str, user_id: str, args: str,
                     scope: str = QQ_SCOPE) -> None:
    """``/排行 [游戏] [本周|本月|总]``: the group's leaderboard of the persons of ``scope``,
    posted in the group."""
    store = REGISTRY.require_store()
    min_games = {name: int((await basics.group_settings(group_id, adapter))["board_min_games"])
                 for name, adapter in GAMES.items()}
    board = await board_for(store, group_id, args, user_id, min_games, scope)
    if isinstance(board, str):
        await deliver_reply(bot, [basics.reply(group_id, user_id, board)])
        return
    text = board_text(board, await member_names(bot, group_id), user_id)
    drawn = pictures_on() and len(board.top) >= BOARD_PICTURE_ROWS
    await deliver_reply(bot, [await picture("group", group_id, text) if drawn else group(group_id, text)])


@board_cmd.handle()
async def _(bot: Bot, event: GroupEvent, args: Message = CommandArg()) -> None:
    who = heard(bot, event)
    await show_board(bot, who.group_id, who.user_id, args.extract_plain_text(), who.scope)


async def show_games(bot: Bot, group_id: str, user_id: str, args: str) -> None:
    """``/对局``: the group's last 10 games; ``/对局 N``: game 第 N 局 with its replay."""
    store = REGISTRY.require_store()
    if not unicodedata.normalize("NFKC", args).strip():
        entries = await recent_games(store, group_id)
        text = games_list_text(entries, await member_names(bot, group_id) if entries else {})
        await deliver_reply(bot, [group(group_id, text)])
        return
    number = game_number_arg(args)
    if number is None:
        await deliver_reply(bot, [basics.reply(group_id, user_id, GAMES_USAGE)])
        return
    entry = await game_by_number(store, group_id, number)
    if entry is None:
        await deliver_reply(bot, [basics.reply(group_id, user_id, f"本群没有第 {number} 局。发送 /对局 查看最近的对局。")])
        return
    names = await member_names(bot, group_id)
    out = forward("group", group_id, replay_text(entry, names))
    ended = replayed_end(entry, names) if pictures_on() else None
    if ended is not None and out.forward is not None:
        # With pictures on, the deal as cards on top, in the same merged-forward message.
        drawn = await replay_picture(*ended, number, entry.summary["replay"])
        if drawn is not None:
            out.forward.insert(0, drawn)
    await deliver_reply(bot, [out])


@games_cmd.handle()
async def _(bot: Bot, event: GroupEvent, args: Message = CommandArg()) -> None:
    who = heard(bot, event)
    await show_games(bot, who.group_id, who.user_id, args.extract_plain_text())
