"""``/排行`` (the group's leaderboard of a game) and ``/对局`` (numbered game records and
their replays)."""

from __future__ import annotations

from nonebot import on_command
from nonebot.adapters.onebot.v11 import Bot, GroupMessageEvent, Message
from nonebot.params import CommandArg

from plugins.paizhuo import actions
from plugins.paizhuo.games import GAMES
from plugins.paizhuo.messaging import deliver, group
from plugins.paizhuo.records import board_for, board_text, member_names
from plugins.paizhuo.tables import REGISTRY

board_cmd = on_command("排行", aliases={"排行榜", "排名"}, priority=10, block=True)


async def show_board(bot: Bot, group_id: str, user_id: str, args: str) -> None:
    """``/排行 [游戏] [本周|本月|总]``: the group's leaderboard, posted in the group."""
    store = REGISTRY.require_store()
    min_games = {name: int((await actions.group_settings(group_id, adapter))["board_min_games"])
                 for name, adapter in GAMES.items()}
    board = await board_for(store, group_id, args, user_id, min_games)
    if isinstance(board, str):
        await deliver(bot, [actions.reply(group_id, user_id, board)])
        return
    names = await member_names(bot, group_id)
    await deliver(bot, [group(group_id, board_text(board, names, user_id))])


@board_cmd.handle()
async def _(bot: Bot, event: GroupMessageEvent, args: Message = CommandArg()) -> None:
    await show_board(bot, str(event.group_id), str(event.user_id), args.extract_plain_text())
