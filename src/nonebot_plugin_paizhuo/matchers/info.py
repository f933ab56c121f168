"""``/手牌``, ``/提示``, ``/记牌``, ``/帮助``, ``/战绩``, ``/规则``, ``/设置``: information and house rules."""

from __future__ import annotations

import unicodedata

from nonebot.adapters import Bot, Message
from nonebot.params import CommandArg

from paizhuo_db.history import points_series
from paizhuo_engine.numbers import parse_int

from .. import tally
from ..actions import basics, house_rules, turns
from ..forward import forward_reply
from ..games import GAMES
from ..messaging import answer, chatter, deliver, timed
from ..names import clean_name
from ..pictures import picture, pictures_on
from ..port import AnyMessageEvent, GroupEvent, Room, Said
from ..stats import render_stats
from ..tables import REGISTRY
from .depends import USAGE, display_name, heard, is_manager, wrong_args
from .namespace import on_command  # bare words only in NoneBot's prefix table

HELP = """【牌桌 bot】可玩：抓特务（3 或 4 人）、挖坑（3 人）、手把一（2–6 人）
开桌：/开局 抓特务 三人 | 四人；/开局 挖坑；/开局 手把一 4人（或不写人数，开局人 /开始）
入座：/加入　离座：/退出　电脑玩家：/加机器人 [人数]、/踢机器人（开局人、管理员）
电脑难度：/设置 <游戏> 电脑难度 简单 | 普通 | 困难（电脑玩家、托管和超时代打都按它打，默认普通）
出牌：出 778899　不要：过 或 不要（可不带 /）
挖坑叫分：叫 1 / 叫 2 / 叫 3 / 不叫（群里）；挖坑者私聊：扣 <4 张牌>
抓特务私聊：还 <牌>（还贡）；明 / 明牌 / 暗（特务选择）
一局结束后：/继续（全员发送、坐满后开下一局）；/退出 离座，新人 /加入 补位；/踢 @某人 请离不在的人；/托管 让机器人代打
查看：/手牌（私聊重发手牌）/提示（私聊告诉你可以怎么出）/记牌（私聊列出你还没见过的牌）/牌桌 /战绩 [@某人] /规则 [游戏]
排行与复盘：/排行 [游戏] [本周|本月|总]；/对局 列出最近的对局，/对局 <编号> 复盘
所有命令也可写成 /牌桌 <命令>，例如 /牌桌 帮助（与别的插件同名时用）
管理：/设置 <游戏> <项> <值>、/设置 <游戏> 默认（群主、管理员）；/结束（开局人、群主、管理员）；/牌桌 状态 查看发送状态（群主、管理员）
记牌：3 4 5 6 7 8 9 10 J Q K A 2，10 也可写 T 或 0，小王=小，大王=大；
花色可写 ♠♥♣♦、黑桃/红桃/梅花/方块 或 s h c d，例如 出 ♥3 或 出 h3；
空格、逗号随意：778899 = 7 7 8 8 9 9 = ７７８８９９；牌后可写牌型名，如 出 999 101010 JJJ 三连。
各游戏的牌型名：/帮助 抓特务、/帮助 挖坑、/帮助 手把一
机器人要私聊发牌，请先加它为好友。"""



def help_text(room: Room | None) -> str:
    """:data:`HELP` as the side plays: where moves are taken in private chat too (the
    official bot, ``Room.plays_privately``) it says so, and how to let the bot message you
    is the side's own words (``Room.join_text``), not 加好友."""
    if room is None or not room.plays_privately:
        return HELP
    return (HELP.replace("出牌：出 778899", "出牌：轮到你时点私聊里的按钮，或发 出 778899")
            .replace("不叫（群里）", "不叫（群里或私聊）")
            .replace("机器人要私聊发牌，请先加它为好友。", room.join_text()))


HELP_USAGE = "用法：/帮助 查看命令；/帮助 <游戏> 查看牌型名，游戏：" + "、".join(GAMES)


def reply_to(who: Said, text: str):
    """A short group reply that @-mentions the sender (chatter: after the game's messages)."""
    return chatter(basics.reply(who.group_id, who.user_id, text))


hand_cmd = on_command("手牌", aliases={"看牌"}, priority=10, block=True)
hint_cmd = on_command("提示", priority=10, block=True)
tally_cmd = on_command("记牌", aliases={"记牌器"}, priority=10, block=True)
help_cmd = on_command("帮助", aliases={"help", "牌桌帮助"}, priority=10, block=True)
stats_cmd = on_command("战绩", priority=10, block=True)
rules_cmd = on_command("规则", priority=10, block=True)
set_cmd = on_command("设置", priority=10, block=True)


@rules_cmd.handle()
async def _(bot: Bot, event: GroupEvent, args: Message = CommandArg()) -> None:
    who = heard(bot, event)
    text = await house_rules.show_rules(who.group_id, args.extract_plain_text())
    await deliver(bot, [chatter(forward_reply(who, text)) if "\n" in text else reply_to(who, text)])


@set_cmd.handle()
async def _(bot: Bot, event: GroupEvent, args: Message = CommandArg()) -> None:
    who = heard(bot, event)
    text = await house_rules.change_setting(who.group_id, args.extract_plain_text(),
                                        await is_manager(bot, who))
    await deliver(bot, [answer(who, text)])


@hand_cmd.handle()
async def _(bot: Bot, event: AnyMessageEvent, args: Message = CommandArg()) -> None:
    who = heard(bot, event)
    if await wrong_args(bot, who, args, "手牌"):
        return
    group_id = who.group_id
    await turns.resend_hand(bot, who.user_id, group_id)


@hint_cmd.handle()
async def _(bot: Bot, event: AnyMessageEvent) -> None:
    who = heard(bot, event)
    await turns.send_hints(bot, who.user_id)


@tally_cmd.handle()
async def _(bot: Bot, event: AnyMessageEvent, args: Message = CommandArg()) -> None:
    who = heard(bot, event)
    if await wrong_args(bot, who, args, "记牌"):
        return
    group_id = who.group_id
    await tally.send_tally(bot, who.user_id, group_id)


@help_cmd.handle()
async def _(bot: Bot, event: AnyMessageEvent, args: Message = CommandArg()) -> None:
    who = heard(bot, event)
    game = unicodedata.normalize("NFKC", args.extract_plain_text()).strip()
    if not game:
        await deliver(bot, [chatter(forward_reply(who, help_text(who.room)))])
        return
    await deliver(bot, [answer(who, GAMES[game].help() if game in GAMES else HELP_USAGE)])


@stats_cmd.handle()
async def _(bot: Bot, event: GroupEvent, args: Message = CommandArg()) -> None:
    who = heard(bot, event)
    target = next(iter(who.room.mentions(args)), None)
    typed = unicodedata.normalize("NFKC", args.extract_plain_text()).strip().lstrip("@")
    number = parse_int(typed, max_digits=12)
    if target is None and number is not None and 5 <= len(typed) <= 12:
        target = str(number)
    elif typed:
        # A name typed without a real @ (``/战绩 乙``), or words beside the @.
        await deliver(bot, [answer(who, USAGE["战绩"])])
        return
    if target is None or target == "all":
        target, name = who.user_id, None
    else:
        name = None
        try:
            name = clean_name(await timed(who.room.member_name(bot, who.group_id, target))) or None
        except Exception:  # noqa: BLE001 - fall back to the QQ number
            name = None
    if name is None:
        name = display_name(who) if target == who.user_id else target
    text = await render_stats(who.group_id, target, name or target, who.scope)
    if pictures_on() and "\n" in text:
        chart = await points_series(REGISTRY.require_store(), who.group_id, target,
                                    scope=who.scope)
        await deliver(bot, [chatter(await picture("group", who.group_id, text, chart))])
        return
    await deliver(bot, [answer(who, text)])
