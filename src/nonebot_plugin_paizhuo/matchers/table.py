"""``/开局``, ``/加入``, ``/退出``, ``/踢``, ``/继续``, ``/托管``, ``/结束``, ``/牌桌``: opening and
managing a group's table; ``/牌桌 状态``: the account's sending state (admins)."""

from __future__ import annotations

from nonebot.adapters import Bot, Message
from nonebot.params import CommandArg

from ..actions import announce, computer_seats, seating, turns
from ..messaging import answer, deliver, schedulers
from ..port import GroupEvent
from ..status import DENIED, status_text
from .depends import display_name, heard, is_manager, wrong_args
from .namespace import on_command  # bare words only in NoneBot's prefix table

open_cmd = on_command("开局", aliases={"开桌"}, priority=10, block=True)
join_cmd = on_command("加入", aliases={"上桌", "入座"}, priority=10, block=True)
leave_cmd = on_command("退出", aliases={"下桌"}, priority=10, block=True)
end_cmd = on_command("结束", aliases={"结束牌局"}, priority=10, block=True)
table_cmd = on_command("牌桌", priority=10, block=True)
continue_cmd = on_command("继续", aliases={"再来", "下一局"}, priority=10, block=True)
auto_cmd = on_command("托管", priority=10, block=True)
start_cmd = on_command("开始", aliases={"开打"}, priority=10, block=True)
kick_cmd = on_command("踢", aliases={"请离"}, priority=10, block=True)
add_ai_cmd = on_command("加机器人", aliases={"加电脑"}, priority=9, block=True)
remove_ai_cmd = on_command("踢机器人", aliases={"踢电脑"}, priority=9, block=True)


@open_cmd.handle()
async def _(bot: Bot, event: GroupEvent, args: Message = CommandArg()) -> None:
    who = heard(bot, event)
    await seating.open_table(bot, who.group_id, who.user_id,
                             display_name(who), args.extract_plain_text())


@join_cmd.handle()
async def _(bot: Bot, event: GroupEvent) -> None:
    who = heard(bot, event)
    # Words after /加入 (``/加入 我来了``) are chat: the player sits down all the same.
    await seating.join_table(bot, who.group_id, who.user_id, display_name(who))


@leave_cmd.handle()
async def _(bot: Bot, event: GroupEvent, args: Message = CommandArg()) -> None:
    who = heard(bot, event)
    if await wrong_args(bot, who, args, "退出"):
        return
    await seating.leave_table(bot, who.group_id, who.user_id)


@end_cmd.handle()
async def _(bot: Bot, event: GroupEvent, args: Message = CommandArg()) -> None:
    who = heard(bot, event)
    if await wrong_args(bot, who, args, "结束"):
        return
    await seating.end_table(bot, who.group_id, who.user_id, is_manager(bot, who))


@table_cmd.handle()
async def _(bot: Bot, event: GroupEvent, args: Message = CommandArg()) -> None:
    who = heard(bot, event)
    if args.extract_plain_text().strip() == "状态":  # /牌桌 状态: the account's sending
        text = status_text(who.account, schedulers().get(who.account)) if is_manager(bot, who) else DENIED
        await deliver(bot, [answer(who, text)])
        return
    # ``/牌桌 牌桌`` is ``/牌桌`` written under the command namespace.
    if args.extract_plain_text().strip() != "牌桌" and await wrong_args(bot, who, args, "牌桌"):
        return
    await announce.show_table(bot, who.group_id, who.user_id)


@continue_cmd.handle()
async def _(bot: Bot, event: GroupEvent, args: Message = CommandArg()) -> None:
    who = heard(bot, event)
    if await wrong_args(bot, who, args, "继续"):
        return
    await seating.continue_table(bot, who.group_id, who.user_id)


@auto_cmd.handle()
async def _(bot: Bot, event: GroupEvent, args: Message = CommandArg()) -> None:
    who = heard(bot, event)
    if await wrong_args(bot, who, args, "托管"):
        return
    await turns.toggle_auto(bot, who.group_id, who.user_id)


@start_cmd.handle()
async def _(bot: Bot, event: GroupEvent, args: Message = CommandArg()) -> None:
    who = heard(bot, event)
    if await wrong_args(bot, who, args, "开始"):
        return
    await seating.start_now(bot, who.group_id, who.user_id)


@kick_cmd.handle()
async def _(bot: Bot, event: GroupEvent, args: Message = CommandArg()) -> None:
    who = heard(bot, event)
    target = next(iter(who.room.mentions(args)), None)
    await seating.kick_player(bot, who.group_id, who.user_id, target,
                              is_manager(bot, who))


@add_ai_cmd.handle()
async def _(bot: Bot, event: GroupEvent, args: Message = CommandArg()) -> None:
    who = heard(bot, event)
    await computer_seats.add_computers(bot, who.group_id, who.user_id,
                                args.extract_plain_text(), is_manager(bot, who))


@remove_ai_cmd.handle()
async def _(bot: Bot, event: GroupEvent) -> None:
    who = heard(bot, event)
    await computer_seats.remove_computers(bot, who.group_id, who.user_id, is_manager(bot, who))
